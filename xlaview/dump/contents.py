"""What the first few KB of an HLO text say about its module, for files whose
names do not tell: the module's name, the backend it was compiled for, and
whether it is XLA's scheduled form. Read without parsing, and remembered for
each state of a file (path, size, modification time).

The index calls on it for lone HLO texts (a module each) and for modules whose
file names give no name or backend. Also a cheap estimate of a module's size,
the number of instruction lines of a file, to find a dump's main module
without parsing anything.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from xlaview.dump.files import DumpReadError, read_head
from xlaview.dump.naming import backend_of, parse_stage_name
from xlaview.hlo.attributes import read_module_name

if TYPE_CHECKING:
    from xlaview.dump.records import DumpFile, DumpModule

__all__ = [
    "HEAD_BYTES", "HloHead", "add_plain_modules", "backend_in", "describe_from_contents",
    "describe_hlo_head", "estimate_instructions", "ir_module_name", "plain_module",
    "read_hlo_head",
]  # fmt: skip

# Enough for the HloModule line of a big module (its entry_computation_layout
# lists every parameter) and the first computations after the source tables.
HEAD_BYTES = 16 * 1024

_MODULE_LINE = re.compile(r"HloModule[ \t]+")
_ENTRY = re.compile(r"^ENTRY[ \t]+%?([^\s({]+)", re.MULTILINE)
# A computation header or an instruction: what an HLO text without an
# HloModule line (a test fragment) still has.
_HLO_LINE = re.compile(
    r"^(?:ENTRY\s|%?[\w.\-]+ (?:\([^\n]*\) -> [^\n]*)?\{$|\s*(?:ROOT\s+)?%?[\w.\-]+ = )",
    re.MULTILINE,
)
# Evidence of a backend, strongest first. GPU: its library calls and the
# backend_config every GPU instruction carries. TPU: tiled layouts
# ({1,0:T(8,128)}) and on-chip memory spaces (S(1)..S(4); S(5) is host memory on
# every backend). CPU: the old parallel-task partitions and oneDNN calls.
_GPU = re.compile(
    r'custom_call_target="__(?:cublas|cudnn|triton|gpu\$|nvshmem|rocm)|"operation_queue_id"'
    r'|"fusion_backend_config"|"kind":"__triton'
)
_TPU_TILES = re.compile(r"\{[0-9,]*:[^{}\n]*T\(\d")
_CPU = re.compile(r'"outer_dimension_partitions"|custom_call_target="__(?:onednn|xla_cpu)')
_TPU_MEMORY_SPACE = re.compile(r"\{[0-9,]*:[^{}\n]*S\([1-4]\)")


@dataclass(frozen=True, slots=True)
class HloHead:
    """What the start of an HLO text says."""

    module_name: str | None  # from its first line, ``HloModule NAME, ...``
    entry_name: str | None  # the ENTRY computation's name, if it is in the head
    backend: str | None  # "cpu", "gpu" or "tpu" where the text shows it
    scheduled: bool  # ``is_scheduled=true``: XLA's final form of a module
    looks_like_hlo: bool  # an HloModule line, computations or instructions

    @property
    def name(self) -> str | None:
        """The module's name: its HloModule line's, else its entry's."""
        return self.module_name or self.entry_name


def describe_hlo_head(text: str) -> HloHead:
    """Read the first few KB of an HLO text (comment lines such as lit's
    ``// RUN:`` before the HloModule line are skipped)."""
    first = _first_line(text)
    module = _MODULE_LINE.match(first)
    named = read_module_name(first, module.end()) if module else None
    entry = _ENTRY.search(text)
    return HloHead(
        module_name=named[0] if named else None,
        entry_name=entry.group(1) if entry else None,
        backend=backend_in(text),
        scheduled=module is not None and "is_scheduled=true" in first,
        looks_like_hlo=module is not None or _HLO_LINE.search(text) is not None,
    )


def backend_in(text: str) -> str | None:
    """``gpu``, ``tpu`` or ``cpu`` when a piece of HLO text shows which, else None."""
    if _GPU.search(text):
        return "gpu"
    if _TPU_TILES.search(text):
        return "tpu"
    if _CPU.search(text):
        return "cpu"
    if _TPU_MEMORY_SPACE.search(text):
        return "tpu"
    return None


def _first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("//", "#")):
            return stripped
    return ""


# Remembered per (path, size, mtime): a followed folder is indexed again every
# time it changes, and its files are read once.
_CACHE_LIMIT = 8192
_heads: dict[tuple[str, int, int], HloHead | None] = {}
_sizes: dict[tuple[str, int, int], int] = {}
_lock = threading.Lock()
_V = TypeVar("_V")


def _remember(cache: dict[tuple[str, int, int], _V], key: tuple[str, int, int], value: _V) -> None:
    with _lock:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = value


def read_hlo_head(dump_file: DumpFile) -> HloHead | None:
    """:func:`describe_hlo_head` of a file's first `HEAD_BYTES`; None if the
    file cannot be read or is binary."""
    key = (str(dump_file.path), dump_file.size, dump_file.mtime_ns)
    if key in _heads:
        return _heads[key]
    try:
        data = read_head(dump_file.path, HEAD_BYTES)
    except DumpReadError:
        head = None
    else:
        head = None if b"\0" in data else describe_hlo_head(data.decode("utf-8", errors="replace"))
    _remember(_heads, key, head)
    return head


def estimate_instructions(dump_file: DumpFile) -> int:
    """About how many instructions an HLO text holds, without parsing it: XLA
    prints one instruction a line, indented, and nothing else indented (the
    source tables of newer dumps start at the margin). 0 if unreadable."""
    key = (str(dump_file.path), dump_file.size, dump_file.mtime_ns)
    if key in _sizes:
        return _sizes[key]
    try:
        data = read_head(dump_file.path, dump_file.size)
    except DumpReadError:
        count = 0
    else:
        count = data.count(b"\n  ") + data.startswith(b"  ")
    _remember(_sizes, key, count)
    return count


# -- modules described by their contents ---------------------------------------

_BEFORE_WORD = re.compile(r"(?:^|[._-])before(?:[._-]|$)")


def plain_module(dump_file: DumpFile, dump: str, module_id: int) -> DumpModule:
    """The module of a lone HLO text: named by its HloModule line (else its
    entry, else the file), its backend from its name or its text, and the file
    placed before optimizations if its name says ``before``, else after."""
    from xlaview.dump.records import DumpModule

    head = read_hlo_head(dump_file)
    stage = parse_stage_name(dump_file.name)
    stem = dump_file.name.rsplit(".", 1)[0]
    name = (head.name if head else None) or stem
    backend = backend_of(stage[1], stage[0]) if stage else None
    module = DumpModule(
        module_id,
        name,
        dump,
        backend=backend or (head.backend if head else None),
        plain_file=dump_file.name,
    )
    says_before = (
        stage[0].startswith("before_optimization") if stage else bool(_BEFORE_WORD.search(stem))
    )
    if says_before:
        module.before_optimizations = dump_file
    else:
        module.after_optimizations = dump_file
    return module


def add_plain_modules(
    modules: list[DumpModule], unrecognized: list[DumpFile], dumps: list[str]
) -> list[DumpFile]:
    """Make a module of each HLO text among files not named like a dump
    (``*.hlo``; ``*.txt`` that start with ``HloModule``), numbered after the
    ids of its folder's modules; its folder becomes a dump. Returns the files
    left unrecognized."""
    next_id: dict[str, int] = {}
    for m in modules:
        next_id[m.dump] = max(next_id.get(m.dump, 0), m.id + 1)
    left = []
    for f in unrecognized:
        if not _is_hlo_text(f):
            left.append(f)
            continue
        folder = f.rel.rpartition("/")[0]
        module = plain_module(f, folder, next_id.get(folder, 0))
        next_id[folder] = module.id + 1
        modules.append(module)
        if folder not in dumps:
            dumps.append(folder)
    return left


def _is_hlo_text(f: DumpFile) -> bool:
    if f.size == 0 or not f.name.endswith((".hlo", ".txt")):
        return False
    head = read_hlo_head(f)
    if head is None:
        return False
    return head.looks_like_hlo if f.name.endswith(".hlo") else head.module_name is not None


def describe_from_contents(modules: list[DumpModule]) -> None:
    """Give modules whose file names lack a name or a backend (XLA before
    2021-06 wrote ``module_NNNN.after_optimizations.txt``) those of their text;
    then a module still without a backend takes the one other modules of its
    name in its dump agree on (an unoptimized text shows no layouts or library
    calls, the optimized one of the same program does)."""
    _from_heads(modules)
    backends: dict[tuple[str, str | None], set[str]] = {}
    for m in modules:
        if m.backend:
            backends.setdefault((m.dump, m.name), set()).add(m.backend)
    for m in modules:
        known = backends.get((m.dump, m.name), set())
        if m.backend is None and m.name and len(known) == 1:
            m.backend = next(iter(known))


def _from_heads(modules: list[DumpModule]) -> None:
    for module in modules:
        if module.plain_file or (module.name and module.backend):
            continue
        texts = [f for _, f in module.timeline() if f.size]
        if not texts:
            if module.name is None:  # a module dumped as LLVM IR only
                module.name = ir_module_name(module.other_files)
            continue
        # The final text first: layouts and library calls show the backend there.
        head = read_hlo_head(texts[-1])
        if head is None:
            continue
        if module.name is None:
            module.name = head.name
        if module.backend is None:
            module.backend = head.backend


# The first lines of LLVM IR as LLVM prints a module: XLA names the LLVM module
# of a whole HLO module after it (XLA:GPU), XLA:CPU's ``__compute_module`` and a
# kernel's ``<kernel>_kernel_module`` after something else.
_IR_NAMES = (
    re.compile(r"^; ModuleID = '([^'\n]{1,1000})'", re.MULTILINE),
    re.compile(r'^source_filename = "([^"\n]{1,1000})"', re.MULTILINE),
)
_NOT_A_MODULE_NAME = re.compile(r"__compute_module|.*_kernel_module\Z|<stdin>\Z|-\Z", re.S)


def ir_module_name(files: list[DumpFile]) -> str | None:
    """The HLO module name LLVM IR files give (``; ModuleID = 'cluster_7.7'``,
    else ``source_filename``), for a module whose dump has no HLO text and whose
    file names no name (dumps before 2021-06); None if none gives one."""
    for f in sorted(files, key=lambda f: ("ir-no-opt" not in f.name, f.name)):
        if not f.name.endswith(".ll") or f.size == 0:
            continue
        try:
            data = read_head(f.path, 4096)
        except DumpReadError:
            continue
        text = data.decode("utf-8", errors="replace")
        for pattern in _IR_NAMES:
            m = pattern.search(text)
            if m and not _NOT_A_MODULE_NAME.match(m.group(1)):
                return m.group(1)
    return None
