"""The boundaries of a module with the fusions their evidence lives in, for a
window; for a big module, worked out in a helper process from its file.

A parsed module is too big to send to another process (a 45 MB module is
hundreds of MB of objects) and a parse there costs less than the boundaries
do, so the helper reads the file again; the traffic the window already found
is sent along (it is small), so the reasons explain exactly the rows it shows.
Running there, a 5-second job on a 330k-instruction module neither holds the
window's GIL nor keeps the window's worker from the next pass.
"""

from __future__ import annotations

import copyreg
import os
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path

from xlaview.analysis.boundaries.explain import (
    Boundaries,
    Boundary,
    Evidence,
    OpRef,
    module_boundaries,
)
from xlaview.analysis.traffic import Traffic
from xlaview.dump.files import DumpReadError
from xlaview.dump.modules import load_module
from xlaview.hlo import Module

# Sent back as constructor calls: a frozen slotted dataclass otherwise unpickles
# through a Python-level __setstate__, three times slower (1.6 s for a 45 MB module).
_BOUNDARY_FIELDS = tuple(f.name for f in fields(Boundary))
copyreg.pickle(OpRef, lambda o: (OpRef, (o.computation, o.instruction)))
copyreg.pickle(Evidence, lambda e: (Evidence, (e.reason, e.text, e.ops)))
copyreg.pickle(Boundary, lambda b: (Boundary, tuple(getattr(b, n) for n in _BOUNDARY_FIELDS)))


@dataclass(frozen=True, slots=True)
class FileBoundaries:
    """A module's boundaries, and for each fused computation their evidence
    names, the fusion whose body it is (where a view shows those ops)."""

    boundaries: Boundaries
    callers: dict[str, str]


def fusion_callers(module: Module, boundaries: Boundaries) -> dict[str, str]:
    """Fused computation named by the evidence -> the fusion that calls it."""
    callers: dict[str, str] = {}
    for boundary in boundaries.boundaries:
        for evidence in boundary.evidence:
            for op in evidence.ops:
                if op.computation == boundary.computation or op.computation in callers:
                    continue
                fusion = next(
                    (c.name for c in module.callers(op.computation) if c.opcode == "fusion"), None
                )
                if fusion is not None:
                    callers[op.computation] = fusion
    return callers


def explained(
    module: Module, traffic: Traffic, progress: Callable[[float], None] | None = None
) -> FileBoundaries:
    """The boundaries of ``module`` given its ``traffic``, with their fusions,
    their sums made (`Boundaries.warm`); ``progress`` as for `module_boundaries`."""
    found = _found(module, traffic, progress)
    found.boundaries.warm()
    return found


def _found(
    module: Module, traffic: Traffic, progress: Callable[[float], None] | None = None
) -> FileBoundaries:
    boundaries = module_boundaries(module, traffic, progress=progress)
    return FileBoundaries(boundaries, fusion_callers(module, boundaries))


def shared(result: FileBoundaries) -> FileBoundaries:
    """``result`` with equal evidence and op references made one object each: a
    pickle sends an object once, and a big module's boundaries repeat them
    (180k op references, 7k different, on a 330k-instruction module)."""
    refs: dict[OpRef, OpRef] = {}
    facts: dict[Evidence, Evidence] = {}

    def one(fact: Evidence) -> Evidence:
        found = facts.get(fact)
        if found is None:
            ops = tuple(refs.setdefault(op, op) for op in fact.ops)
            found = facts[fact] = Evidence(fact.reason, fact.text, ops)
        return found

    boundaries = tuple(
        replace(b, evidence=tuple(one(e) for e in b.evidence)) for b in result.boundaries.boundaries
    )
    # The values inside library kernels kept, the sums made again for the new tuple.
    found = replace(result.boundaries, boundaries=boundaries, memo={}).warm()
    return FileBoundaries(found, result.callers)


def file_boundaries(
    path: str | os.PathLike[str],
    stamp: tuple[int, int],
    traffic: Traffic,
    progress: Callable[[float], None] | None = None,
) -> FileBoundaries:
    """The boundaries of the module in ``path`` given its ``traffic``;
    ``stamp`` (size, mtime in ns) is the file the traffic was found in: a file
    rewritten since (a folder being written) raises `DumpReadError`.
    ``progress`` hears once the file is read, then as the values are explained
    (a job no longer wanted stops at a report)."""
    path = Path(path)
    try:
        status = path.stat()
    except OSError as err:
        raise DumpReadError(path, f"cannot read it: {err.strerror or err}") from err
    if (status.st_size, status.st_mtime_ns) != tuple(stamp):
        raise DumpReadError(path, "the file changed since it was shown; step to it again")
    module = load_module(path).module
    if progress is None:
        return shared(_found(module, traffic))  # which makes the sums, once
    report = progress  # (named again for the closure: mypy keeps it not None)
    report(0.1)
    return shared(_found(module, traffic, lambda fraction: report(0.1 + 0.9 * fraction)))
