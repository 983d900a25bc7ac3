"""The other levels of a module: the StableHLO XLA was given, and the kernels
it generated, each at every stage XLA dumped it (its emitter's MLIR, Triton's
IRs, LLVM IR before and after LLVM's optimizations, PTX, objects).

Files are attached to a kernel by the names XLA's emitters give them
(``module_NNNN.<module>.`` + what follows):

* XLA:CPU, a file per kernel, named after the instruction it computes:
  ``<op>_kernel_module`` (the fusion emitters), ``__compute_module_<op>``
  (kernels whose LLVM module is named so), ``<op>`` alone (the scatter
  emitter), ``<op>_elemental_kernel_module`` (older XLA), each with
  ``.ir-no-opt.ll``, ``.ir-with-opt.ll``, ``obj-file.<...>.o`` and, with
  ``--xla_dump_emitter_re``, the MLIR stages ``-pre-optimization.mlir``,
  ``-post-optimization.mlir``, ``-post-lowering.mlir`` and ``.mlir-passes.log``
  (``xla/backends/cpu/codegen/fusion_compiler.cc``). What the older IR emitter
  compiles (sort comparators...) goes to ``part_NN.ir-no-opt.ll``, a file of
  many functions.
* XLA:GPU, every kernel of a module in one ``.ll`` / ``.ptx`` (or one per
  compilation shard, ``<N>.ir-no-opt.ll``, and ``constants.ir-no-opt.ll``); a
  kernel is a function of it named after its fusion. Triton fusions add files
  of their own with ``--xla_dump_emitter_re=triton-fusion``:
  ``<fusion>.hlo``, ``<fusion>.before_validation.ttir.txt``,
  ``<fusion>.ttir.txt``, and pass logs written without the ``module_NNNN.``
  prefix, ``<module>.<kernel>.triton-passes.log`` (older) or
  ``<module>.<kernel>.<pass manager>.txt``; Triton's own dumps name a kernel's
  stages ``<kernel>.ttir``, ``.ttgir``, ``.llir``, ``.ptx``.

Whose kernel a file is, and why an op has none, is decided against the HLO in
`xlaview.analysis.op_kernels`; this module reads names only (and, for the
files of many functions, which functions they define: `module_functions`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from xlaview.dump.files import read_text
from xlaview.dump.records import DumpFile, DumpModule
from xlaview.errors import XlaviewError
from xlaview.text.lines import count_newlines

# The levels a kernel can be read at, in the order XLA produces them, with
# their titles. A kernel's object file (`OBJECT`) comes last, listed, never shown.
KERNEL_LEVELS: tuple[tuple[str, str], ...] = (
    ("fusion_hlo", "fusion HLO (the emitter's input)"),
    ("xtile", "xTile IR (before validation)"),
    ("xtile_passes", "xTile to Triton pass log"),
    ("mlir_pre_optimization", "MLIR before opt"),
    ("mlir_post_optimization", "MLIR after opt"),
    ("mlir_post_lowering", "MLIR lowered"),
    ("mlir_passes", "MLIR pass log"),
    ("ttir", "Triton IR"),
    ("ttgir", "Triton GPU IR"),
    ("llir", "Triton LLVM IR"),
    ("triton_passes", "Triton pass log"),
    ("ir_no_opt", "LLVM IR before opt"),
    ("ir_with_opt", "LLVM IR after opt"),
    ("ptx", "PTX"),
    ("amdgcn", "AMDGCN"),
    ("spirv", "SPIR-V"),
)
OBJECT = "object"
OBJECT_TITLE = "object file"
# Short titles, for the levels strip, and the family (emitter, tool) of each
# level: the strip names a family once (MLIR · opt · lowered · log → LLVM IR · opt).
SHORT_TITLES: dict[str, str] = {
    "fusion_hlo": "HLO",
    "xtile": "xTile",
    "xtile_passes": "log",
    "mlir_pre_optimization": "MLIR",
    "mlir_post_optimization": "opt",
    "mlir_post_lowering": "lowered",
    "mlir_passes": "log",
    "ttir": "TTIR",
    "ttgir": "TTGIR",
    "llir": "LLIR",
    "triton_passes": "log",
    "ir_no_opt": "LLVM IR",
    "ir_with_opt": "opt",
    "ptx": "PTX",
    "amdgcn": "AMDGCN",
    "spirv": "SPIR-V",
    OBJECT: ".o",
}
FAMILY_TITLES = {"xtile": "xTile", "mlir": "MLIR", "triton": "Triton", "llvm": "LLVM IR"}
FAMILIES: dict[str, str] = {
    "xtile": "xtile",
    "xtile_passes": "xtile",
    "mlir_pre_optimization": "mlir",
    "mlir_post_optimization": "mlir",
    "mlir_post_lowering": "mlir",
    "mlir_passes": "mlir",
    "ttir": "triton",
    "ttgir": "triton",
    "llir": "triton",
    "triton_passes": "triton",
    "ir_no_opt": "llvm",
    "ir_with_opt": "llvm",
}
_ORDER = {key: i for i, (key, _) in enumerate([*KERNEL_LEVELS, (OBJECT, OBJECT_TITLE)])}
_TITLES = dict([*KERNEL_LEVELS, (OBJECT, OBJECT_TITLE)])


def stage_order(level: str) -> int:
    """Where a level comes in a kernel's pipeline (`KERNEL_LEVELS`, then `OBJECT`)."""
    return _ORDER.get(level, len(_ORDER))


def level_title(level: str) -> str:
    return _TITLES.get(level, level)


def level_kind(level: str) -> str:
    """The lexer a level's text is coloured with: ``ll``, ``ptx``, ``mlir``, ``hlo``."""
    if level in ("ir_no_opt", "ir_with_opt", "llir"):
        return "ll"
    if level in ("ptx", "amdgcn"):
        return "ptx"
    if level == "fusion_hlo":
        return "hlo"
    return "mlir"  # the MLIR stages and pass logs (and SPIR-V's text, near enough)


@dataclass(frozen=True, slots=True)
class KernelStage:
    """One file of a kernel at one level; ``function`` names the kernel in it
    (a file of many functions: the one to show)."""

    level: str
    file: DumpFile
    function: str | None = None

    @property
    def title(self) -> str:
        return level_title(self.level)

    @property
    def short_title(self) -> str:
        return SHORT_TITLES.get(self.level, self.level)

    @property
    def shown(self) -> bool:
        """Text to read (an object file is listed, not shown)."""
        return self.level != OBJECT

    def to_json(self) -> dict[str, str | None]:
        return {
            "name": self.title,
            "level": self.level,
            "file": self.file.rel,
            "function": self.function,
        }


@dataclass(slots=True)
class KernelFiles:
    """The files of one kernel (or of a module's kernels), one per level."""

    by_level: dict[str, DumpFile] = field(default_factory=dict)

    def add(self, level: str, f: DumpFile) -> None:
        self.by_level.setdefault(level, f)  # the first of two dumps of one level

    @property
    def ir_no_opt(self) -> DumpFile | None:
        return self.by_level.get("ir_no_opt")

    @property
    def ir_with_opt(self) -> DumpFile | None:
        return self.by_level.get("ir_with_opt")

    @property
    def ptx(self) -> DumpFile | None:
        return self.by_level.get("ptx")

    @property
    def object(self) -> DumpFile | None:
        return self.by_level.get(OBJECT)

    @property
    def mlir(self) -> list[DumpFile]:
        """XLA:CPU's MLIR emitter stages, in order."""
        return [f for key, f in self.levels() if key.startswith("mlir_")]

    def level(self, key: str) -> DumpFile | None:
        """The file of one of `KERNEL_LEVELS` (or `OBJECT`); None if this kernel has none."""
        return self.by_level.get(key)

    def levels(self) -> list[tuple[str, DumpFile]]:
        """(level, file) for each of `KERNEL_LEVELS` this kernel has, in order
        (its object file not among them)."""
        return [(key, self.by_level[key]) for key, _ in KERNEL_LEVELS if key in self.by_level]

    def stages(self, function: str | None = None) -> list[KernelStage]:
        """Every file in pipeline order, the object file last."""
        stages = [KernelStage(key, f, function) for key, f in self.levels()]
        if self.object is not None:
            stages.append(KernelStage(OBJECT, self.object, function))
        return stages

    def paths(self) -> dict[str, str | None]:
        """The compatibility part of the ``inspect --json`` "kernel" object."""
        return {
            key: f.rel if f else None
            for key, f in (
                ("ir_no_opt", self.ir_no_opt),
                ("ir_with_opt", self.ir_with_opt),
                ("ptx", self.ptx),
                ("object", self.object),
            )
        }

    def __bool__(self) -> bool:
        return bool(self.by_level)


@dataclass(slots=True)
class ModuleLevels:
    stablehlo: DumpFile | None
    # Kernel name as XLA wrote it in the file names -> its files. XLA:CPU
    # names kernels after their instruction; Triton's files carry the fusion's
    # name or its kernel's (the name with "." and "-" made "_").
    kernels: dict[str, KernelFiles]
    module_ir: list[KernelFiles]  # files of many kernels: GPU shards, XLA:CPU's part_NN
    unassigned: list[DumpFile]  # kernel-like files whose kernel is unknown
    backend: str | None = None

    @property
    def kernel_levels(self) -> tuple[str, ...]:
        """The `KERNEL_LEVELS` this module's kernels can be read at, in order:
        what its backend wrote (no PTX on CPU or ROCm, no MLIR stages on GPU,
        nothing on TPU)."""
        present = {
            key for files in [*self.kernels.values(), *self.module_ir] for key, _ in files.levels()
        }
        return tuple(key for key, _ in KERNEL_LEVELS if key in present)

    @property
    def has_kernels(self) -> bool:
        """Whether the dump holds any kernel file of this module."""
        return bool(self.kernels) or any(self.module_ir)

    def kernel_of(self, instruction: str) -> KernelFiles | None:
        """The files named after ``instruction`` (None: none are)."""
        return self.kernels.get(instruction) or None


# -- names -------------------------------------------------------------------------

# The end of a file name -> its level: most specific first.
_SUFFIXES: tuple[tuple[str, str], ...] = (
    (".before_validation.ttir.txt", "xtile"),
    (".xtile-to-triton.txt", "xtile_passes"),
    (".triton-to-llvm.txt", "triton_passes"),
    (".triton-passes.log", "triton_passes"),
    (".mlir-passes.log", "mlir_passes"),
    ("-pre-optimization.mlir", "mlir_pre_optimization"),
    ("-post-optimization.mlir", "mlir_post_optimization"),
    ("-post-lowering.mlir", "mlir_post_lowering"),
    (".ttir.txt", "ttir"),
    (".ttir", "ttir"),
    (".ttgir.txt", "ttgir"),
    (".ttgir", "ttgir"),
    (".llir", "llir"),
    (".ptx", "ptx"),
    (".amdgcn", "amdgcn"),
    (".spv", "spirv"),
    (".cubin", OBJECT),
    (".hsaco", OBJECT),
    (".hlo", "fusion_hlo"),
)
_LLVM_IR = re.compile(r"[.-]ir-(no|with)-opt(?:\.(part_\d+))?\.ll$")
# Files of many kernels: the module's own ("" ), GPU shards, constants, XLA:CPU's parts.
_MODULE_WIDE = re.compile(r"^(?:\d+|constants|part_\d+)?$")
_KERNEL_MODULE = re.compile(r"^(?P<name>.+?)(?:_elemental)?_kernel_module$")
_COMPUTE_MODULE = "__compute_module_"
_SINGLE_KERNEL_LEVELS = frozenset(
    ("fusion_hlo", "xtile", "xtile_passes", "ttir", "ttgir", "llir", "triton_passes", "mlir_passes")
)


def kernel_stem(stem: str) -> str:
    """The kernel named by the part of a file name before its level:
    ``add_fusion.1_kernel_module`` and ``__compute_module_add_fusion.1`` name
    ``add_fusion.1``; a bare name names itself."""
    if stem.startswith(_COMPUTE_MODULE):
        stem = stem[len(_COMPUTE_MODULE) :]
    m = _KERNEL_MODULE.match(stem)
    return m.group("name") if m else stem


def classify(rest: str) -> tuple[str | None, str, str] | None:
    """(kernel name or None for a file of many kernels, level, shard) for the
    part of a file name after ``module_NNNN.<module>.``; None: not a kernel's file."""
    name = rest
    if name.startswith("obj-file.") and name.endswith(".o"):
        stem = name[len("obj-file.") : -2]
        if _MODULE_WIDE.match(stem):
            return None, OBJECT, stem
        return kernel_stem(stem), OBJECT, ""
    dotted = "." + name
    m = _LLVM_IR.search(dotted)
    if m:
        level = "ir_no_opt" if m.group(1) == "no" else "ir_with_opt"
        stem = dotted[: m.start()].lstrip(".")
        part = m.group(2) or ""
        if _MODULE_WIDE.match(stem):
            return None, level, stem or part
        return kernel_stem(stem), level, ""
    for suffix, level in _SUFFIXES:
        if dotted.endswith(suffix):
            stem = dotted[: -len(suffix)].lstrip(".")
            if _MODULE_WIDE.match(stem):
                if level in _SINGLE_KERNEL_LEVELS:
                    return None  # a module's .hlo, a pass log of no kernel: not ours
                return None, level, stem
            return kernel_stem(stem), level, ""
    return None


def _suffix(module: DumpModule, f: DumpFile) -> str | None:
    """The part of a file name after ``module_NNNN.<name>.`` (None: not one of its)."""
    name = f.name
    prefix = f"module_{module.id:04d}."
    at = name.find(prefix)
    if at < 0:
        return None
    rest = name[at + len(prefix) :]
    if module.name and rest.startswith(module.name + "."):
        rest = rest[len(module.name) + 1 :]
    return rest


def _loose_suffix(module: DumpModule, f: DumpFile) -> str | None:
    """The part after ``<module name>.`` of a file XLA wrote without the
    ``module_NNNN.`` prefix (Triton's pass logs), in the module's own folder."""
    if not module.name or posixpath.dirname(f.rel) != module.dump:
        return None
    if not f.name.startswith(module.name + "."):
        return None
    return f.name[len(module.name) + 1 :]


def module_levels(module: DumpModule, loose: Iterable[DumpFile] = ()) -> ModuleLevels:
    """The module's levels from its files' names. ``loose``: files of the dump
    no module claimed (`DumpIndex.unrecognized`), among which Triton's pass
    logs, named after the module but without its ``module_NNNN.`` prefix."""
    stablehlo = None
    kernels: dict[str, KernelFiles] = {}
    shards: dict[str, KernelFiles] = {}
    unassigned: list[DumpFile] = []
    for f in module.other_files:
        if f.name == "module.mlir" and "/" in f.rel:
            stablehlo = stablehlo or f
            continue
        rest = _suffix(module, f)
        if rest is None:
            continue
        found = classify(rest)
        if found is None:
            if rest.endswith((".ll", ".ptx", ".o", ".spv")):
                unassigned.append(f)
            continue
        kernel, level, shard = found
        if kernel is None:
            shards.setdefault(shard, KernelFiles()).add(level, f)
        else:
            kernels.setdefault(kernel, KernelFiles()).add(level, f)
    for f in loose:
        rest = _loose_suffix(module, f)
        found = classify(rest) if rest is not None else None
        if found is not None and found[0] is not None:
            kernels.setdefault(found[0], KernelFiles()).add(found[1], f)
    # The module's own IR first, then its shards; the constants module last.
    order = sorted(shards, key=lambda s: (s == "constants", s != "", s))
    return ModuleLevels(
        stablehlo, kernels, [shards[s] for s in order], unassigned, backend=module.backend
    )


# -- the functions of a file of many kernels ---------------------------------------

# function name -> level -> the module-wide file that defines it
ModuleFunctions = dict[str, dict[str, DumpFile]]

_DEFINE = re.compile(r'define\b([^@\n]*)@("(?:[^"\\\n]|\\.)*"|[-\w.$]+)\(')
_ENTRY = re.compile(r"(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w.$]+)\s*\(")
_HIDDEN_LINKAGE = ("internal", "private", "available_externally")


def defined_functions(text: str, level: str) -> list[str]:
    """The kernels a file of many defines: LLVM IR's ``define``s other than
    internal helpers; PTX's ``.entry``s. Found with ``str.find`` (a regex over
    tens of MB would hold the GIL for its whole search)."""
    names: list[str] = []
    if level in ("ptx", "amdgcn"):
        needle, pattern = ".entry ", _ENTRY
    else:
        needle, pattern = "define ", _DEFINE
    at = text.find(needle)
    while at >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        m = pattern.match(line.lstrip())
        if m:
            if pattern is _ENTRY:
                names.append(m.group(1))
            elif not any(word in m.group(1).split() for word in _HIDDEN_LINKAGE):
                names.append(m.group(2).strip('"'))
        at = text.find(needle, line_end if line_end >= 0 else len(text))
    return names


def module_functions(
    levels: ModuleLevels, read: Callable[[Path], str] = read_text
) -> ModuleFunctions:
    """Which kernel functions the module's files of many kernels define (GPU
    module IR and PTX, XLA:CPU's parts). Reads those files: off the GUI thread."""
    out: ModuleFunctions = {}
    for files in levels.module_ir:
        here: set[str] = set()
        for level, f in files.levels():
            try:
                text = read(f.path)
            except (XlaviewError, OSError):
                continue  # unreadable: a listed problem elsewhere, no kernel here
            for name in defined_functions(text, level):
                out.setdefault(name, {}).setdefault(level, f)
                here.add(name)
        if files.object is not None:  # the object file of the same part holds them
            for name in here:
                out[name].setdefault(OBJECT, files.object)
    return out


# -- a kernel's arguments --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KernelArgument:
    index: int
    value: str  # "%5"
    dereferenceable: int | None  # bytes LLVM was told the buffer has


# Numbers as LLVM prints an i32 index and an i64 size: at most 10 and 20 digits
# (a longer run is damage, and never reaches int()).
_ARG_LOAD = re.compile(
    r"(%\w+) = getelementptr inbounds %XLA_CPU_KernelArg, ptr %\w+, i32 (\d{1,10}), i32 0\n"
    r"\s*(%\w+) = load ptr, ptr \1[^\n]*?(?:!dereferenceable !(\d{1,20}))?\n"
)
_METADATA_INT = re.compile(r"^!(\d{1,20}) = !\{i64 (\d{1,20})\}", re.MULTILINE)


def kernel_arguments(ir: str, kernel: str) -> list[KernelArgument]:
    """The buffers an XLA:CPU kernel reads from its call frame, in argument order.

    XLA passes a fusion's operands first, then its result buffer(s); LLVM's
    ``dereferenceable`` metadata gives each buffer's size in bytes.
    """
    at = -1
    for name in function_names(kernel):
        at, _ = _definition(ir, f"@{name}(", ("define",))
        if at >= 0:
            break
    if at < 0:
        return []
    body = ir[at : ir.find("\n}", at)]
    args = []
    for m in _ARG_LOAD.finditer(body + "\n"):
        meta = m.group(4)
        args.append(
            KernelArgument(int(m.group(2)), m.group(3), _metadata_int(ir, meta) if meta else None)
        )
    return args


def _metadata_int(ir: str, node: str) -> int | None:
    """The value of ``!N = !{i64 V}`` (metadata sits at the end of the file)."""
    at = ir.rfind(f"\n!{node} = !{{i64 ")
    if at < 0:
        return None
    m = _METADATA_INT.match(ir, at + 1)
    return int(m.group(2)) if m else None


def function_names(kernel: str) -> tuple[str, ...]:
    """The names XLA:CPU gives the entry of a kernel named ``kernel``: the name
    itself, ``<name>_kernel`` (elemental kernels), ``<op>_kernel`` for a small
    call's ``<op>_computation``."""
    names = [kernel, f"{kernel}_kernel"]
    if kernel.endswith("_computation"):
        names.append(f"{kernel[: -len('_computation')]}_kernel")
    return tuple(names)


_DEFINES = ("define", "func.func", "llvm.func", "tt.func")


def function_line(ir: str, name: str) -> int | None:
    """The 1-based line where ``@name`` (IR, MLIR) or ``.entry name`` (PTX) is
    defined (or the entry XLA:CPU derives from ``name``: `function_names`)."""
    for candidate in function_names(name):
        for needle, starts in (
            (f"@{candidate}(", _DEFINES),
            (f" {candidate}(", (".visible .entry", ".entry")),
        ):
            at, line_start = _definition(ir, needle, starts)
            if at >= 0:
                return count_newlines(ir, 0, line_start) + 1
    return None


def _definition(ir: str, needle: str, starts: tuple[str, ...]) -> tuple[int, int]:
    """(offset of ``needle``, offset of its line) where the line, indentation
    aside, starts with one of ``starts`` before it: (-1, -1) if nowhere."""
    # str.find, not a regex over the whole file: IR runs to tens of MB, and a
    # regex holds the GIL (and so the window) for its whole search.
    at = ir.find(needle)
    while at >= 0:
        line_start = ir.rfind("\n", 0, at) + 1
        if ir[line_start:at].lstrip().startswith(starts):
            return at, line_start
        at = ir.find(needle, at + 1)
    return -1, -1
