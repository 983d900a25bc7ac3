"""Where the views go when the user moves: which instruction a name means in
a pass, which computations the graph shows, what a selection opens beside it.

Pure decisions, kept out of the window so they are tested without Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xlaview.analysis.marks import DiffMarks
from xlaview.dump.main_module import default_module
from xlaview.dump.records import DumpIndex, DumpModule
from xlaview.errors import XlaviewError
from xlaview.hlo import Computation, Instruction, Module
from xlaview.hlo.lines import find_at_line_start
from xlaview.text.lines import LineStarts
from xlaview.text.mlir_locations import MlirOrigin


def opened_at(
    index: DumpIndex, path: Path, module: str | None, pass_: str | None
) -> tuple[DumpModule, str | None, XlaviewError | None]:
    """The module and pass to show when ``path`` is opened (a folder of
    ``index`` with some module: ``module`` at ``pass_``, else its main one;
    one HLO file: the module and pass it is), and why ``module`` is not
    shown (None: it is, or none was asked)."""
    if path.is_file() and (target := index.module_of(path)) is not None:
        found = next((p for p in target.points() if p.file.path == path.absolute()), None)
        return target, found.key if found else None, None
    if module is not None:
        try:
            return index.module(module), pass_, None
        except XlaviewError as err:
            return default_module(index), None, err
    return default_module(index), None, None


def locate(
    module: Module, name: str, computation: str | None = None
) -> tuple[Computation, Instruction] | None:
    """The instruction ``name`` (in ``computation`` when it is there), or None
    when this module has no such instruction (a pass removed it)."""
    if computation and module.has_computation(computation):
        comp = module.computation(computation)
        if name in comp:
            return comp, comp.instruction(name)
    try:
        return module.find(name)
    except KeyError:
        return None


def entry_path(module: Module) -> list[str]:
    return [module.entry.name] if module.entry else []


def carry_graph_path(path: list[str], module: Module) -> list[str]:
    """The computations to keep showing after a pass step: the same ones, as
    far as the new module still has them, from its entry."""
    kept = [c for c in path if module.has_computation(c)]
    entry = entry_path(module)
    if not kept or (entry and kept[0] != entry[0]):
        return entry
    return kept


def path_to(computation: str, path: list[str], module: Module) -> list[str]:
    """The graph path that shows ``computation``: back along ``path`` if it is
    on it, else the entry and then it."""
    if computation in path:
        return path[: path.index(computation) + 1]
    entry = entry_path(module)
    if entry and computation == entry[0]:
        return entry
    return [*entry, computation]


def fused_computation(module: Module, instr: Instruction) -> str | None:
    """The body shown beside the graph for a fusion, if the module has it."""
    if instr.opcode != "fusion" or not instr.called_computations:
        return None
    body = instr.called_computations[0]
    return body if module.has_computation(body) else None


def follow_reindex(
    module: DumpModule | None, pass_key: str | None, index: DumpIndex
) -> tuple[DumpModule | None, str | None, bool]:
    """Where a re-index of the open folder (it is being written) leaves the
    user: (their module in the new index or None, the pass to show: theirs if
    it is still there, else the module's last; whether its file changed and
    must be read again)."""
    if module is None:
        return None, None, False
    match = next((m for m in index.modules if m.identity == module.identity), None)
    if match is None:
        return None, None, False
    keys = [p.key for p in match.points()]
    keep = pass_key if pass_key in keys else (keys[-1] if keys else None)
    if keep is None:
        return match, None, False
    old = module.file_at(pass_key) if pass_key is not None else None
    new = match.file_at(keep)
    reread = keep != pass_key or old is None or (new.size, new.mtime_ns) != (old.size, old.mtime_ns)
    return match, keep, reread


def carried_line(before: Module, line: int, after: Module) -> int | None:
    """Where the text of ``after`` (the pass stepped to) shows what 1-based
    ``line`` of ``before`` showed: the same instruction, else its computation's
    header, else None (neither is in ``after``: the view keeps its line).
    A blank or closing line counts as the instruction above it."""
    owner = _owner_near(before, line)
    if owner is None:
        return None
    computation, name = owner
    if name is not None:
        found = locate(after, name, computation)
        if found is not None:
            return found[1].span.line
    if after.has_computation(computation):
        return after.computation(computation).span.line
    return None


def _owner_near(module: Module, line: int) -> tuple[str, str | None] | None:
    for candidate in range(line, max(0, line - 8), -1):
        owner = module.line_owner(candidate)
        if owner is not None:
            return owner
    return None


def carried_text_line(before: Module, line: int, starts: LineStarts) -> int | None:
    """`carried_line` into a pass's text not parsed yet (shown while its
    parse runs; ``starts``: where each of its lines starts): the definition
    of the same instruction in the computation of the same name, as XLA
    prints them, else that computation's header, else None."""
    owner = _owner_near(before, line)
    if owner is None:
        return None
    computation, name = owner
    text = starts.text
    header = _header_near(text, computation, before)
    if header < 0:
        return None
    found = header
    if name is not None:
        close = text.find("\n}", header)
        end = len(text) if close < 0 else close
        definition = find_at_line_start(text, f"%{name} = ", header, end, ("  ROOT ", "  "))
        found = definition if definition >= 0 else header
    return starts.line_of(found) + 1


# Characters either side of where a computation's header is looked for first.
NEAR = 1 << 20


def _header_near(text: str, computation: str, before: Module) -> int:
    """Where the header line of ``computation`` starts in ``text``: looked for
    first within `NEAR` of where it stands in ``before`` (as a share of the
    text; a pass seldom moves a computation far), then in the whole text. Run
    on the GUI thread at every step: the search of a 45 MB pass for its entry,
    printed last, took 20-25 ms. A computation's header is the one line that
    starts with its name, so the first found near is the one."""
    needle = f"%{computation} "
    shown = before.computation(computation).span.offset
    guess = shown * len(text) // max(1, len(before.text))
    start, end = max(0, guess - NEAR), min(len(text), guess + NEAR)
    found = find_at_line_start(text, needle, start, end, ("ENTRY ",))
    if found < 0:
        found = find_at_line_start(text, needle, leads=("ENTRY ",))
    return found


def first_change_line(marks: DiffMarks) -> int | None:
    """The first 1-based line a pass added or changed (None: it changed no line)."""
    starts = [first for first, _ in (*marks.added_lines, *marks.changed_lines)]
    return min(starts) if starts else None


# -- StableHLO and HLO, through the origins both keep -----------------------------

# (op_name, file's base name, line, column) of an op, each None when unsaid.
Origin = tuple[str | None, str | None, int | None, int | None]


def hlo_origins(module: Module, instr: Instruction) -> set[Origin]:
    """Where ``instr`` came from, and the instructions of the computations it
    calls (a fusion keeps the metadata of what it absorbed in its body)."""
    found: set[Origin] = set()
    todo, seen = [instr], set()
    while todo:
        current = todo.pop()
        op_name = current.op_name
        frames = module.source_frames(current)
        if frames:
            top = frames[0]
            found.add((op_name, _base(top.file), top.line or None, top.column or None))
        elif op_name:
            found.add((op_name, None, None, None))
        for called in current.called_computations:
            if called not in seen and module.has_computation(called):
                seen.add(called)
                todo.extend(module.computation(called).instructions)
    return found


def stablehlo_lines(origins: Sequence[MlirOrigin], module: Module, instr: Instruction) -> list[int]:
    """The lines of the StableHLO module (its `mlir_origins`) that ``instr`` came from."""
    wanted = hlo_origins(module, instr)
    if not wanted:
        return []
    return [o.line for o in origins if any(_same(_mlir_origin(o), w) for w in wanted)]


def hlo_ops_from(origin: MlirOrigin, module: Module) -> list[str]:
    """The instructions of ``module`` that came from the StableHLO op at
    ``origin``, outside fused bodies (what runs): the entry's first, the ones
    whose own metadata says so before those whose body does."""
    key = _mlir_origin(origin)
    fused = {
        called
        for comp in module.computations
        for instr in comp.instructions
        if instr.opcode == "fusion"
        for called in instr.called_computations
    }
    own: list[str] = []
    inside: list[str] = []
    entry = module.entry
    comps = [entry, *(c for c in module.computations if c is not entry)] if entry else []
    for comp in comps:
        if comp.name in fused:
            continue
        for instr in comp.instructions:
            frames = module.source_frames(instr)
            top = frames[0] if frames else None
            mine: Origin = (
                instr.op_name,
                _base(top.file) if top else None,
                (top.line or None) if top else None,
                (top.column or None) if top else None,
            )
            if instr.op_name and _same(key, mine):
                own.append(instr.name)
            elif instr.called_computations and any(
                _same(key, o) for o in hlo_origins(module, instr)
            ):
                inside.append(instr.name)
    return own + inside


def _mlir_origin(origin: MlirOrigin) -> Origin:
    return (origin.op_name, _base(origin.file), origin.source_line, origin.column)


def _same(a: Origin, b: Origin) -> bool:
    """One origin: the same op_name, and the same place where both say one."""
    if a[0] != b[0] or a[0] is None:
        return False
    return all(x is None or y is None or x == y for x, y in zip(a[1:], b[1:], strict=True))


def _base(path: str | None) -> str | None:
    return path.replace("\\", "/").rsplit("/", 1)[-1] if path else None
