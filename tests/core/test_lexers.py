"""The HLO and MLIR pygments lexers: real dumps lex cleanly, and tokens get the right types.

"Cleanly" means what the GUI relies on: no Error token on text XLA wrote, and the
tokens tile the text exactly (each starts where the previous one ended), since the
highlighter applies formats by offset.
"""

from __future__ import annotations

import csv
import importlib.metadata
import time
from pathlib import Path

import pytest
from pygments.lexer import Lexer
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String, _TokenType

from xlaview.text import HloLexer, MlirLexer

REPORT_SUFFIXES = ("-buffer-assignment", "-live-range", "-memory-usage-report")
PROGRAMS = ["attention", "mlp_grad", "scan", "cond", "conv", "spmd"]

LexedToken = tuple[int, _TokenType, str]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="surrogateescape")


def lex(lexer: Lexer, text: str) -> list[LexedToken]:
    return list(lexer.get_tokens_unprocessed(text))


def problems(lexer: Lexer, text: str) -> list[str]:
    """What is wrong with the tokens of ``text``: gaps, overlaps, Error tokens."""
    found = []
    offset = 0
    for start, token, value in lex(lexer, text):
        if start != offset:
            found.append(f"token {value[:20]!r} at {start}, expected at {offset}")
            break
        if token in Error:
            line = text.count("\n", 0, start) + 1
            found.append(
                f"Error token {value[:20]!r} on line {line}: {text[start - 40 : start + 20]!r}"
            )
        offset += len(value)
    if offset != len(text):
        found.append(f"tokens cover {offset} of {len(text)} characters")
    return found


def check_files(lexer: Lexer, paths: list[Path]) -> None:
    failures = {
        f"{path.parent.name}/{path.name}": found[:3]
        for path in paths
        if (found := problems(lexer, read(path)))
    }
    assert not failures, "\n".join(f"{name}: {p}" for name, ps in failures.items() for p in ps)


def types_of(lexer: Lexer, text: str) -> dict[str, set[_TokenType]]:
    """Token types by token text."""
    types: dict[str, set[_TokenType]] = {}
    for _, token, value in lex(lexer, text):
        types.setdefault(value, set()).add(token)
    return types


# ---------------------------------------------------------------------------------------------
# HLO: real dumps and the peer corpus


def hlo_texts_of(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.txt") if not any(s in p.name for s in REPORT_SUFFIXES))


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS)
def test_every_pass_file_lexes_cleanly(zoo: dict[str, Path], program: str) -> None:
    paths = hlo_texts_of(zoo[program])
    assert len(paths) > 10, f"{program}: expected a dump of every pass, got {len(paths)} files"
    check_files(HloLexer(), paths)


def corpus_texts(corpus: Path, source: str) -> list[Path]:
    if source == "parser_tests":
        with open(corpus / "parser_tests" / "INDEX.tsv", encoding="utf-8") as f:
            rows = csv.DictReader(f, delimiter="\t")
            return [corpus / "parser_tests" / r["file"] for r in rows if r["expect"] == "PASS"]
    with open(corpus / "MANIFEST.tsv", encoding="utf-8") as f:
        rows = csv.DictReader(f, delimiter="\t")
        return [
            corpus / r["local_path"]
            for r in rows
            if r["kind"] == "hlo-module" and r["local_path"].startswith(f"{source}/")
        ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "source,at_least", [("parser_tests", 300), ("real_dumps", 150), ("xla_hlo_files", 120)]
)
@pytest.mark.slow
def test_peer_corpus_lexes_cleanly(corpus: Path, source: str, at_least: int) -> None:
    """XLA's own parser tests (the texts it accepts), its repo's .hlo files, real dumps."""
    paths = corpus_texts(corpus, source)
    assert len(paths) >= at_least, f"{source}: only {len(paths)} texts; is the corpus complete?"
    check_files(HloLexer(), paths)


# ---------------------------------------------------------------------------------------------
# HLO: token types on known text

KNOWN = """\
HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[16,32]{1,0})->f32[16,32]{1,0}}

%fused_computation (param_0: f32[16,32]) -> f32[16,32] {
  %param_0 = f32[16,32]{1,0} parameter(0)
  ROOT %exponential.1 = f32[16,32]{1,0} exponential(%param_0), \
metadata={op_name="jit(f)/exp" stack_frame_id=1}
}

ENTRY %main.3 (x: f32[16,32]) -> (f32[16,32], bf16[]) {
  %x = f32[16,32]{1,0:T(8,128)(2,1)S(1)} parameter(0), sharding={devices=[2,1]<=[2]}
  %fusion = f32[16,32]{1,0} fusion(%x), kind=kLoop, calls=%fused_computation, \
/*index=5*/control-predecessors={%x}
  %gte = bf16[] get-tuple-element(%t), index=1, backend_config={"outer_dimension_partitions":["2"]}
  %ars = pred[<=8] all-reduce-start(%x), replica_groups={{0,1}}, to_apply=%add, dimensions={0}
  %c = f32[] compare(%a, %b), direction=LT // why not
  ROOT %out = (f32[16,32]{1,0}, bf16[]) tuple(%fusion, %gte)
}
"""

EXPECTED = [
    # (token text, type, why it matters)
    ("HloModule", Keyword, "module keyword"),
    ("jit_f", Name.Namespace, "module name"),
    ("ENTRY", Keyword, "entry keyword"),
    ("ROOT", Keyword, "root keyword"),
    ("%fused_computation", Name.Function, "computation in its header and in calls="),
    ("%main.3", Name.Function, "entry computation header"),
    ("%add", Name.Function, "to_apply= names a computation"),
    ("%param_0", Name.Variable, "instruction name"),
    ("%fusion", Name.Variable, "instruction name, also as an operand"),
    ("param_0", Name.Variable, "parameter in a signature"),
    ("fusion", Name.Builtin, "opcode"),
    ("get-tuple-element", Name.Builtin, "opcode with dashes"),
    ("all-reduce-start", Name.Builtin, "async opcode"),
    ("tuple", Name.Builtin, "opcode after a tuple shape"),
    ("f32[16,32]{1,0}", Keyword.Type, "shape with layout, one token"),
    ("f32[16,32]", Keyword.Type, "shape without layout"),
    ("f32[16,32]{1,0:T(8,128)(2,1)S(1)}", Keyword.Type, "tiled layout in memory space 1"),
    ("bf16[]", Keyword.Type, "scalar shape"),
    ("pred[<=8]", Keyword.Type, "bounded dynamic shape"),
    ("kLoop", Name.Constant, "fusion kind"),
    ("LT", Name.Constant, "comparison direction"),
    ("metadata", Name.Attribute, "attribute"),
    ("op_name", Name.Attribute, "attribute inside metadata"),
    ("control-predecessors", Name.Attribute, "attribute with dashes"),
    ("backend_config", Name.Attribute, "attribute"),
    ('"jit(f)/exp"', String, "string"),
    ('"outer_dimension_partitions"', String, "JSON key"),
    ("stack_frame_id", Name.Attribute, "attribute inside metadata"),
    ("1", Number, "number"),
    ("/*index=5*/", Comment.Multiline, "tuple index comment"),
    ("// why not", Comment.Single, "line comment"),
    ("->", Operator, "signature arrow"),
    ("<=", Operator, "iota tile assignment"),
]


@pytest.mark.parametrize(
    "text,token", [(t, k) for t, k, _ in EXPECTED], ids=[f"{t} ({why})" for t, _, why in EXPECTED]
)
def test_known_tokens(text: str, token: _TokenType) -> None:
    types = types_of(HloLexer(), KNOWN)
    assert types.get(text) == {token}, f"{text!r} lexed as {types.get(text)}, expected {token}"


def test_known_text_is_clean() -> None:
    assert not problems(HloLexer(), KNOWN)


OLD_FORMATS = [
    # (what, text, tokens that must have a given type)
    (
        "operands printed with their shapes",
        (
            "ENTRY %e (a: f32[], b: f32[]) -> f32[] {\n"
            "  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
            "  ROOT %add = f32[] add(f32[] %a, f32[] %b)\n}\n"
        ),
        [("add", Name.Builtin), ("f32[]", Keyword.Type), ("%a", Name.Variable)],
    ),
    (
        "ShortParsable names without %",
        (
            "ENTRY main.4 {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
            "  ROOT s = f32[] add(x, y)\n}\n"
        ),
        [("main.4", Name.Function), ("s", Name.Variable), ("add", Name.Builtin)],
    ),
    (
        "quoted backend_config",
        '  %cc = f32[] custom-call(), custom_call_target="foo", backend_config="{\\"a\\":1}"\n',
        [('"{\\"a\\":1}"', String), ("custom-call", Name.Builtin)],
    ),
    (
        "multi-line literal",
        "  %c = f32[2,3]{1,0} constant({\n    { 1, 2, 3 },\n    { 4, 5, -inf }\n  })\n",
        [("constant", Name.Builtin), ("-inf", Number), ("3", Number)],
    ),
    (
        "literal with its shape",
        "  %c = f32[2,2]{1,0} constant(f32[2,2] { { 1, 2 }, { 3, 4 } })\n",
        [("f32[2,2]", Keyword.Type), ("4", Number)],
    ),
    (
        "tuple literal and NaN payload",
        "  %t = (f32[], f32[]) constant((1.5e-05, -nan(0x7fffff)))\n",
        [("1.5e-05", Number), ("-nan", Number), ("0x7fffff", Number), ("constant", Name.Builtin)],
    ),
    (
        "single instruction, no module",
        "f32[2,4]{1,0} multiply(f32[2,4]{1,0} %x, f32[2,4]{1,0} %y)\n",
        [("multiply", Name.Builtin), ("%y", Name.Variable)],
    ),
    (
        "multi-line comment and string",
        'HloModule m, origin_recovery_table={\n  "\n    HloModule inner\n  "\n}\n/* a\n   b */\n',
        [("m", Name.Namespace), ("*/", Comment.Multiline)],
    ),
    (
        "conditional, window and convolution attributes",
        (
            "  %k = f32[] conditional(%p, %a), branch_computations={%b0, b1}\n"
            "  %v = f32[1,8,8,4]{3,2,1,0} convolution(%i, %w), window={size=3x3 pad=1_1x0_-1},"
            " dim_labels=b01f_01io->b01f\n"
        ),
        [("%b0", Name.Function), ("b1", Name.Function), ("1_1x0_-1", Number), ("->", Operator)],
    ),
    (
        "mesh axis names",
        "  %r = f32[8]{0} all-reduce(%x), replica_groups=mesh['x'=2,'y'=4] {'x'}, to_apply=%add\n",
        [("'x'", String), ("all-reduce", Name.Builtin)],
    ),
]


@pytest.mark.parametrize(
    "text,expected", [(t, e) for _, t, e in OLD_FORMATS], ids=[w for w, _, _ in OLD_FORMATS]
)
def test_old_and_rare_formats(text: str, expected: list[tuple[str, _TokenType]]) -> None:
    assert not problems(HloLexer(), text)
    types = types_of(HloLexer(), text)
    for value, token in expected:
        assert token in types.get(value, set()), f"{value!r} lexed as {types.get(value)}"


NOT_HLO = [
    ("python", "def f(x):\n    return {'a': x ** 2}  # é\n"),
    ("llvm ir", "define void @f(ptr %0) {\n  %2 = load i32, ptr %0, align 4\n  ret void\n}\n"),
    ("json", '{"a": [1, 2.5e3, null], "b": "\\u00e9"}\n'),
    ("binary", "\x00\x01\xff\ufffd\t\r\n\x7f`~"),
    ("unclosed", '%x = f32[ "abc\\" /* never closed'),
]


@pytest.mark.parametrize("text", [t for _, t in NOT_HLO], ids=[w for w, _ in NOT_HLO])
def test_text_that_is_not_hlo_still_tiles(text: str) -> None:
    """Error tokens are fine here; losing, repeating or misplacing characters is not."""
    offset = 0
    for start, _, value in lex(HloLexer(), text):
        assert start == offset, f"token {value!r} at {start}, expected at {offset}"
        offset += len(value)
    assert offset == len(text)


ADVERSARIAL = [
    ("unclosed shapes", "f32[" * 25_000),
    ("escaped quotes", '"\\' * 50_000),
    ("comment openers", "/*" * 50_000),
    ("quotes", "'" * 50_000 + '"' * 50_000),
    ("dashed name", "a-" * 50_000),
    ("layout openers", "f32[1]{" * 15_000),
]


@pytest.mark.parametrize("text", [t for _, t in ADVERSARIAL], ids=[w for w, _ in ADVERSARIAL])
def test_lexing_time_is_linear_on_adversarial_lines(text: str) -> None:
    """A regex that rescans to the end of the line per character would take minutes
    here; against a plain line of the same length, timed in the same run (the
    machine may be busy), it takes a small multiple."""
    start = time.perf_counter()
    tokens = lex(HloLexer(), text)
    elapsed = time.perf_counter() - start
    start = time.perf_counter()
    lex(HloLexer(), "%a = f32[] add(%b, %c) " * (len(text) // 24))
    reference = time.perf_counter() - start
    assert "".join(v for _, _, v in tokens) == text
    assert elapsed < 20 * reference + 1, (
        f"{elapsed:.1f}s for {len(text)} characters, {reference:.2f}s for a plain line: "
        "a quadratic regex?"
    )


# ---------------------------------------------------------------------------------------------
# MLIR


@pytest.fixture(scope="session")
def mlir_modules(zoo: dict[str, Path]) -> list[Path]:
    """The StableHLO modules JAX dumps beside the HLO (``module_*/module.mlir``,
    Shardy's stages)."""
    paths = sorted(p for folder in zoo.values() for p in folder.glob("**/*.mlir"))
    if not paths:
        pytest.skip("this JAX writes no .mlir files into its XLA dumps")
    return paths


@pytest.mark.slow
def test_jax_mlir_modules_lex_cleanly(mlir_modules: list[Path]) -> None:
    assert any(p.name == "module.mlir" for p in mlir_modules), [p.name for p in mlir_modules]
    check_files(MlirLexer(), mlir_modules)


@pytest.mark.slow
def test_peer_corpus_mlir_lexes_cleanly(corpus: Path) -> None:
    """XLA CPU kernels in the LLVM dialect, from the real dumps."""
    paths = sorted((corpus / "real_dumps").glob("**/*.mlir"))
    assert len(paths) > 50, f"only {len(paths)} .mlir files in the corpus"
    check_files(MlirLexer(), paths)


MLIR = """\
#loc1 = loc("x.py":3:8)
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]>
  func.func public @main(%arg0: tensor<8x64xbf16> \
{sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<64x8xbf16>) \
-> (tensor<8x8xbf16>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], \
precision = [DEFAULT, DEFAULT] : (tensor<8x64xbf16>, tensor<64x8xbf16>) \
-> tensor<8x8xbf16> loc(#loc1)
    %1:2 = "stablehlo.custom_call"(%0) {call_target_name = "foo"} : (tensor<8x8xbf16>) \
-> (tensor<8x8xbf16>, !stablehlo.token)
    %2 = "stablehlo.reduce"(%1#0, %cst) ({
    ^bb0(%a: tensor<complex<f32>>, %b: tensor<i32>):
      stablehlo.return %a : tensor<complex<f32>>
    }) : (tensor<8x8xbf16>, tensor<bf16>) -> tensor<8xbf16> loc("jit(f)/reduce"(#loc1))
    return %0 : tensor<8x8xbf16>  // done
  }
}
"""

MLIR_EXPECTED = [
    ("%arg0", Name.Variable),
    ("%1#0", Name.Variable),
    ("^bb0", Name.Variable),
    ("@main", Name.Function),
    ("@mesh", Name.Function),
    ("stablehlo.dot_general", Name.Builtin),
    ("func.func", Name.Builtin),
    ("sdy.mesh", Name.Builtin),
    ("stablehlo.return", Name.Builtin),
    ('"stablehlo.custom_call"', Name.Builtin),
    ('"jit(f)/reduce"', String),
    ('"x.py"', String),
    ("tensor<", Keyword.Type),
    ("8x64xbf16", Keyword.Type),
    ("!stablehlo.token", Keyword.Type),
    ("i32", Keyword.Type),
    ("#loc1", Name.Decorator),
    ("#sdy.sharding", Name.Decorator),
    ("module", Keyword),
    ("attributes", Keyword),
    ("loc", Keyword),
    ("return", Keyword),
    ("contracting_dims", Name.Attribute),
    ("mhlo.num_partitions", Name.Attribute),
    ("DEFAULT", Name.Constant),
    ("8", Number),
    ("// done", Comment.Single),
    ("->", Operator),
]


@pytest.mark.parametrize("text,token", MLIR_EXPECTED, ids=[t for t, _ in MLIR_EXPECTED])
def test_known_mlir_tokens(text: str, token: _TokenType) -> None:
    types = types_of(MlirLexer(), MLIR)
    assert types.get(text) == {token}, f"{text!r} lexed as {types.get(text)}, expected {token}"


def test_known_mlir_text_is_clean() -> None:
    assert not problems(MlirLexer(), MLIR)


# ---------------------------------------------------------------------------------------------
# Registration as pygments plugins


@pytest.mark.parametrize(
    "alias,filename,lexer", [("hlo", "module.hlo", HloLexer), ("mlir", "module.mlir", MlirLexer)]
)
def test_registered_as_pygments_plugin(alias: str, filename: str, lexer: type[Lexer]) -> None:
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

    names = {e.name for e in importlib.metadata.entry_points(group="pygments.lexers")}
    if alias not in names:
        pytest.skip(
            f"no pygments.lexers entry point {alias!r}: xlaview is not installed in this "
            "environment (pip install -e .)"
        )
    assert type(get_lexer_by_name(alias)) is lexer
    assert type(get_lexer_for_filename(filename)) is lexer
