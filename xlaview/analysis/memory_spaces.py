"""What the ``S(n)`` of a layout means, and which spaces are main memory.

Sources:

* ``S(0)``: the default memory space, device memory (HBM on GPU and TPU, RAM
  on CPU): ``Layout::kDefaultMemorySpace = 0`` in `xla/layout.h`.
* ``S(1)``: ``Layout::kGenericFastMemorySpace = 1`` in `xla/layout.h`. On TPU it
  is VMEM (openxla.org/xla/shapes, "Memory space identifiers"; also the colour
  of ``MemorySpace.VMEM`` in jax's `jax/_src/tpu_custom_call.py`). XLA:GPU uses
  1 for collective memory, buffers NCCL registers, which are still in HBM
  (``kCollectiveMemorySpaceColor = 1``, `xla/service/gpu/gpu_memory_space_assignment.h`).
* ``S(2)``: TPU semaphore memory, the sync flags of DMAs and barriers (colour of
  ``MemorySpace.SEMAPHORE_MEM`` in `jax/_src/tpu_custom_call.py`; in TPU dumps it
  is the ``u32[]`` element of a ``copy-start``).
* ``S(4)``: TPU SMEM, the scalar core's memory (``MemorySpace.SMEM`` there).
* ``S(5)``: host memory, ``Layout::kHostMemorySpace = 5`` in `xla/layout.h`
  (jax's ``pinned_host`` memory kind; ``MemorySpace.HOST`` in tpu_custom_call).
* ``S(6)``: no public source names it. TPU dumps put scalar loop counters and
  branch predicates there (``s32[]{:T(128)S(6)}``), so it is shown as TPU scalar
  memory, marked as inferred.
* ``S(8)``: SparseCore scalar semaphore memory (``SC_SCALAR_SEMAPHORE_MEM``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from xlaview.hlo import Module, Shape


@dataclass(frozen=True, slots=True)
class MemorySpace:
    """One memory space: its number, a short name, a sentence, and whether its
    bytes travel to and from main memory (count as HBM traffic)."""

    number: int
    name: str
    description: str
    main_memory: bool

    @property
    def label(self) -> str:
        """``S(1) VMEM``; the default space is just its name."""
        return self.name if self.number == 0 else f"S({self.number}) {self.name}"


_TPU = {
    1: MemorySpace(1, "VMEM", "TPU vector memory, on chip", False),
    2: MemorySpace(2, "sync flags", "TPU semaphore memory (DMA and barrier flags), on chip", False),
    4: MemorySpace(4, "SMEM", "TPU scalar memory, on chip", False),
    6: MemorySpace(
        6,
        "scalar memory",
        "TPU on-chip scalar memory (inferred: holds scalar "
        "loop counters and predicates; no public definition)",
        False,
    ),
    8: MemorySpace(8, "SparseCore flags", "TPU SparseCore scalar semaphore memory", False),
}
_GPU = {1: MemorySpace(1, "collective", "GPU collective memory (NCCL-registered, in HBM)", True)}
_ANY = {
    1: MemorySpace(
        1, "fast memory", "alternate fast memory (TPU: VMEM; GPU: collective memory in HBM)", False
    ),
    5: MemorySpace(5, "host", "host memory (pinned host RAM)", False),
}


@lru_cache(maxsize=256)
def memory_space(number: int | None, platform: str | None = None) -> MemorySpace:
    """The meaning of ``S(number)`` on ``platform`` (``tpu``, ``gpu``, ``cpu`` or None)."""
    number = number or 0
    if number == 0:
        name = {"cpu": "RAM", "gpu": "HBM", "tpu": "HBM"}.get(platform or "", "device memory")
        return MemorySpace(0, name, "default memory space (HBM on GPU and TPU, RAM on CPU)", True)
    table = _TPU if platform == "tpu" else _GPU if platform == "gpu" else {}
    found = table.get(number) or _ANY.get(number) or _TPU.get(number)
    if found is not None:
        return found
    return MemorySpace(number, "unknown", f"memory space {number}, not documented", False)


def shape_memory_space(shape: Shape) -> int:
    """The ``S(n)`` of an array shape (0 when its layout names none)."""
    return (shape.layout.memory_space or 0) if shape.layout else 0


_GPU_MARKS = ("__cublas", "__cudnn", "__triton", "operation_queue_id")
# XLA:CPU's own: its backend config's loop partitions, its library fusions and calls.
_CPU_MARKS = ("outer_dimension_partitions", "__ynn_fusion", "__onednn$")


def memory_platform(module: Module) -> str | None:
    """``tpu`` when the module's entry uses tiled layouts (TPU's), ``gpu`` when
    it calls cuBLAS/cuDNN or carries GPU backend configs, ``cpu`` when it
    carries XLA:CPU's (`_CPU_MARKS`), else None.

    That is all memory-space names need: ``S(1)`` is on-chip VMEM on TPU and
    collective memory (in HBM) on GPU. Looks at the first entry instructions only.
    """
    entry = module.entry
    if entry is None:
        return None
    gpu = cpu = False
    for instr in entry.instructions[:512]:
        for leaf in instr.shape.leaves():
            if leaf.layout is not None and leaf.layout.tiles:
                return "tpu"
        text = instr.attribute_text
        if text:
            gpu = gpu or any(mark in text for mark in _GPU_MARKS)
            cpu = cpu or any(mark in text for mark in _CPU_MARKS)
    return "gpu" if gpu else "cpu" if cpu else None
