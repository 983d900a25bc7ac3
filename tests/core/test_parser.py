"""Targeted cases for the HLO parser: errors, tolerance, old text styles, shapes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlaview import turns
from xlaview.hlo import HloSyntaxError, parse_module, parse_module_tolerant, parse_shape
from xlaview.hlo.shape import describe_dimension_order

GOOD = """\
HloModule m, is_scheduled=true, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0), metadata={op_name="p"}
  %c = f32[] constant(0)
  %r = f32[] reduce(%p, %c), dimensions={0}, to_apply=%add
  %b = f32[4]{0} broadcast(%r), dimensions={}
  ROOT %out = f32[4]{0} add(%p, %b), \
metadata={op_name="jit(f)/add" source_file="f.py" source_line=3}
}
"""


def test_good_module_structure() -> None:
    m = parse_module(GOOD)
    assert m.name == "m" and m.is_scheduled
    assert m.entry_computation_layout == "{(f32[4]{0})->f32[4]{0}}"
    assert [c.name for c in m.computations] == ["add", "main"]
    main = m.computation("main")
    assert main.is_entry and main.root.name == "out"
    assert [i.name for i in main.instructions] == ["p", "c", "r", "b", "out"]
    assert main.instruction("r").operand_names == ("p", "c")
    assert main.instruction("r").called_computations == ("add",)
    assert main.instruction("r").attributes["dimensions"] == "{0}"
    assert str(main.instruction("out").shape) == "f32[4]{0}"
    assert main.instruction("out").op_name == "jit(f)/add"
    assert m.source_frames(main.instruction("out"))[0].line == 3
    assert main.instruction("c").literal == "0"
    assert main.instruction("p").parameter_number == 0
    assert m.computation_kind("add") == "applied by reduce"


def test_spans_point_at_the_text() -> None:
    m = parse_module(GOOD)
    out = m.computation("main").instruction("out")
    assert out.span.line == 14 and out.span.column == 3
    assert GOOD[out.span.offset : out.span.end].startswith("ROOT %out = f32[4]{0} add(")
    assert GOOD[out.span.offset : out.span.end].endswith("source_line=3}")
    comp = m.computation("add")
    assert comp.span.line == 3 and GOOD[comp.span.offset : comp.span.end].endswith("}")


def replace_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


ERRORS = [
    # (what is wrong, edit to GOOD, line, words in the message)
    ("undefined operand", ("add(%p, %b)", "add(%p, %nope)"), 14, "nope"),
    ("two ROOTs", ("  %b = f32[4]{0} broadcast", "  ROOT %b = f32[4]{0} broadcast"), 14, "ROOT"),
    ("two ENTRY", ("%add (a: f32[]", "ENTRY %add (a: f32[]"), 9, "ENTRY"),
    ("stray brace", ("\nENTRY %main", "\n}\nENTRY %main"), 9, "'}'"),
    ("missing =", ("%c = f32[] constant(0)", "%c f32[] constant(0)"), 11, "'='"),
    ("bad shape", ("%c = f32[] constant(0)", "%c = f32[x] constant(0)"), 11, "shape"),
    ("unclosed computation",
     ("  ROOT %sum = f32[] add(%a, %b)\n}", "  ROOT %sum = f32[] add(%a, %b)"), 8,
     "close computation add"),
    ("undefined computation", ("to_apply=%add", "to_apply=%mul"), 12, "mul"),
    ("duplicate instruction", ("%c = f32[] constant(0)", "%p = f32[] constant(0)"), 11, "twice"),
    ("negative parameter", ("%b = f32[] parameter(1)", "%b = f32[] parameter(-1)"), 5,
     "parameter number"),
    ("parameter out of range", ("%b = f32[] parameter(1)", "%b = f32[] parameter(2)"), 5,
     "out of range"),
    ("parameter number twice", ("%b = f32[] parameter(1)", "%b = f32[] parameter(0)"), 5,
     "taken twice"),
]  # fmt: skip


@pytest.mark.parametrize("what,edit,line,words", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_located(what: str, edit: tuple[str, str], line: int, words: str) -> None:
    text = replace_line(GOOD, *edit)
    with pytest.raises(HloSyntaxError) as info:
        parse_module(text)
    err = info.value
    assert err.line == line, f"{what}: reported at {err.line}:{err.column}: {err}"
    assert isinstance(err.column, int) and err.column >= 1
    assert words in err.message, f"{what}: {err.message!r}"
    result = parse_module_tolerant(text)
    assert result.diagnostics, f"{what}: the tolerant parse saw nothing wrong"


def test_truncated_text_keeps_everything_before_the_cut() -> None:
    cut = GOOD.index('metadata={op_name="jit')
    result = parse_module_tolerant(GOOD[:cut])
    assert [c.name for c in result.module.computations] == ["add", "main"]
    assert [i.name for i in result.module.computation("main").instructions] == ["p", "c", "r", "b"]
    assert result.diagnostics[0].line == 14


def test_bad_line_is_skipped_rest_still_opens() -> None:
    text = replace_line(GOOD, "%c = f32[] constant(0)", "%c = garbage garbage {")
    result = parse_module_tolerant(text)
    names = [i.name for i in result.module.computation("main").instructions]
    assert names == ["p", "r", "b", "out"]
    assert result.diagnostics[0].line == 11


def test_a_misnumbered_parameter_loses_its_number_not_its_computation() -> None:
    text = replace_line(GOOD, "%b = f32[] parameter(1)", "%b = f32[] parameter(999999999)")
    add = parse_module_tolerant(text).module.computation("add")
    assert [i.parameter_number for i in add.instructions[:2]] == [0, None]


def test_a_string_left_open_costs_its_line_not_the_next_computation() -> None:
    # The string runs to the quote in main's first line, which goes on after it.
    text = replace_line(GOOD, "ROOT %sum = f32[] add(%a, %b)", 'ROOT %sum = f32[] add(%a, %b), x="')
    result = parse_module_tolerant(text)
    assert [d.line for d in result.diagnostics][:1] == [6]
    assert "a quote left open" in result.diagnostics[0].message
    main = result.module.computation("main")
    assert [i.name for i in main.instructions] == ["p", "c", "r", "b", "out"]


def test_binary_junk_is_an_error_not_a_crash() -> None:
    with pytest.raises(HloSyntaxError):
        parse_module("HloModule x\n\x00\x01\x02\xff")
    assert parse_module_tolerant("\x89PNG\r\n\x1a\n\x00\x00").diagnostics


OLD_STYLE = """\
HloModule cluster_0__XlaCompiledKernel_true__XlaNumResourceArgs_0_.65

%fused_computation (param_0.2: f32[2,3], param_1.3: f32[2,3]) -> f32[2,3] {
  %param_0.2 = f32[2,3]{1,0} parameter(0)
  %param_1.3 = f32[2,3]{1,0} parameter(1)
  ROOT %add.1 = f32[2,3]{1,0} add(f32[2,3]{1,0} %param_0.2, f32[2,3]{1,0} %param_1.3)
}

ENTRY %cluster_0.65 (arg0.1: f32[2,3], arg1.2: f32[2,3]) -> (f32[2,3]) {
  %arg0.1 = f32[2,3]{1,0} parameter(0), parameter_replication={false}
  %arg1.2 = f32[2,3]{1,0} parameter(1)
  %fusion = f32[2,3]{1,0} fusion(f32[2,3]{1,0} %arg0.1, f32[2,3]{1,0} %arg1.2), kind=kLoop, \
calls=%fused_computation, backend_config="{\\"a\\":1}"
  %big = f32[2,3]{1,0} constant({...})
  ROOT %tuple = (f32[2,3]{1,0}) tuple(f32[2,3]{1,0} %fusion /*index=0*/)
}
"""


def test_old_text_styles() -> None:
    m = parse_module(OLD_STYLE)
    entry = m.entry
    fusion = entry.instruction("fusion")
    assert fusion.operand_names == ("arg0.1", "arg1.2")
    assert fusion.fusion_kind == "kLoop" and fusion.called_computations == ("fused_computation",)
    assert fusion.backend_config == {"a": 1}
    assert entry.instruction("big").literal == "{...}"
    assert entry.instruction("tuple").operand_names == ("fusion",)
    assert m.computation_kind("fused_computation") == "fusion"


SHORT = """\
HloModule short

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main.4 {
  p = f32[8]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
"""


def test_short_parsable_style_no_percent_no_signature() -> None:
    m = parse_module(SHORT)
    assert m.entry.name == "main.4"
    assert m.entry.instruction("r").called_computations == ("add",)


def test_bare_list_of_computations_has_no_header() -> None:
    m = parse_module(SHORT.split("\n", 2)[2])
    assert not m.has_header and m.name == "module_main.4"


def test_new_opcodes_and_attributes_are_kept_raw() -> None:
    text = GOOD.replace(
        "%c = f32[] constant(0)",
        "%c = f32[] frobnicate-v2(), future_attr={a=[1,2]<=[2] x}, mode=fast",
    )
    c = parse_module(text).computation("main").instruction("c")
    assert c.opcode == "frobnicate-v2"
    assert c.attributes == {"future_attr": "{a=[1,2]<=[2] x}", "mode": "fast"}


def test_multiline_instruction_and_comments() -> None:
    text = GOOD.replace(
        "%r = f32[] reduce(%p, %c), dimensions={0}, to_apply=%add",
        "%r = f32[] reduce(%p, // the input\n      %c), /* init */\n"
        "    dimensions={0},\n    to_apply=%add",
    )
    r = parse_module(text).computation("main").instruction("r")
    assert r.operand_names == ("p", "c")
    assert r.called_computations == ("add",)
    assert r.span.line == 12


def test_stack_frames_resolve_to_the_call_stack() -> None:
    text = """\
HloModule m

FileNames
1 "prog.py"

FunctionNames
1 "<module>"
2 "outer"
3 "inner"

FileLocations
1 {file_name_id=1 function_name_id=1 line=9 end_line=9 column=0 end_column=4}
2 {file_name_id=1 function_name_id=2 line=5 end_line=5 column=2 end_column=8}
3 {file_name_id=1 function_name_id=3 line=2 end_line=2 column=4 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}
3 {file_location_id=3 parent_frame_id=3}


ENTRY %main () -> f32[] {
  ROOT %c = f32[] constant(1), metadata={op_name="jit(outer)/sin" stack_frame_id=3}
}
"""
    m = parse_module(text)
    frames = m.source_frames(m.entry.instruction("c"))
    assert [(f.function, f.line) for f in frames] == [("inner", 2), ("outer", 5), ("<module>", 9)]


SHAPES = [
    # text, bytes, dimension order
    ("f32[16,32]{1,0}", 2048, "row-major"),
    ("f32[16,32]{0,1}", 2048, "column-major"),
    ("bf16[3,5]{1,0:T(8,128)(2,1)}", 8 * 128 * 2, "row-major"),
    ("f32[2,3,4]{0,2,1}", 96, "dimensions 1,2,0 from major to minor"),
    ("s4[16]{0:E(4)}", 8, "row-major"),
    ("pred[10]{0}", 10, "row-major"),
    ("f8e4m3fn[4,4]{1,0}", 16, "row-major"),
    ("f32[<=8,4]{1,0}", 128, "row-major"),
    ("(f32[], s32[2]{0})", 12, None),
    ("token[]", 0, None),
]  # fmt: skip


@pytest.mark.parametrize("text,size,order", SHAPES)
def test_shapes(text: str, size: int, order: str | None) -> None:
    shape = parse_shape(text)
    assert str(shape) == text
    assert shape.byte_size() == size
    if order:
        assert describe_dimension_order(shape) == order


def test_layout_attributes() -> None:
    shape = parse_shape("f32[8,128]{1,0:T(8,128)S(1)}")
    assert shape.layout.minor_to_major == (1, 0)
    assert shape.layout.tiles == ((8, 128),) and shape.layout.tile_strings == ("(8,128)",)
    assert shape.layout.memory_space == 1
    assert shape.dynamic == (False, False)
    assert parse_shape("f32[<=8]").dynamic == (True,)


def test_string_escapes_decode_like_c_and_unknown_ones_stay() -> None:
    """A byte flip can turn any letter after a backslash into an escape that
    Python's unicode_escape warns about (an error under -W error)."""
    from xlaview.hlo.attributes import unquote

    assert unquote(r'"a\nb\t\"c\"\\"') == 'a\nb\t"c"\\'
    assert unquote(r'"\303\251 \x41"') == "\u00c3\u00a9 A"  # bytes as XLA's CEscape writes them
    assert unquote(r'"\m \x \q"') == r"\m \x \q"
    assert unquote('"plain"') == "plain" and unquote("unquoted") == "unquoted"


# -- hostile text: long lines, deep nesting, marks (issues 15 and 16) ---------


def test_a_header_line_is_scanned_once_and_a_long_one_each_time(monkeypatch) -> None:
    """Every pass prints the same header: its attributes' scan is kept by the
    line, but not a line longer than the bound (a text on one line), which is
    scanned each time and gives the same module."""
    from xlaview.hlo.parse import driver
    from xlaview.resources import sample_dump

    (path,) = sample_dump().glob("*cpu_after_optimizations.txt")
    text = path.read_text()
    header = text[: text.index("\n")]
    driver._HEADER_SCANS.clear()
    first, again = parse_module(text), parse_module(text)
    assert len(driver._HEADER_SCANS) == 1 and again.attribute_text == first.attribute_text
    driver._HEADER_SCANS.clear()
    monkeypatch.setattr(driver, "_MAX_HEADER_LINE", len(header) // 2)
    assert parse_module(text).attribute_text == first.attribute_text
    assert not driver._HEADER_SCANS, "a header line past the bound is not kept"


def test_a_module_written_on_one_line_parses_like_the_original() -> None:
    from xlaview.resources import sample_dump

    (path,) = sample_dump().glob("*cpu_after_optimizations.txt")
    text = path.read_text()
    one_line = text.replace("\n", " ")
    lines, flat = parse_module(text), parse_module(one_line)
    assert [
        (c.name, [(i.name, i.opcode, i.operand_names, str(i.shape)) for i in c])
        for c in flat.computations
    ] == [
        (c.name, [(i.name, i.opcode, i.operand_names, str(i.shape)) for i in c])
        for c in lines.computations
    ]
    for comp in flat.computations:
        for instr in comp.instructions:
            assert instr.span.line == 1 and instr.span.column == instr.span.offset + 1
            assert one_line[instr.span.offset :].startswith(("ROOT", "%")), instr.name
    assert flat.line_owner(1) is not None and flat.last_line(flat.entry.span) == 1


def test_errors_quote_at_most_a_few_hundred_characters() -> None:
    name = "x" * 1_000_000
    text = f"HloModule m\nENTRY e {{ ROOT %{name} = f32[] add(%{name}, %nope) }}"
    with pytest.raises(HloSyntaxError) as info:
        parse_module(text)
    assert len(info.value.message) < 600 and "…" in info.value.message
    assert info.value.line == 2


@pytest.mark.parametrize("depth", [10, 1000])
def test_deeply_nested_tuple_shapes_are_located_errors_or_parse(depth: int) -> None:
    shape = "(" * depth + "f32[]" + ")" * depth
    text = f"HloModule m\n\nENTRY e {{\n  ROOT %p = {shape} parameter(0)\n}}\n"
    try:
        module = parse_module(text)
    except HloSyntaxError as err:
        assert depth > 64 and err.line == 4 and "nested" in err.message
    else:
        assert module.entry.root.shape.is_tuple


@pytest.mark.parametrize(
    ("elements", "error"),
    [
        ("f32[2,3]{1,0}, s32[]", None),
        ("f32[2]{0}, (f32[2]{0}, u8[4]{0}), pred[]", None),
        ("f32[2]{0 , s32[]", "expects '}' at the end of the layout"),
        ("f32[2]{1}, s32[]", "not an order"),
        ("f32[2]{0}, q32[4]", "unknown element type"),
    ],
)
def test_a_tuples_elements_parse_as_shapes_of_their_own(elements: str, error: str | None) -> None:
    """A tuple's array elements are the (cached) parses of their texts: a
    train step's parameter tuple repeats a few dozen shapes 3,000 times. The
    same shapes, and the same located errors, as parsed element by element."""
    text = f"({elements})"
    if error is not None:
        with pytest.raises(ValueError, match=error):
            parse_shape(text)
        return
    tuple_shape = parse_shape(text)
    assert str(tuple_shape) == text
    again = parse_shape(f"({elements}, {elements})")
    assert again.elements == tuple_shape.elements * 2
    flat = [e for e in tuple_shape.elements if not e.is_tuple]
    assert all(e is parse_shape(str(e)) for e in flat), "the element is the cached shape"


@pytest.mark.parametrize("what", ["instructions", "computations"])
def test_deep_nesting_of_instructions_and_computations_is_an_error(what: str) -> None:
    depth = 2000
    if what == "instructions":
        body = "f32[] negate(" * depth + "f32[] parameter(0)" + ")" * depth
        text = f"HloModule m\nENTRY e {{\n  ROOT r = {body}\n}}\n"
    else:
        inner = "ROOT a = f32[] parameter(0)"
        for _ in range(depth):
            inner = f"ROOT c = f32[] call(), to_apply={{ {inner} }}"
        text = f"HloModule m\nENTRY e {{\n  {inner}\n}}\n"
    with pytest.raises(HloSyntaxError) as info:
        parse_module(text)
    assert info.value.line == 3 and "nested" in info.value.message
    assert parse_module_tolerant(text).diagnostics


def test_a_byte_order_mark_before_the_header_is_accepted() -> None:
    module = parse_module("\ufeff" + GOOD)
    assert module.name == "m" and module.has_header
    out = module.computation("main").instruction("out")
    assert out.span.line == 14 and ("\ufeff" + GOOD)[out.span.offset :].startswith("ROOT %out")


def test_a_constant_with_a_closing_brace_first_is_rejected_like_xla() -> None:
    """XLA's parser_tests/226.hlo: XLA says "unexpected '}'"."""
    text = GOOD.replace(
        "%c = f32[] constant(0)", "%c = f32[2,3]{1,0} constant(}{1, 2, 3}, {4, 5, 6}})"
    )
    with pytest.raises(HloSyntaxError) as info:
        parse_module(text)
    assert info.value.line == 11 and "'}'" in info.value.message


def test_an_inline_computation_on_one_line_is_a_computation() -> None:
    text = """\
HloModule m

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %c = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %c), dimensions={0}, to_apply={ %a = f32[] parameter(0) }
}
"""
    module = parse_module(text)
    assert len(module.computations) == 2, "the inline body became a computation"
    assert module.entry.instruction("r").called_computations == (module.computations[0].name,)


class ReadHere:
    """A deferral that leaves every body unread and finds nobody vouching."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, str]] = []

    def defers(self, offset: int) -> bool:
        return True

    def settle(self, deferred: list[tuple[int, str]]) -> list[tuple[str, ...]] | None:
        self.asked = deferred
        return None  # read them here


def test_deferred_bodies_are_read_on_demand_into_the_same_module() -> None:
    """Bodies left unread for another process are read when asked for; the
    ENTRY is never deferred, and nobody vouching means the parse reads them."""
    from xlaview.resources import sample_dump

    text = next(sample_dump().glob("*cpu_after_optimizations.txt")).read_text()
    plain = parse_module(text)
    deferral = ReadHere()
    module = parse_module_tolerant(text, deferral=deferral).module
    assert [name for _, name in deferral.asked] == [
        c.name for c in plain.computations if not c.is_entry
    ]
    assert all(c.parsed is not None and not c.parsed.deferred_body for c in module.computations), (
        "read here, the helper being silent"
    )
    assert [(c.name, c.span, c.instructions) for c in module.computations] == [
        (c.name, c.span, c.instructions) for c in plain.computations
    ]


def test_a_deferred_body_says_what_it_may_hold_without_reading() -> None:
    from xlaview.hlo.parse.printed import ComputationEnds, defer_computation

    text = (
        "%f (p: f32[2]) -> f32[2] {\n"
        "  %p = f32[2] parameter(0)\n"
        "  ROOT %e = f32[2] exponential(%p)\n"
        "}\n"
    )
    close, end = ComputationEnds(text).end(0)
    parsed = defer_computation(text, 0, close, end, 1)
    assert parsed is not None and parsed.deferred_body and len(parsed) == 2
    assert parsed.may_hold(frozenset({"exponential"}))
    assert not parsed.may_hold(frozenset({"fusion", "dot"}))
    assert parsed.deferred_body
    assert parsed.opcodes() == ["parameter", "exponential"] and not parsed.deferred_body
    assert parsed.calls == ()


@pytest.mark.parametrize(
    ("layout", "named"), [("{1,0:S(1)}", True), ("{1,0:T(8,128)S(1)}", True), ("{1,0}", False)]
)
def test_a_module_knows_whether_its_layouts_name_memory_spaces(layout: str, named: bool) -> None:
    text = (
        f"HloModule m\n\nENTRY %e (p: f32[8,128]) -> f32[8,128] {{\n"
        f'  %p = f32[8,128]{layout} parameter(0), metadata={{op_name="S(x) S("}}\n'
        f"  ROOT %n = f32[8,128]{layout} negate(%p)\n}}\n"
    )
    assert parse_module(text).names_memory_spaces is named


@pytest.mark.parametrize(
    ("layout", "tiled"),
    [
        ("{1,0:T(8,128)}", True),
        ("{1,0:S(1)T(8,128)}", True),
        ("{1,0:S(1)}", False),
        ("{1,0}", False),
    ],
)
@pytest.mark.parametrize("span", [1 << 20, 3])
def test_a_module_knows_whether_its_layouts_are_tiled(
    layout: str, tiled: bool, span: int, monkeypatch
) -> None:
    # A "T(" that is no tile (an op's name, a ROOT line); spans of three
    # characters: the text is searched across every seam.
    monkeypatch.setattr(turns, "SPAN", span)
    text = (
        f"HloModule m\n\nENTRY %e (p: f32[8,128]) -> f32[8,128] {{\n"
        f'  %p = f32[8,128]{layout} parameter(0), metadata={{op_name="T(x) ROOT(T("}}\n'
        f"  ROOT %n = f32[8,128]{layout} negate(%p)\n}}\n"
    )
    assert parse_module(text).names_tiles is tiled


def test_a_long_text_is_searched_for_tiles_and_spaces_with_turns_between(monkeypatch) -> None:
    # (In one call each, a 45 MB pass kept the window's GUI thread out 75 ms.)
    ops = "".join(f"  %n{k} = f32[8]{{0}} negate(%p)\n" for k in range(100))
    head = "HloModule m\n\nENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0)\n"
    text = f"{head}{ops}  ROOT %r = f32[8]{{0}} negate(%p)\n}}\n"
    module = parse_module(text)
    turned = []
    monkeypatch.setattr(turns, "SPAN", 64)
    monkeypatch.setattr(turns, "turn", lambda: turned.append(1))
    assert not module.names_tiles and not module.names_memory_spaces
    assert len(turned) > 2 * len(text) // 64 - 4, (len(turned), len(text))


def test_a_pattern_read_a_slice_of_lines_at_a_time_finds_what_one_read_does() -> None:
    """`findall_by_lines` (a big computation read in slices, the GIL handed
    over between them) finds the matches one `findall` of the range does."""
    import re

    from xlaview.hlo.scan import SLICE, findall_by_lines

    lines = [f"  %x.{i} = f32[{i % 7 + 1}]{{0}} add(%a.{i}, %b.{i})" for i in range(20_000)]
    text = "HloModule m\n" + "\n".join(lines) + "\n}\n"
    start, end = text.index("\n") + 1, text.rindex("\n}")
    assert end - start > 4 * SLICE
    pattern = re.compile(r"^  %([\w.]+) = (\S+) add\(([^)]*)\)$", re.MULTILINE)
    found = findall_by_lines(pattern, text, start, end)
    assert found == pattern.findall(text, start, end)
    assert len(found) == 20_000


@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                ["calls", "to_apply", "body", "condition", "branch_computations", "kind"]
            ),
            st.text(alphabet="ab%_.-1{}, =x", max_size=10),
        ),
        max_size=4,
    )
)
def test_the_calls_of_an_attribute_list_are_the_names_its_values_hold(items) -> None:
    """`named_calls` reads a value taken as one name (``calls=%f``) without a
    second search: the names are those every value's search finds."""
    from xlaview.hlo.attributes import computation_names
    from xlaview.hlo.parse.printed import _CALL_ATTRIBUTE, named_calls

    text = "".join(f", {key}={value}" for key, value in items)
    searched = [n for v in _CALL_ATTRIBUTE.findall(text) for n in computation_names(v)]
    assert named_calls(text) == searched
    assert named_calls(", calls=%f, to_apply=g, branch_computations={%a, %b}") == [
        "f",
        "g",
        "a",
        "b",
    ]


def test_names_asked_again_are_answered_without_indexing_every_name(monkeypatch) -> None:
    """`Module.find` searches the text for the first few names asked and
    indexes all names only when a program keeps asking for others: a name
    asked again (an instruction's description asks for its op four times)
    and a name no line holds count once each, and the answers are the same."""
    from xlaview.hlo import model

    module = parse_module(GOOD)
    expected: dict[str, tuple[str, object]] = {}
    for comp in module.computations:
        for instr in comp.instructions:
            expected.setdefault(instr.name, (comp.name, instr))  # the first definition wins
    assert len(expected) > model._TEXT_SEARCHES
    built: list[int] = []
    real = model.Module._index_names

    def counted(self):
        built.append(1)
        return real(self)

    monkeypatch.setattr(model.Module, "_index_names", counted)

    def found(name: str) -> tuple[str, object]:
        comp, instr = module.find(name)
        return comp.name, instr

    for _ in range(6):
        for name in list(expected)[: model._TEXT_SEARCHES - 1]:
            assert found(name) == expected[name]
        with pytest.raises(KeyError):
            module.find("no_such_op")
    assert built == []
    for name in expected:  # asking for more names than that builds the index once
        assert found(name) == expected[name]
    with pytest.raises(KeyError):
        module.find("no_such_op")
    assert built == [1]
