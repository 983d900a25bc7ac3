"""The names XLA gives the files of a dump folder (``--xla_dump_to``).

``[timestamp.]module_NNNN[.name][.cl_N].suffix``: module names contain dots
and so do suffixes, so suffixes are matched from the right, against the forms
XLA has used since 2019 (``shared/corpus/NAMING.md`` has the history). A
few files put something before ``module_NNNN``: the fusion visualizer its
computation, XLA:GPU's MLIR the dialect (``lmhlo.module_NNNN.name.mlir``).
"""

from __future__ import annotations

import re
from enum import Enum
from typing import NamedTuple


class FileKind(str, Enum):
    PASS = "pass"  # SEQ.pipeline.after_X.before_Y
    SNAPSHOT = "snapshot"  # SEQ.pass.after_step, a dump taken inside a pass
    STAGE = "stage"  # a whole-module dump: before/after optimizations, ...
    REPORT = "report"  # buffer assignment, its values, live range, memory usage
    OTHER = "other"  # anything else of a module: .dot, .ll, .o, debug_options...


# The text dump formats come first in each alternation: the regexes are
# anchored at the end, and "hlo.pb.gz" must win over "gz".
_FORMATS = r"txt|dot|top_level\.html|html|url|hlo\.pb\.gz|hlo\.pb|pb\.gz|pb|riegeli|fdo_profile"
_BACKEND = r"cpu|tpu|sm_\d+\.\d+_gpu|gfx[0-9a-z]+_gpu|[a-z][a-z0-9]*_gpu"
_STAGES = (
    r"after_optimizations_before_buffer_assignment|after_optimizations_after_buffer_assignment"
    r"|after_optimizations|before_optimizations|after_optimization|before_optimization"
    r"|after_spmd_partitioner|before_config_assignment|after_codegen|host_transfers"
)
# A word each of _PASS, _SNAPSHOT and _STAGE needs (``after_``, ``before_``,
# or the one stage named otherwise).
_DUMP_WORDS = ("after_", "before_", "host_transfers")
_REPORTS = r"-buffer-assignment-values|-buffer-assignment|-live-range|-memory-usage-report"

_PREFIX = re.compile(r"(?:(\d{10,19})\.)?module_(\d{4,19})(?:\.(.*))?\Z", re.S)
_PASS = re.compile(rf"(?:^|\.)(\d{{4,19}})\.([^.]+)\.after_(.+?)\.before_(.+)\.({_FORMATS})\Z")
_SNAPSHOT = re.compile(rf"(?:^|\.)(\d{{4,19}})\.([^.]+)\.after_([^.]+)\.({_FORMATS})\Z")
_STAGE = re.compile(rf"(?:^|\.)(?:({_BACKEND})_)?({_STAGES})({_REPORTS})?\.({_FORMATS})\Z")
_CHANGELIST = re.compile(r"\.cl_(\d{1,19})\Z")
_FUSION_VISUALIZATION = re.compile(
    r"(.+)\.module_(\d{4,19})\.(.*)\._fusion\.(html|pyz)\Z|(.+)_fusion_visualization\.html\Z"
)
# Suffixes of other per-module files, used to split an unknown module name
# off them when no HLO dump of the module names it: the module's own files
# (the suffix right after the name; LLVM IR was ``ir-no-opt[-noconst][.<part>].ll``
# to 2023, ``[<part>.]ir-no-opt.ll`` since), and a kernel's or a shard's
# (``<kernel>_kernel_module.ir-no-opt.ll``, ``<shard>.ptx``), the name ending
# at the first dot.
_MODULE_SUFFIX = (
    r"debug_options|config\.pbtxt|metadata\.textproto|autotune_results\.pbtxt"
    r"|gpu_target_config\.pbtxt|thunk_sequence[\w.]*|thunk_schedule|thunk_metadata\.\w+"
    r"|priority_fusion_dump\.\w+|schedule\.\w+|sdc_metadata\.txt|hlo_snapshot\.\w+"
    r"|ir-(?:no|with)-opt(?:-noconst)?(?:\.[\w\-]+)?\.ll|ptx|spv|mlir|execution_\d+\..+"
)
_OTHER_SUFFIX = re.compile(
    rf"\.(?:{_MODULE_SUFFIX}"
    r"|obj-file\..+|.*ir-(?:no|with)-opt(?:\.part_\d+)?\.ll|.*\.ptx"
    r"|.*\.mlir|.*\.ll|.*\.o|.*\.ttir\.txt|.*\.hlo)\Z"
)
_BARE_SUFFIX = re.compile(rf"(?:{_MODULE_SUFFIX})\Z")
# A name part of digits only (``cluster_7.7``, ``SyncTensorsGraph.1053``): the
# unique suffix XLA gives module names, kept with the name it follows.
_NUMBER_PART = re.compile(r"\.\d{1,19}(?=\.)")
# Files named by the dialect they print, ``FilenameFor(module, "lmhlo", "mlir")``:
# ``lmhlo.module_NNNN.<name>.mlir`` (XLA:GPU, 2021-2023).
_DIALECT = re.compile(r"([a-z][a-z0-9_]{0,30})\.module_(\d{4,19})\.(?:(.*)\.)?mlir\Z", re.S)

REPORT_NAMES = {
    "-buffer-assignment": "buffer_assignment",
    "-buffer-assignment-values": "buffer_assignment_values",
    "-live-range": "live_range",
    "-memory-usage-report": "memory_usage",
}


# A NamedTuple: one per file of a folder of thousands, where a frozen
# dataclass's __init__ (a setattr per field) took 3.5 µs of the name's 6.
class DumpFileName(NamedTuple):
    """What a file name says. ``module_name`` is None when the name does not
    tell it (pre-2021 dumps have none; other files need the index to split it)."""

    module_id: int
    module_name: str | None
    kind: FileKind
    format: str
    rest: str  # everything after "module_NNNN."
    timestamp: int | None = None
    changelist: int | None = None
    seq: int | None = None
    pipeline: str | None = None
    after: str | None = None
    before: str | None = None
    stage: str | None = None  # e.g. "after_optimizations", "before_optimizations"
    backend_prefix: str | None = None  # e.g. "cpu", "sm_8.0_gpu", "gfx942_gpu"
    report: str | None = None  # a key of REPORT_NAMES' values
    dialect: str | None = None  # ``lmhlo`` of ``lmhlo.module_NNNN.name.mlir``


def parse_file_name(name: str) -> DumpFileName | None:
    """Classify one file name of a dump folder; None if it is not a module's file."""
    m = _PREFIX.match(name)
    if not m:
        if d := _DIALECT.match(name):
            module_name = _clean_name(d.group(3) or "")[0]
            rest = name[d.end(1) + len(".module_") + len(d.group(2)) + 1 :]
            return DumpFileName(
                int(d.group(2)), module_name, FileKind.OTHER, "mlir", rest, dialect=d.group(1)
            )
        v = _FUSION_VISUALIZATION.match(name)
        if v and v.group(2):
            return DumpFileName(
                int(v.group(2)), _clean_name(v.group(3))[0], FileKind.OTHER, v.group(4), name
            )
        return None
    timestamp = int(m.group(1)) if m.group(1) else None
    module_id = int(m.group(2))
    rest = m.group(3) or ""
    # Every pass, snapshot and stage name holds one of these: a dump's
    # thousands of kernel files (``<kernel>.ir-no-opt.ll``, ``.o``) skip
    # the three searches, each of which tries at every position.
    if not any(word in rest for word in _DUMP_WORDS):
        return DumpFileName(module_id, None, FileKind.OTHER, "", rest, timestamp)
    if p := _PASS.search(rest):
        module_name, cl = _clean_name(rest[: p.start()])
        return DumpFileName(
            module_id, module_name, FileKind.PASS, p.group(5), rest, timestamp, cl,
            seq=int(p.group(1)), pipeline=p.group(2), after=p.group(3), before=p.group(4),
        )  # fmt: skip
    if s := _STAGE.search(rest):
        module_name, cl = _clean_name(rest[: s.start()])
        report = REPORT_NAMES[s.group(3)] if s.group(3) else None
        return DumpFileName(
            module_id, module_name, FileKind.REPORT if report else FileKind.STAGE, s.group(4),
            rest, timestamp, cl, stage=s.group(2), backend_prefix=s.group(1), report=report,
        )  # fmt: skip
    if p := _SNAPSHOT.search(rest):
        module_name, cl = _clean_name(rest[: p.start()])
        return DumpFileName(
            module_id, module_name, FileKind.SNAPSHOT, p.group(4), rest, timestamp, cl,
            seq=int(p.group(1)), pipeline=p.group(2), after=p.group(3),
        )  # fmt: skip
    return DumpFileName(module_id, None, FileKind.OTHER, "", rest, timestamp)


def parse_stage_name(name: str) -> tuple[str, str | None] | None:
    """(stage, backend prefix) of a whole-module HLO text named like a dump's
    stage but without ``module_NNNN`` (``gfx950_gpu_after_optimizations.txt``,
    a dump file renamed or copied out); None for any other name."""
    s = _STAGE.search(name)
    if s is None or s.group(3) or s.group(4) != "txt":
        return None
    return s.group(2), s.group(1)


def guess_module_name(rest: str) -> str | None:
    """The module name in front of another file's suffix, when nothing else tells.

    None when ``rest`` is a suffix only (``ir-no-opt.ll``, ``ptx``: dumps before
    2021-06 put no name in file names). A part of digits after the name stays
    with it (``cluster_7.7.ir-no-opt.ll``: TensorFlow's clusters end so), though
    XLA:GPU's numbered shards (``jit_f.3.ir-no-opt.ll``) look the same: the index
    asks this only of modules that no HLO dump names.
    """
    if not rest or _BARE_SUFFIX.match(rest):
        return None
    m = _OTHER_SUFFIX.search(rest)
    end = m.start() if m and m.start() > 0 else rest.find(".")
    if end < 0:
        return _clean_name(rest)[0]
    while (number := _NUMBER_PART.match(rest, end)) is not None:
        end = number.end()
    return _clean_name(rest[:end])[0]


# Files XLA writes empty as a matter of course, with why: listed as empty files
# of their module, not as problems. An empty HLO text, report, LLVM IR or object
# file is still a problem: XLA always prints something into those.
_ROUTINELY_EMPTY = (
    (re.compile(r"(?:^|\.)sdc_metadata\.txt\Z"),
     "TPU silent-data-corruption check metadata: empty when no check was compiled in"),
    (re.compile(r"(?:^|\.)(?:ptx|spv)\Z"),
     "a module whose work all goes to library calls compiles no kernel"),
    (re.compile(r"(?:^|\.)debug_options\Z"),
     "lists the debug options that differ from their defaults: none did"),
)  # fmt: skip


def routinely_empty(name: str) -> str | None:
    """Why XLA writes a file of this name empty as a matter of course (a note
    to show beside it), or None if an empty one is a problem."""
    if parse_file_name(name) is None:
        return None
    return next((why for pattern, why in _ROUTINELY_EMPTY if pattern.search(name)), None)


def _clean_name(head: str) -> tuple[str | None, int | None]:
    head = head.rstrip(".")
    cl = None
    if m := _CHANGELIST.search(head):
        cl = int(m.group(1))
        head = head[: m.start()]
    return (head or None), cl


def backend_of(prefix: str | None, stage: str | None = None) -> str | None:
    """``cpu`` / ``gpu`` / ``tpu`` from an after-optimizations prefix or a stage name."""
    if prefix:
        if prefix == "cpu":
            return "cpu"
        if prefix.endswith("gpu"):
            return "gpu"
        if prefix == "tpu":
            return "tpu"
    if stage in (
        "after_codegen",
        "host_transfers",
        "after_optimizations_before_buffer_assignment",
        "after_optimizations_after_buffer_assignment",
    ):
        return "tpu"
    return None
