"""Find instructions by name, opcode, shape, op_name or source location.

A query is words; each must match. ``op:dot``, ``shape:8192``, ``name:fusion``,
``meta:softmax`` and ``src:attention.py:6`` look in one field; a bare word looks
in all of them. Matching ignores case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xlaview.hlo import Instruction, Module

FIELDS = ("name", "op", "shape", "meta", "src")


@dataclass(frozen=True, slots=True)
class Hit:
    computation: str
    name: str
    opcode: str
    shape: str
    line: int
    op_name: str | None
    source: str | None


def _source(module: Module, instr: Instruction) -> str | None:
    frames = module.source_frames(instr)
    return f"{frames[0].file}:{frames[0].line}" if frames else None


# Each field's text, lower case; made only when a term looks in it.
_FIELD_TEXT: dict[str, Callable[[Module, Instruction], str]] = {
    "name": lambda module, instr: instr.name.lower(),
    "op": lambda module, instr: (instr.opcode + " " + (instr.fusion_kind or "")).lower(),
    "shape": lambda module, instr: str(instr.shape).lower(),
    "meta": lambda module, instr: (instr.op_name or "").lower(),
    "src": lambda module, instr: (
        " ".join(str(f) for f in module.source_frames(instr)).lower()
        if (instr.attribute_text and "metadata" in instr.attribute_text)
        else ""
    ),
}


def _matches(module: Module, instr: Instruction, terms: list[tuple[str | None, str]]) -> bool:
    texts: dict[str, str] = {}

    def text(key: str) -> str:
        if key not in texts:
            texts[key] = _FIELD_TEXT[key](module, instr)
        return texts[key]

    return all(
        (value in text(key)) if key else any(value in text(k) for k in FIELDS)
        for key, value in terms
    )


def search(module: Module, query: str, limit: int = 500) -> list[Hit]:
    terms: list[tuple[str | None, str]] = []
    for word in query.split():
        key, sep, value = word.partition(":")
        if sep and key in FIELDS and value:
            terms.append((key, value.lower()))
        else:
            terms.append((None, word.lower()))
    if not terms:
        return []
    hits: list[Hit] = []
    for comp, instr in _all(module):
        if _matches(module, instr, terms):
            hits.append(
                Hit(
                    comp,
                    instr.name,
                    instr.opcode,
                    str(instr.shape),
                    instr.span.line,
                    instr.op_name,
                    _source(module, instr),
                )
            )
            if len(hits) >= limit:
                break
    return hits


def _all(module: Module) -> Iterator[tuple[str, Instruction]]:
    for comp in module.computations:
        for instr in comp.instructions:
            yield comp.name, instr
