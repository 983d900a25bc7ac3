"""Where each op of a StableHLO module came from, read from its MLIR locations.

JAX prints a module with its locations: an op ends with ``loc(#loc25)``, and
the aliases at the end say what that is::

    #loc4 = loc("/x/attention.py":5:14 to :20)
    #loc11 = loc("attention"(#loc4))
    #loc18 = loc(callsite(#loc11 at #loc12))
    #loc25 = loc("jit(attention)/dot_general"(#loc18))

The outermost name is the op's ``op_name``, as XLA's metadata keeps it; the
innermost file location of the callee chain is the source line, the frame
XLA's stack traces start with. An op's origin is those two, so an HLO
instruction and the StableHLO it came from can be matched both ways
(`xlaview.analysis.navigation.stablehlo_lines`, `hlo_ops_from`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A location alias: ``#loc12 = loc(...)`` on a line of its own.
_ALIAS = re.compile(r"^(#[\w$.-]+) = loc\((.*)\)\s*$", re.M)
# An op's location: the last ``loc(...)`` of its line (an argument's come before).
_OP_LOC = re.compile(r"loc\(((?:[^()]|\([^()]*\))*)\)\s*$")
_NAMED = re.compile(r'^"((?:[^"\\]|\\.)*)"\((.*)\)$', re.S)
_FILE = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+)(?::(\d+))?')
_FUSED = re.compile(r"^fused(?:<[^>]*>)?\[(.*)\]$", re.S)
# Aliases naming aliases: a chain longer than this is not followed (a text
# made to loop, or to nest without end).
_MAX_HOPS = 64


# What a location says: (op_name, file, line, column), each None when unsaid.
_Where = tuple[str | None, str | None, int | None, int | None]


@dataclass(frozen=True, slots=True)
class MlirOrigin:
    """An op of the module: its 1-based ``line``, its ``op_name`` and the
    source ``file``, ``source_line`` and ``column`` its location names (None:
    unsaid)."""

    line: int
    op_name: str | None
    file: str | None
    source_line: int | None
    column: int | None = None


def mlir_origins(text: str) -> tuple[MlirOrigin, ...]:
    """The origin of every op line of ``text`` that has a location saying one."""
    aliases = {m.group(1): m.group(2).strip() for m in _ALIAS.finditer(text)}
    resolved: dict[str, _Where] = {}
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if " = loc(" in line and line.startswith("#"):
            continue
        at = line.rfind("loc(")
        m = _OP_LOC.match(line, at) if at >= 0 else None  # from the last only: linear
        if m is None:
            continue
        op_name, file, source_line, column = _resolve(m.group(1).strip(), aliases, resolved)
        if op_name is not None or file is not None:
            found.append(MlirOrigin(number, op_name, file, source_line, column))
    return tuple(found)


def _resolve(
    expr: str,
    aliases: dict[str, str],
    resolved: dict[str, _Where],
) -> _Where:
    """(op_name, file, line) of a location expression, following aliases and
    callee chains in a loop (never deeper than `_MAX_HOPS`)."""
    start = expr if expr.startswith("#") else None
    if start is not None and start in resolved:
        return resolved[start]
    op_name: str | None = None
    file: str | None = None
    line: int | None = None
    column: int | None = None
    for _ in range(_MAX_HOPS):
        if expr.startswith("#"):
            known = resolved.get(expr)
            if known is not None:
                op_name = op_name or known[0]
                file, line, column = known[1:]
                break
            if expr not in aliases:
                break
            expr = aliases[expr]
            continue
        named = _NAMED.match(expr)
        if named is not None:
            op_name = op_name or named.group(1)
            expr = named.group(2).strip()
            continue
        if expr.startswith("callsite(") and expr.endswith(")"):
            expr = _callee(expr[len("callsite(") : -1]).strip()
            continue
        fused = _FUSED.match(expr)
        if fused is not None:
            expr = fused.group(1).split(",")[0].strip()
            continue
        at = _FILE.match(expr)
        if at is not None:
            file, line = at.group(1), int(at.group(2))
            column = int(at.group(3)) if at.group(3) else None
        break
    result = (op_name, file, line, column)
    if start is not None:
        resolved[start] = result
    return result


def _callee(inside: str) -> str:
    """The callee ``A`` of ``callsite(A at B)``, given ``A at B``: split at
    the first `` at `` outside parentheses and quotes."""
    depth, quoted = 0, False
    for i, char in enumerate(inside):
        if char == '"' and (i == 0 or inside[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and inside.startswith(" at ", i):
            return inside[:i]
    return inside
