"""The kernel an op runs, and for an op with none of its own, why.

A kernel file is an op's only when XLA's emitters named it after that op
(`xlaview.dump.kernels` reads the names): XLA:CPU names a kernel after its
instruction (``<op>_kernel_module``, ``__compute_module_<op>``, ``<op>``; a
small call's ``<op>_computation``); XLA:GPU names a kernel function after its
fusion with ``.`` and ``-`` made ``_``; XLA compiles a fusion identical to one
already compiled once (the kernel reuse of both backends' emitters), so such a
fusion runs its twin's kernel, named after the twin.

An op with no kernel of its own says which of these it is: a library call
(YNNPACK, oneDNN, Eigen, cuBLAS, cuDNN... run it), inside its caller's kernel
(a fusion's body, a reducer, a comparator), a no-op (a bitcast, a tuple, a
parameter), control flow or work of the runtime (loops, collectives, copies),
or a kernel the dump does not hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from xlaview.analysis.kinds import custom_call_target, custom_fusion_kind, fusion_kind
from xlaview.dump.kernels import (
    KernelFiles,
    KernelStage,
    ModuleFunctions,
    ModuleLevels,
    stage_order,
)
from xlaview.hlo import Computation, Instruction, Module
from xlaview.hlo.parse.parsed import ParsedComputation

# Why an op has no kernel of its own.
LIBRARY_CALL = "library-call"
INSIDE_CALLER = "inside-caller"
NO_OP = "no-op"
CONTROL_FLOW = "control-flow"
RUNTIME = "runtime"
NOT_DUMPED = "not-dumped"
REASON_KINDS = (LIBRARY_CALL, INSIDE_CALLER, NO_OP, CONTROL_FLOW, RUNTIME, NOT_DUMPED)


@dataclass(frozen=True, slots=True)
class OpKernel:
    """The kernel of one instruction: its files in pipeline order (`stages`),
    or why it has none (`reason`, one of `REASON_KINDS` in `reason_kind`)."""

    instruction: str
    name: str | None = None  # the kernel's name in its files
    stages: tuple[KernelStage, ...] = ()
    shared_with: str | None = None  # the identical fusion the kernel is named after
    note: str | None = None  # what the files are, when not plainly the op's kernel
    reason: str | None = None
    reason_kind: str | None = None
    pending: bool = False  # the module's files of many kernels are not read yet

    def __bool__(self) -> bool:
        return bool(self.stages)

    def stage(self, level: str) -> KernelStage | None:
        return next((s for s in self.stages if s.level == level), None)

    @property
    def levels(self) -> tuple[str, ...]:
        return tuple(s.level for s in self.stages)

    def files(self) -> KernelFiles:
        """The stages as one file per level."""
        files = KernelFiles()
        for s in self.stages:
            files.add(s.level, s.file)
        return files

    def to_json(self) -> dict[str, Any]:
        """The ``inspect --json`` "kernel" object: the four paths it always had,
        then the stages in order, the kernel's name, and why there are none."""
        return {
            **self.files().paths(),
            "function": self.name,
            "stages": [s.to_json() for s in self.stages],
            "note": self.note,
            "reason": self.reason,
            "reason_kind": self.reason_kind,
        }


def sanitized(name: str) -> str:
    """The kernel name XLA:GPU gives an instruction (LLVM's function names:
    ``loop_add_fusion.1`` -> ``loop_add_fusion_1``)."""
    return re.sub(r"[^\w]", "_", name)


_EMPTY = ModuleLevels(None, {}, [], [])

# Ops no code runs for: XLA:CPU's thunk emitter emits nothing for them, and
# XLA:GPU neither (their results are views of buffers or ordering edges).
_NO_OPS = {
    "parameter": "a parameter: its buffer is the caller's; no code runs for it",
    "constant": "a constant: its value is stored in the executable; no code runs for it",
    "bitcast": "a bitcast: a new view of its operand's buffer; no code runs for it",
    "get-tuple-element": "an element of a tuple: a buffer's address; no code runs for it",
    "tuple": "a tuple: the addresses of its elements' buffers; no code runs for it",
    "after-all": "an ordering token; no code runs for it",
    "add-dependency": "an ordering edge; no code runs for it",
    "opt-barrier": "an optimization barrier: an ordering edge; no code runs for it",
    "domain": "a sharding domain marker; no code runs for it",
}
_COLLECTIVE_PREFIXES = (
    "all-reduce", "all-gather", "all-to-all", "reduce-scatter", "collective-permute",
    "collective-broadcast", "ragged-all-to-all",
)  # fmt: skip
_RUNTIME_OPS = {
    "infeed": "the runtime feeds it from the host",
    "outfeed": "the runtime sends it to the host",
    "send": "the runtime sends it",
    "send-done": "the runtime waits for its send",
    "recv": "the runtime receives it",
    "recv-done": "the runtime waits for its receive",
    "replica-id": "the runtime writes the replica's id",
    "partition-id": "the runtime writes the partition's id",
    "rng-get-and-update-state": "the runtime updates the random generator's state",
    "copy-start": "the runtime starts the copy (a DMA)",
    "copy-done": "the runtime waits for its copy-start",
}
# (word in a custom call's target or a kCustom fusion's kind, the library)
_LIBRARIES = (
    ("ynn", "YNNPACK"), ("xnn", "XNNPACK"), ("onednn", "oneDNN"),
    ("cudnn", "cuDNN (MIOpen on ROCm)"), ("cublas$lt", "cuBLASLt (hipBLASLt on ROCm)"),
    ("cublas", "cuBLAS (rocBLAS on ROCm)"), ("hipblaslt", "hipBLASLt"),
    ("rocblas", "rocBLAS"), ("miopen", "MIOpen"), ("lapack", "LAPACK"), ("ducc", "DUCC"),
    ("cusolver", "cuSOLVER"), ("cufft", "cuFFT"), ("cutlass", "CUTLASS"), ("eigen", "Eigen"),
)  # fmt: skip
_CPU_LIBRARY_OPS = {
    "dot": "Eigen's matrix multiply (XLA:CPU's DotThunk)",
    "convolution": "Eigen's convolution (XLA:CPU's ConvolutionThunk)",
    "fft": "DUCC's FFT (XLA:CPU's FftThunk)",
    "triangular-solve": "Eigen's triangular solve",
    "cholesky": "LAPACK's Cholesky factorization",
}
_GPU_LIBRARY_OPS = {
    "dot": "cuBLAS or hipBLASLt (a GEMM)",
    "convolution": "cuDNN or MIOpen",
    "fft": "cuFFT or hipFFT",
    "triangular-solve": "cuBLAS's or rocBLAS's triangular solve",
    "cholesky": "cuSOLVER or rocSOLVER",
}


_NOT_FINAL = (
    "the files of the op of this name in the module XLA compiled (its HLO after "
    "optimizations), not of this pass"
)


def op_kernel(
    module: Module,
    name: str,
    levels: ModuleLevels | None,
    functions: ModuleFunctions | None = None,
    final: bool = True,
) -> OpKernel:
    """The kernel of ``name`` in ``module`` (KeyError if there is no such op).

    ``functions``: what the module's files of many kernels define
    (`module_functions`); without it an op that may have its kernel there is
    `OpKernel.pending`. ``final``: ``module`` is the one XLA compiled (its
    after-optimizations dump); for an earlier pass only the files named after
    an op are its, and no reason is given from what XLA does to the op later.
    """
    comp, instr = module.find(name)
    levels = levels or _EMPTY
    inside = _inside_caller(module, comp.name)
    if inside is not None:
        return OpKernel(name, reason=inside, reason_kind=INSIDE_CALLER)
    if instr.opcode in _NO_OPS:
        return OpKernel(name, reason=_NO_OPS[instr.opcode], reason_kind=NO_OP)
    kernel, stages, note = _own_stages(module, instr, levels, functions)
    if stages:
        return OpKernel(name, kernel, stages, note=note if final else _NOT_FINAL)
    if functions is None and any(levels.module_ir):
        return OpKernel(
            name, pending=True, reason="reading the module's IR for its kernel…", reason_kind=None
        )
    twin = _twin(module, instr, levels, functions)
    if twin is not None:
        other, (kernel, stages, note) = twin
        return OpKernel(name, kernel, stages, shared_with=other, note=note if final else _NOT_FINAL)
    if not final:
        return OpKernel(
            name,
            reason=(
                "no kernel file is named after it; kernels are those of the module XLA "
                "compiled (its HLO after optimizations), not of this pass"
            ),
            reason_kind=NOT_DUMPED,
        )
    kind, reason = _without_kernel(module, instr, levels)
    return OpKernel(name, reason=reason, reason_kind=kind)


# -- the op's own files ------------------------------------------------------------


def _names(module: Module, instr: Instruction) -> list[str]:
    """The kernel names XLA gives this op's kernel, in files and functions: its
    name; as XLA:GPU writes it and, for a call, XLA:CPU's small call's name,
    unless another op is called so."""
    names = [instr.name]
    derived = [sanitized(instr.name)]
    if instr.opcode == "call":
        derived.append(f"{instr.name}_computation")  # XLA:CPU's small calls
    names += [n for n in derived if n != instr.name and not _has(module, n)]
    return list(dict.fromkeys(names))


def _own_stages(
    module: Module, instr: Instruction, levels: ModuleLevels, functions: ModuleFunctions | None
) -> tuple[str | None, tuple[KernelStage, ...], str | None]:
    """(kernel name, stages, note) of the files named after ``instr``."""
    found: dict[str, KernelStage] = {}
    kernel: str | None = None
    names = _names(module, instr)
    for candidate in names:
        files = levels.kernels.get(candidate)
        if not files:
            continue
        kernel = kernel or candidate
        for stage in files.stages(kernel):
            found.setdefault(stage.level, stage)
    note = None
    function_names = list(names)
    comparator = _comparator(instr) if instr.opcode == "sort" else None
    if comparator:
        function_names.append(comparator)
    for candidate in function_names if functions else ():
        assert functions is not None
        defined = functions.get(candidate)
        if not defined:
            continue
        kernel = kernel or candidate
        for level, f in defined.items():
            found.setdefault(level, KernelStage(level, f, candidate))
        if candidate == comparator:
            note = (
                f"the comparator {candidate} the runtime's sort calls (XLA:CPU sorts in a "
                "SortThunk), compiled with the module's other functions"
            )
        break
    stages = tuple(sorted(found.values(), key=lambda s: stage_order(s.level)))
    return kernel, stages, note


def _comparator(instr: Instruction) -> str | None:
    called = instr.called_computations
    return called[0] if called else None


# -- a fusion compiled once for its identical twin ----------------------------------

# Kernel name (the name, and as XLA:GPU writes it) -> fusion, for the last few
# modules asked about (a module takes no weak reference; keyed by identity and
# text size, and a stale entry only names candidates, each checked).
_FUSIONS_BY_KERNEL: dict[tuple[int, int], dict[str, str]] = {}


def _fusions_by_kernel(module: Module) -> dict[str, str]:
    """Read from the names and opcodes of each computation (builds no instruction)."""
    key = (id(module), len(module.text))
    found = _FUSIONS_BY_KERNEL.get(key)
    if found is None:
        fusions = [
            name
            for comp in module.computations
            for name, opcode in zip(comp.instruction_names(), comp.opcodes(), strict=False)
            if opcode == "fusion"
        ]
        found = {name: name for name in fusions}
        for name in fusions:  # an exact name first: another op's name made a C name
            found.setdefault(sanitized(name), name)
        while len(_FUSIONS_BY_KERNEL) >= 4:
            _FUSIONS_BY_KERNEL.pop(next(iter(_FUSIONS_BY_KERNEL)))
        _FUSIONS_BY_KERNEL[key] = found
    return found


_Named = tuple[frozenset[str], tuple[str, ...], tuple[tuple[str, str], ...]]

# Per instruction: opcode, shape, operand positions (-1: not in the body), payload, fusion kind.
_Signature = tuple[tuple[str, str, tuple[int, ...], str | None, str | None], ...]


def _body_signature(module: Module, computation: str) -> _Signature:
    comp = module.computation(computation)
    index = {i.name: k for k, i in enumerate(comp.instructions)}
    return tuple(
        (
            i.opcode,
            str(i.shape),
            tuple(index.get(o, -1) for o in i.operand_names),
            i.payload,
            i.fusion_kind,
        )
        for i in comp.instructions
    )


def _body(module: Module, instr: Instruction) -> str | None:
    called = instr.called_computations
    if instr.opcode == "fusion" and called and module.has_computation(called[0]):
        return called[0]
    return None


def _twin(
    module: Module, instr: Instruction, levels: ModuleLevels, functions: ModuleFunctions | None
) -> tuple[str, tuple[str | None, tuple[KernelStage, ...], str | None]] | None:
    """The fusion with the same body whose kernel ``instr`` runs, and that kernel."""
    body = _body(module, instr)
    if body is None:
        return None
    comp = module.computation(body)
    size, root = len(comp.instructions), comp.root
    signature: _Signature | None = None
    by_kernel = _fusions_by_kernel(module)
    owners = [*levels.kernels, *(functions or ())]
    seen: set[str] = {instr.name}
    for owner in owners:
        twin_name = by_kernel.get(owner)
        if twin_name is None or twin_name in seen:
            continue
        seen.add(twin_name)
        try:
            twin = module.instruction(twin_name)
        except KeyError:
            continue
        twin_body = _body(module, twin)
        if twin_body is None:
            continue
        other = module.computation(twin_body)
        if len(other.instructions) != size or (
            root is not None and (other.root is None or str(other.root.shape) != str(root.shape))
        ):
            continue
        signature = signature or _body_signature(module, body)
        if _body_signature(module, twin_body) != signature:
            continue
        kernel, stages, note = _own_stages(module, twin, levels, functions)
        if stages:
            return twin.name, (kernel, stages, note)
    return None


# -- why there is none ---------------------------------------------------------------


def _inside_caller(module: Module, computation: str) -> str | None:
    """Why the ops of ``computation`` run inside their caller's kernel (None:
    they do not): a fusion's body, a reducer, a comparator, a small call's
    computation, or a loop or branch inside one of these (followed out, level
    by level: a module may nest calls ten thousand deep)."""
    seen: set[str] = set()
    while computation not in seen:
        seen.add(computation)
        comp = module.computation(computation)
        if comp.is_entry or comp is module.entry:
            return None
        callers = module.callers(computation)
        if not callers:
            return None
        caller = callers[0]
        op = caller.opcode
        if op == "fusion":
            library = _fusion_library(caller)
            if library:
                return f"inside the fusion {caller.name}, which {library} runs (a library call)"
            return f"inside the kernel of its fusion, {caller.name}"
        if op == "call" and caller.frontend_attributes.get("xla_cpu_small_call") == "true":
            return f"inside the kernel of {caller.name} (XLA:CPU compiles a small call whole)"
        if op in ("while", "conditional", "call") or op.startswith("async-"):
            # Their bodies' ops run kernels of their own, unless the loop is itself inside one.
            try:
                outer, _ = module.find(caller.name)
            except KeyError:
                return None
            computation = outer.name
            continue
        if op == "sort":
            return f"inside {caller.name}'s comparator: the sort calls it for each comparison"
        if caller.attributes.get("to_apply", "").lstrip("%") == computation:
            return f"inside {caller.name}'s kernel: XLA inlines its to_apply computation"
        return f"inside {caller.name}, which calls this computation ({op})"
    return None


def _library(text: str) -> str | None:
    lowered = text.lower()
    return next((name for word, name in _LIBRARIES if word in lowered), None)


def _fusion_library(instr: Instruction) -> str | None:
    """The library a kCustom fusion is handed to (None: XLA emits it, as Triton's)."""
    if fusion_kind(instr) != "kCustom":
        return None
    kind = custom_fusion_kind(instr) or ""
    if kind.startswith("__triton"):
        return None
    return _library(kind) or (f"the {kind} backend" if kind else "a library")


def _without_kernel(module: Module, instr: Instruction, levels: ModuleLevels) -> tuple[str, str]:
    """(reason kind, reason) for an op no kernel file is named after."""
    op = instr.opcode
    backend = levels.backend
    if op == "fusion":
        library = _fusion_library(instr)
        if library:
            kind = custom_fusion_kind(instr) or "kCustom"
            return LIBRARY_CALL, f"a library call: {library} runs this {kind} fusion"
    if op in ("custom-call", "custom-call-start"):
        target = custom_call_target(instr) or "?"
        library = _library(target)
        if target == "TopK":
            return RUNTIME, "XLA:CPU's runtime computes the top k (a TopKThunk), no kernel"
        by = f"{library} runs it" if library else "the runtime calls the function registered so"
        return LIBRARY_CALL, f"a library call: a custom call to {target}; {by}"
    libraries = _GPU_LIBRARY_OPS if backend == "gpu" else _CPU_LIBRARY_OPS
    if op in libraries and (backend in ("cpu", "gpu") or levels.has_kernels):
        return LIBRARY_CALL, f"a library call: {libraries[op]} runs this unfused {op}"
    if op == "while":
        return (
            CONTROL_FLOW,
            "a loop: the runtime runs its condition and body, whose ops have kernels",
        )
    if op == "conditional":
        return CONTROL_FLOW, "a conditional: the runtime runs one branch, whose ops have kernels"
    if op == "call":
        return CONTROL_FLOW, "a call: the runtime runs the called computation's kernels"
    if op.startswith("async-"):
        return CONTROL_FLOW, "an asynchronous wrapper: the kernel is the wrapped op's"
    if op.startswith(_COLLECTIVE_PREFIXES):
        by = "NCCL or RCCL" if backend == "gpu" else "the runtime's collectives"
        if op.endswith("-done"):
            return RUNTIME, f"waits for its {op[: -len('-done')]}-start; {by} moved the data"
        return RUNTIME, f"a collective: {by} run it; XLA emits no kernel for it"
    if op in _RUNTIME_OPS:
        return RUNTIME, _RUNTIME_OPS[op]
    if op == "copy" and backend in ("cpu", "gpu"):
        how = (
            "XLA:CPU copies it in its runtime (a CopyThunk: memcpy or transpose)"
            if backend == "cpu"
            else "the runtime copies it (a device-to-device memcpy)"
        )
        return RUNTIME, f"{how}, no kernel"
    if op == "sort" and backend == "cpu":
        return RUNTIME, "the runtime sorts (a SortThunk); its comparator is not in the dump"
    if not levels.has_kernels:
        return NOT_DUMPED, (
            "the dump holds no kernel files for this module (XLA writes them with "
            "--xla_dump_to on CPU and GPU; a TPU dump has none)"
        )
    triton = (custom_fusion_kind(instr) or "").startswith("__triton")
    how = (
        "; XLA writes a Triton fusion's files with --xla_dump_emitter_re=triton-fusion"
        if triton
        else ""
    )
    return NOT_DUMPED, f"no kernel file or function in the dump is named after it{how}"


def ops_with_kernels(
    module: Module, levels: ModuleLevels, functions: ModuleFunctions | None = None
) -> list[str]:
    """The ops of ``module`` a kernel file or function is named after, sorted
    (each kernel's op as `op_of_kernel` finds it).

    Asked of every pass a user steps to: what each computation holds of the
    kernels' names is kept with its parse, which the passes that did not
    change it share, so a step reads only the computations it changed."""
    kernels = [*levels.kernels, *(functions or ())]
    wanted = _wanted(kernels)
    exact: dict[str, str] = {}  # op -> its computation, the first definition
    fused: dict[str, tuple[str, str]] = {}  # a fusion's kernel name -> (fusion, computation)
    for comp in module.computations:
        names, fusions = _named_in(comp, wanted)
        for name in names:
            exact.setdefault(name, comp.name)
        for kernel_name, fusion in fusions:
            fused.setdefault(kernel_name, (fusion, comp.name))
    found: dict[str, str] = {}
    for kernel in kernels:
        for candidate in (kernel, kernel.removesuffix("_computation")):
            if candidate in exact:  # an exact name first (as `op_of_kernel`)
                found.setdefault(candidate, exact[candidate])
                break
            if candidate in fused:
                op, comp_name = fused[candidate]
                found.setdefault(op, comp_name)
                break
    return sorted(
        op for op, comp_name in found.items() if _inside_caller(module, comp_name) is None
    )


# The names a list of kernels may be of, for the last few lists (a step keeps
# the same set, by identity: `_NAMED_IN` is keyed by it).
_WANTED: dict[tuple[str, ...], frozenset[str]] = {}
# Per shared parse of a computation: (the wanted set it was read for, its
# instruction names in it, its fusions' (kernel name, fusion) in it).
_NAMED_IN: WeakKeyDictionary[ParsedComputation, _Named] = WeakKeyDictionary()


def _wanted(kernels: list[str]) -> frozenset[str]:
    key = tuple(kernels)
    wanted = _WANTED.get(key)
    if wanted is None:
        wanted = frozenset(kernels) | {k.removesuffix("_computation") for k in kernels}
        while len(_WANTED) >= 4:
            _WANTED.pop(next(iter(_WANTED)))
        _WANTED[key] = wanted
    return wanted


def _named_in(
    comp: Computation, wanted: frozenset[str]
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Which of ``wanted`` the instructions of ``comp`` are named, and which
    its fusions' kernels are named (XLA:GPU's sanitized names), building nothing."""
    parsed = comp.parsed
    named = _NAMED_IN.get(parsed) if parsed is not None else None
    if named is not None and named[0] is wanted:
        return named[1], named[2]
    names = comp.instruction_names()
    found = tuple(wanted.intersection(names))
    fusions = tuple(
        (kernel_name, name)
        for name, opcode in zip(names, comp.opcodes(), strict=False)
        if opcode == "fusion" and (kernel_name := sanitized(name)) in wanted and kernel_name != name
    )
    if parsed is not None:
        _NAMED_IN[parsed] = (wanted, found, fusions)
    return found, fusions


def op_of_kernel(module: Module, kernel: str) -> str | None:
    """The op a kernel name (as `ops_with_kernels` or a file gives it) is of."""
    for candidate in (kernel, kernel.removesuffix("_computation")):
        if _has(module, candidate):
            return candidate
        op = _fusions_by_kernel(module).get(candidate)
        if op is not None:
            return op
    return None


def _has(module: Module, name: str) -> bool:
    try:
        module.find(name)
    except KeyError:
        return False
    return True
