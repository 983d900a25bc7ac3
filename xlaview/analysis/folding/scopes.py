"""The scope path of an instruction, read from its ``op_name``.

Every framework writes the path of the code that made an op, outermost
first, separated by ``/``, the op itself last: JAX
``jit(train_step)/transpose(jvp(block_3))/mlp/dot_general``, Flax and Equinox
module paths (``MLP_0/Dense_1/dot_general``), Haiku's ``mlp/~/linear_0/...``
(``~`` only separates), PyTorch/XLA and TensorFlow scopes (``model/dense/MatMul``).
The scope path is everything but the last part.

JAX wraps a scope in the transformations applied around it:
``transpose(jvp(block_3))`` is the backward pass of ``block_3``, ``jvp(block_3)``
its forward pass, ``jvp()`` a transformation with no scope inside. Kept apart
(`APART`), forward and backward of a scope are separate groups, named as JAX
prints them; `TOGETHER` drops the autodiff wrappers, so both are one group
``block_3`` (and ``jvp()`` no group at all).
"""

from __future__ import annotations

from typing import Literal

Phases = Literal["apart", "together"]
APART: Phases = "apart"
TOGETHER: Phases = "together"

# The transformations of automatic differentiation: what `TOGETHER` removes.
AUTODIFF_WRAPPERS = frozenset(("jvp", "transpose", "linearize", "vjp"))

# A scope path deeper than this is cut there: what is deeper stays in the
# group at this depth. No real program nests so far; a hostile op_name must
# not make a tree every later walk (JSON output included) has to descend.
MAX_SCOPE_DEPTH = 48


def unwrap(part: str) -> tuple[tuple[str, ...], str]:
    """(wrappers outermost first, inner name) of one part of a path:
    ``transpose(jvp(block_3))`` -> ``(("transpose", "jvp"), "block_3")``.
    A part that is not ``name(...)`` is its own inner name."""
    wrappers: list[str] = []
    while part.endswith(")"):
        open_at = part.find("(")
        name = part[:open_at]
        if open_at <= 0 or not name.replace("_", "").isalnum():
            break
        wrappers.append(name)
        part = part[open_at + 1 : -1]
    return tuple(wrappers), part


def scope_path(op_name: str | None, phases: Phases = APART) -> tuple[str, ...]:
    """The scopes ``op_name`` puts its op in, outermost first (at most
    `MAX_SCOPE_DEPTH`). A fused op's ``op_name`` lists the ops it fused,
    ``;``-separated: their common scopes."""
    if not op_name:
        return ()
    common: tuple[str, ...] | None = None
    for one in op_name.split(";"):
        path = _one_path(one, phases)
        if common is None:
            common = path
        else:
            k = 0
            while k < len(common) and k < len(path) and common[k] == path[k]:
                k += 1
            common = common[:k]
        if not common:
            break
    return common or ()


def _one_path(op_name: str, phases: Phases) -> tuple[str, ...]:
    parts = op_name.split("/")[:-1]  # the last part is the op itself
    path: list[str] = []
    for part in parts:
        if not part or part == "~":  # Haiku's separator, or "a//b"
            continue
        if phases == TOGETHER:
            wrappers, inner = unwrap(part)
            kept = [w for w in wrappers if w not in AUTODIFF_WRAPPERS]
            if len(kept) < len(wrappers):
                if not inner and not kept:
                    continue  # jvp(): a transformation around no scope
                part = "".join(f"{w}(" for w in kept) + inner + ")" * len(kept)
        path.append(part)
        if len(path) == MAX_SCOPE_DEPTH:
            break
    return tuple(path)


def phase_of(part: str) -> str | None:
    """``backward`` for a part inside ``transpose(...)``, ``forward`` for one
    inside ``jvp(...)`` only, None otherwise."""
    wrappers, _ = unwrap(part)
    if "transpose" in wrappers:
        return "backward"
    if "jvp" in wrappers or "linearize" in wrappers:
        return "forward"
    return None
