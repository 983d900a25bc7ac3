"""The other levels of a module: the StableHLO XLA was given, and the kernels
it generated (LLVM IR before and after LLVM's optimizations, PTX, objects).

CPU dumps have files per kernel, named after the instruction they compute
(``<fusion>_kernel_module.ir-no-opt.ll``, ``__compute_module_<op>...``,
``obj-file.<kernel>.o``, and ``<op>_elemental_kernel_module`` in older XLA).
GPU dumps put every kernel of a module in one ``.ll`` / ``.ptx`` file (or one
per compilation shard); a kernel is then a function of it named after its
fusion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xlaview.dump.records import DumpFile, DumpModule
from xlaview.text.lines import count_newlines

# The levels a kernel can be read at, in the order XLA produces them, with
# their titles: XLA:CPU's MLIR emitters write three MLIR stages before LLVM IR;
# NVIDIA GPU dumps add PTX. An object file is listed, never shown.
KERNEL_LEVELS: tuple[tuple[str, str], ...] = (
    ("mlir_pre_optimization", "MLIR before opt"),
    ("mlir_post_optimization", "MLIR after opt"),
    ("mlir_post_lowering", "MLIR lowered"),
    ("ir_no_opt", "LLVM IR before opt"),
    ("ir_with_opt", "LLVM IR after opt"),
    ("ptx", "PTX"),
)
_MLIR_LEVEL = {
    "-pre-optimization.mlir": "mlir_pre_optimization",
    "-post-optimization.mlir": "mlir_post_optimization",
    "-post-lowering.mlir": "mlir_post_lowering",
}


@dataclass(slots=True)
class KernelFiles:
    ir_no_opt: DumpFile | None = None
    ir_with_opt: DumpFile | None = None
    ptx: DumpFile | None = None
    object: DumpFile | None = None
    mlir: list[DumpFile] = field(default_factory=list)  # XLA's MLIR emitter stages

    def level(self, key: str) -> DumpFile | None:
        """The file of one of `KERNEL_LEVELS` (None if this kernel has none)."""
        if key.startswith("mlir_"):
            return next((f for f in self.mlir if _mlir_level(f.name) == key), None)
        return getattr(self, key, None) if key in _TEXT_LEVELS else None

    def levels(self) -> list[tuple[str, DumpFile]]:
        """(level, file) for each level this kernel has, in `KERNEL_LEVELS` order."""
        found = [(key, self.level(key)) for key, _ in KERNEL_LEVELS]
        return [(key, f) for key, f in found if f is not None]

    def paths(self) -> dict[str, str | None]:
        """The ``inspect --json`` "kernel" object (paths relative to the dump root)."""
        return {
            "ir_no_opt": self.ir_no_opt.rel if self.ir_no_opt else None,
            "ir_with_opt": self.ir_with_opt.rel if self.ir_with_opt else None,
            "ptx": self.ptx.rel if self.ptx else None,
            "object": self.object.rel if self.object else None,
        }

    def __bool__(self) -> bool:
        return any((self.ir_no_opt, self.ir_with_opt, self.ptx, self.object, self.mlir))


_TEXT_LEVELS = {"ir_no_opt", "ir_with_opt", "ptx"}


def _mlir_level(name: str) -> str | None:
    return next((level for end, level in _MLIR_LEVEL.items() if name.endswith(end)), None)


@dataclass(slots=True)
class ModuleLevels:
    stablehlo: DumpFile | None
    kernels: dict[str, KernelFiles]  # instruction name -> its kernel's files
    module_ir: list[KernelFiles]  # GPU: whole-module (or per-shard) IR and PTX
    unassigned: list[DumpFile]  # kernel-like files whose instruction is unknown

    @property
    def kernel_levels(self) -> tuple[str, ...]:
        """The `KERNEL_LEVELS` this module's kernels can be read at, in order:
        what its backend wrote (no PTX on CPU or ROCm, no MLIR stages on GPU,
        nothing on TPU)."""
        present = {
            key for files in [*self.kernels.values(), *self.module_ir] for key, _ in files.levels()
        }
        return tuple(key for key, _ in KERNEL_LEVELS if key in present)

    def kernel_of(self, instruction: str) -> KernelFiles | None:
        """Per-kernel files, else the module's IR (GPU: the kernel is a function in it)."""
        files = self.kernels.get(instruction)
        if files:
            return files
        return self.module_ir[0] if self.module_ir else None


_KERNEL = re.compile(
    r"^(?:obj-file\.)?(?:__compute_module_(?P<compute>.+?)|(?P<kernel>.+?)(?:_elemental)?_kernel_module)"
    r"(?P<stage>\.ir-no-opt(?:\.part_\d+)?\.ll|\.ir-with-opt(?:\.part_\d+)?\.ll|\.o"
    r"|-pre-optimization\.mlir|-post-optimization\.mlir|-post-lowering\.mlir)$"
)
_MODULE_IR = re.compile(
    r"^(?:(?P<shard>[\w.\-]+)\.)?(?P<stage>ir-no-opt\.ll|ir-with-opt\.ll|ptx|spv)$"
)


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


def module_levels(module: DumpModule) -> ModuleLevels:
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
        m = _KERNEL.match(rest)
        if m:
            instruction = m.group("compute") or m.group("kernel")
            files = kernels.setdefault(instruction, KernelFiles())
            stage = m.group("stage")
            if stage.startswith(".ir-no-opt"):
                files.ir_no_opt = files.ir_no_opt or f
            elif stage.startswith(".ir-with-opt"):
                files.ir_with_opt = files.ir_with_opt or f
            elif stage == ".o":
                files.object = f
            else:
                files.mlir.append(f)
            continue
        m = _MODULE_IR.match(rest)
        if m:
            shard = m.group("shard") or ""
            files = shards.setdefault(shard, KernelFiles())
            stage = m.group("stage")
            if stage == "ir-no-opt.ll":
                files.ir_no_opt = f
            elif stage == "ir-with-opt.ll":
                files.ir_with_opt = f
            else:
                files.ptx = f
            continue
        if rest.endswith((".ll", ".ptx", ".o", ".spv")):
            unassigned.append(f)
    # The module's own IR first, then its shards; the constants module last.
    order = sorted(shards, key=lambda s: (s == "constants", s != "", s))
    return ModuleLevels(stablehlo, kernels, [shards[s] for s in order], unassigned)


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
    at, _ = _definition(ir, f"@{kernel}(", ("define",))
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


def function_line(ir: str, name: str) -> int | None:
    """The 1-based line where ``@name`` (IR) or ``.entry name`` (PTX) is defined."""
    for needle, starts in (
        (f"@{name}(", ("define",)),
        (f" {name}(", (".visible .entry", ".entry")),
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
