"""XLA's own HLO parser as a test oracle, run out of process.

XLA aborts the whole process on some malformed input (a CHECK failure), so the
parser runs in a worker subprocess that reads one path per line and answers one
JSON line per path.  When the worker dies, the file that killed it is recorded
as ``crashed`` and a fresh worker takes the rest.

The module structure comes from the serialized HloModuleProto, decoded here by
hand (jax ships no protobuf classes): opcodes are then spelled exactly as in
HLO text, and instruction order is the module's own.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

# HloModuleProto / HloComputationProto / HloInstructionProto field numbers.
_MODULE_NAME, _MODULE_ENTRY_NAME, _MODULE_COMPUTATIONS = 1, 2, 3
_COMP_NAME, _COMP_INSTRUCTIONS = 1, 2
_INSTR_NAME, _INSTR_OPCODE, _INSTR_ID, _INSTR_OPERAND_IDS = 1, 2, 35, 36


KEYS = ("flops", "transcendentals", "bytes accessed")  # the cost totals compared


def _varint(data: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def _fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    i, n = 0, len(data)
    while i < n:
        key, i = _varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            length, i = _varint(data, i)
            value = data[i : i + length]
            i += length
        elif wire == 1:
            value, i = data[i : i + 8], i + 8
        elif wire == 5:
            value, i = data[i : i + 4], i + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield field, wire, value


def _packed_varints(data: bytes) -> list[int]:
    out, i = [], 0
    while i < len(data):
        value, i = _varint(data, i)
        out.append(value)
    return out


def decode_module(proto: bytes) -> dict[str, Any]:
    """Module name, entry name and computations (name, instructions) from a proto."""
    module: dict[str, Any] = {"name": "", "entry": "", "computations": []}
    for field, _, value in _fields(proto):
        if field == _MODULE_NAME:
            module["name"] = value.decode()
        elif field == _MODULE_ENTRY_NAME:
            module["entry"] = value.decode()
        elif field == _MODULE_COMPUTATIONS:
            module["computations"].append(_decode_computation(value))
    return module


def _decode_computation(data: bytes) -> dict[str, Any]:
    name, raw = "", []
    for field, _, value in _fields(data):
        if field == _COMP_NAME:
            name = value.decode()
        elif field == _COMP_INSTRUCTIONS:
            instr = {"name": "", "opcode": "", "id": 0, "operand_ids": []}
            for f, wire, v in _fields(value):
                if f == _INSTR_NAME:
                    instr["name"] = v.decode()
                elif f == _INSTR_OPCODE:
                    instr["opcode"] = v.decode()
                elif f == _INSTR_ID:
                    instr["id"] = v
                elif f == _INSTR_OPERAND_IDS:
                    instr["operand_ids"] += _packed_varints(v) if wire == 2 else [v]
            raw.append(instr)
    by_id = {i["id"]: i["name"] for i in raw}
    instructions = [
        {"name": i["name"], "opcode": i["opcode"], "operands": [by_id[o] for o in i["operand_ids"]]}
        for i in raw
    ]
    return {"name": name, "instructions": instructions}


def serve(answer: Callable[[Any], dict[str, Any]], error_chars: int = 500) -> None:
    """A worker's loop (see `ask_workers`): each path read from stdin parsed by
    XLA and answered as one JSON line, ``{"ok": True, **answer(module)}``, or
    ``{"ok": False, "error"}`` for an error XLA raises."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from jax._src.lib import xla_client

    for line in sys.stdin:
        path = line.rstrip("\n")
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                module = xla_client.hlo.hlo_module_from_text(f.read())
            result = {"ok": True, **answer(module)}
        except Exception as e:  # XLA raises its own status errors
            result = {"ok": False, "error": str(e)[:error_chars]}
        print(json.dumps(result), flush=True)


def xla_cost_totals(module: Any) -> dict[str, float]:
    """XLA:CPU's ``hlo_module_cost_analysis`` totals of a module XLA parsed (`KEYS`)."""
    from jax._src import xla_bridge
    from jax._src.lib import xla_client

    costs = xla_client._xla.hlo_module_cost_analysis(xla_bridge.get_backend("cpu"), module)
    return {k: float(costs.get(k, 0.0)) for k in KEYS}


def _worker() -> None:
    serve(lambda module: decode_module(module.as_serialized_hlo_module_proto()), 2000)


def corpus_hlo_texts(corpus: Path) -> list[Path]:
    """Every HLO text of the peer corpus: XLA's parser tests, the XLA repo's
    ``.hlo`` files, and the HLO modules of the real dump folders."""
    texts = sorted((corpus / "parser_tests").glob("*.hlo"))
    texts += sorted((corpus / "xla_hlo_files").iterdir())
    with open(corpus / "MANIFEST.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["local_path"].startswith("real_dumps/") and row["kind"] in (
                "hlo-module",
                "pass-dump",
            ):
                texts.append(corpus / row["local_path"])
    return texts


def parse_with_xla(paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Parse every file with XLA; a file that kills the parser gets ``crashed``."""
    return ask_workers(__file__, paths, "XLA's parser aborted")


def ask_workers(script: str, paths: Iterable[str], crash: str) -> dict[str, dict[str, Any]]:
    """{path: the JSON line ``python script`` answers for it}: a worker reads
    one path per line; one that dies is blamed for that path (``crash``, the
    error) and a fresh worker takes the rest."""
    pending = list(paths)
    results: dict[str, dict[str, Any]] = {}
    while pending:
        with subprocess.Popen(
            [sys.executable, script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        ) as proc:
            assert proc.stdin and proc.stdout
            # One path at a time, so that a crash is blamed on the right file.
            while pending:
                path = pending.pop(0)
                try:
                    proc.stdin.write(path + "\n")
                    proc.stdin.flush()
                    line = proc.stdout.readline()
                except BrokenPipeError:
                    line = ""
                if not line:
                    results[path] = {"ok": False, "crashed": True, "error": crash}
                    break
                results[path] = json.loads(line)
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
    return results


if __name__ == "__main__":
    _worker()


# -- comparing our model with XLA's ---------------------------------------------

# XLA rewrites async syntax sugar (``custom-call-start`` ...) into async-start /
# async-update / async-done around a generated ``async_wrapped`` computation;
# our model keeps the opcode as spelled, so the comparison maps one to the other.
_ASYNC_SUFFIXES = {"-start": "async-start", "-update": "async-update", "-done": "async-done"}


def _as_xla_opcode(opcode: str) -> str:
    for suffix, async_opcode in _ASYNC_SUFFIXES.items():
        if opcode.endswith(suffix) and opcode not in _NATIVE_ASYNC:
            return async_opcode
    return opcode


_NATIVE_ASYNC = frozenset(
    (
        "async-start", "async-update", "async-done", "all-reduce-start", "all-reduce-done",
        "all-gather-start", "all-gather-done", "collective-permute-start",
        "collective-permute-done", "copy-start", "copy-done", "send-done", "recv-done",
    )
)  # fmt: skip


def model_as_xla_names(module: Any) -> dict[str, dict[str, tuple[str, tuple[str, ...]]]]:
    """Our module as {computation: {instruction: (opcode, operands)}} under the
    names XLA gives: XLA makes instruction names unique across the module when
    a text reuses one in another computation (``p0`` -> ``p0.1``)."""
    from xlaview.hlo.parse.names import NameUniquer

    uniquer = NameUniquer()
    out: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {}
    for comp in module.computations:
        renamed = {i.name: uniquer.unique(i.name) for i in comp.instructions}
        out[comp.name] = {
            renamed[i.name]: (
                _as_xla_opcode(i.opcode),
                tuple(renamed.get(o, o) for o in i.operand_names),
            )
            for i in comp.instructions
        }
    return out


def xla_as_names(
    result: dict[str, Any], ours: set[str]
) -> dict[str, dict[str, tuple[str, tuple[str, ...]]]]:
    """XLA's module in the same form; the ``async_wrapped`` computations XLA
    generates for async sugar are left out (unless the text itself has one)."""
    return {
        c["name"]: {i["name"]: (i["opcode"], tuple(i["operands"])) for i in c["instructions"]}
        for c in result["computations"]
        if c["name"] in ours or not c["name"].startswith("async_wrapped")
    }


def differences(module: Any, result: dict[str, Any]) -> list[str]:
    """What differs between our parse and XLA's, as readable lines (empty: equal)."""
    ours = model_as_xla_names(module)
    theirs = xla_as_names(result, set(ours))
    problems = []
    if set(ours) != set(theirs):
        problems.append(
            f"computations only in ours: {sorted(set(ours) - set(theirs))}, "
            f"only in XLA's: {sorted(set(theirs) - set(ours))}"
        )
    for name in sorted(set(ours) & set(theirs)):
        a, b = ours[name], theirs[name]
        if set(a) != set(b):
            problems.append(
                f"{name}: instructions only in ours {sorted(set(a) - set(b))[:5]}, "
                f"only in XLA's {sorted(set(b) - set(a))[:5]}"
            )
        for instr in sorted(set(a) & set(b)):
            if a[instr] != b[instr]:
                problems.append(f"{name}/{instr}: ours {a[instr]}, XLA's {b[instr]}")
    if not problems and result.get("entry") and module.entry.name != result["entry"]:
        problems.append(f"entry: ours {module.entry.name}, XLA's {result['entry']}")
    return problems
