"""Where the views go when the user moves: which instruction a name means in
a pass, which computations the graph shows, what a selection opens beside it.

Pure decisions, kept out of the window so they are tested without Qt.
"""

from __future__ import annotations

from xlaview.analysis.marks import DiffMarks
from xlaview.dump.records import DumpIndex, DumpModule
from xlaview.hlo import Computation, Instruction, Module


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
    owner = None
    for candidate in range(line, max(0, line - 8), -1):
        owner = before.line_owner(candidate)
        if owner is not None:
            break
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


def first_change_line(marks: DiffMarks) -> int | None:
    """The first 1-based line a pass added or changed (None: it changed no line)."""
    starts = [first for first, _ in (*marks.added_lines, *marks.changed_lines)]
    return min(starts) if starts else None
