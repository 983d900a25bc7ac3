"""Which module a user means when they name none: the program's own, not the
tiny helper jits frameworks compile on the way (``jnp.ones`` compiles
``jit_broadcast_in_dim`` before the program's first jit runs).
"""

from __future__ import annotations

import re

from xlaview.dump.contents import estimate_instructions
from xlaview.dump.records import DumpIndex, DumpModule, ModuleLookupError

__all__ = ["default_module"]

# JAX's own jitted helpers are private functions (jit__multi_slice from
# device_put, jit__threefry_split, jit__normal from jax.random); a lambda is
# jit__lambda, and the user's.
_JAX_HELPER = re.compile(r"jit__(?!lambda)")


def default_module(index: DumpIndex) -> DumpModule:
    """The main module of the last compiled program: among the modules of the
    newest dump of the folder, the program (modules of one name) with the most
    instructions, JAX's private helpers (``jit__multi_slice``...) last; and of
    its modules the compiled one (after optimizations, most passes, the latest).

    Instructions are counted cheaply, as the indented lines of each module's
    last HLO text, never parsed. Raises `ModuleLookupError` for a folder
    without modules.
    """
    if not index.modules:
        raise ModuleLookupError(f"{index.root}: no XLA module files here")
    candidates = _newest_dump(index.modules)
    if len(candidates) == 1:
        return candidates[0]
    size = {m.ref: _instructions(m) for m in candidates}
    programs: dict[str, list[DumpModule]] = {}
    for m in candidates:
        programs.setdefault(m.name or m.ref, []).append(m)
    program = max(
        programs.values(),
        key=lambda ms: (
            not _JAX_HELPER.match(ms[0].name or ""),
            max(size[m.ref] for m in ms),
            max(m.id for m in ms),
        ),
    )
    return max(
        program, key=lambda m: (m.after_optimizations is not None, len(m.passes), size[m.ref], m.id)
    )


def _newest_dump(modules: list[DumpModule]) -> list[DumpModule]:
    """The modules of the dump written last, when the folder holds several
    (runs or hosts side by side); all of them otherwise."""
    by_dump: dict[str, list[DumpModule]] = {}
    for m in modules:
        by_dump.setdefault(m.dump, []).append(m)
    if len(by_dump) == 1:
        return modules

    def written(dump: str) -> tuple[int, str]:
        times = [f.mtime_ns for m in by_dump[dump] for _, f in m.timeline()]
        return max(times, default=0), dump

    return by_dump[max(by_dump, key=written)]


def _instructions(module: DumpModule) -> int:
    points = module.timeline()
    final = module.after_optimizations or (points[-1][1] if points else None)
    return estimate_instructions(final) if final is not None else 0
