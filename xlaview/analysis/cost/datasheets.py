"""What accelerators can do, as their vendors publish it: peak FLOP/s per
precision, main-memory bandwidth and the interconnect of each chip xlaview
prices, with the documents every figure comes from (`Device.sources`, shown
in the window and in ``device_spec`` JSON).

Peaks are dense. NVIDIA prints its tensor-core rates "with sparsity" (2:4
structured sparsity doubles them): those are written here as printed, times
`SPARSE_TERA`, which halves them. ``interconnect_bandwidth`` is what one chip
sends to its peers at once over all its links, one direction; vendors print
totals counting both directions, written as printed times `BOTH_WAYS_GB`.
Where a vendor publishes no figure the field is None and the entry says so;
for the two China-market parts (H800, H20) NVIDIA publishes no datasheet at
all, and their entries name the secondary sources they rest on.

Which rate an op gets (`xlaview.analysis.cost.devices.peak_for`) and which chip
a dump was compiled for live in `devices`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

TERA = 1e12
SPARSE_TERA = TERA / 2  # a "TFLOPS with sparsity" figure: the dense rate is half
GIGA = 1e9
BOTH_WAYS_GB = GIGA / 2  # a "GB/s" total of both directions: one direction is half


@dataclass(frozen=True, slots=True)
class Device:
    """One accelerator's published peaks (or this machine's CPU, measured):
    FLOP/s per precision (None where the vendor publishes none), main-memory
    bandwidth in bytes/s and what that memory is, its interconnect, and the
    documents they come from."""

    name: str
    title: str
    platform: str
    bf16_flops: float  # bf16 and f16 on the matrix units
    memory_bandwidth: float
    f32_flops: float | None = None  # the vector units
    tf32_flops: float | None = None
    f64_flops: float | None = None  # the vector units
    fp8_flops: float | None = None
    int8_flops: float | None = None
    f64_matrix_flops: float | None = None  # FP64 on tensor/matrix cores, where the chip has them
    interconnect: str = ""  # "NVLink 4", "ICI", "Infinity Fabric"...; "" when none is known
    # Bytes/s one chip sends to the others at once over all its links, one
    # direction (what a ring collective's step is bound by); None: not known.
    interconnect_bandwidth: float | None = None
    # (working set up to, bytes/s), smallest first: a CPU's caches, measured
    # (between two, `bandwidth_for` goes from one rate to the other); a working
    # set past the last is served at ``memory_bandwidth``.
    cache_bandwidths: tuple[tuple[int, float], ...] = ()
    memory: str = "HBM"  # what main memory is called: "HBM", "GDDR6", "RAM"
    measured: str = ""  # how the figures were measured (a calibrated device); "": datasheets
    sources: tuple[str, ...] = ()  # "document, URL" of every figure above

    def bandwidth_for(self, working_set: int) -> float:
        """Bytes/s an op touching ``working_set`` bytes can stream at best: its
        tier's rate at the tier's size, and between two tiers' sizes a rate on
        the way from the smaller one's to the larger one's (log-linear in the
        working set). A cache does not stop serving at its size: on a 2-core
        machine whose tier past 4 MiB streamed 100 GB/s (its rate, measured at
        36 MB), a softmax's product of 4 MiB and 2 KiB streamed 160 GB/s. Past
        the last tier, ``memory_bandwidth``."""
        below: tuple[int, float] | None = None
        for size, bandwidth in self.cache_bandwidths:
            if working_set <= size:
                if below is None or working_set <= below[0]:
                    return bandwidth
                share = math.log(working_set / below[0]) / math.log(size / below[0])
                return float(below[1] * (bandwidth / below[1]) ** share)
            below = (size, bandwidth)
        return self.memory_bandwidth

    def rate(self, precision: str) -> tuple[float, str]:
        """(FLOP/s, the rate used) at ``precision``: ``bf16``, ``tf32``, ``f32``,
        ``f64``, ``f64_matrix``, ``fp8``, ``int8``, or ``bf16x3``/``bf16x6`` (an
        f32 product done in 3 or 6 bf16 passes: the bf16 peak over the passes).
        A rate the vendor does not publish falls back to the nearest one that is
        (``tf32`` to ``f32``, ``f64_matrix`` to ``f64``...; last, ``bf16``)."""
        return _rate(self, precision)

    def peak(self, precision: str) -> float:
        """FLOP/s at ``precision`` (the names of `rate`)."""
        return _rate(self, precision)[0]

    def ridge(self, precision: str = "bf16") -> float:
        """The arithmetic intensity (FLOP/byte) where compute and memory time meet."""
        return self.peak(precision) / self.memory_bandwidth

    def to_json(self) -> dict[str, Any]:
        """The ``device_spec`` object: figures as published, null where unknown."""
        spec: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "hbm_bytes_per_s": self.memory_bandwidth,  # main memory's, whatever it is
            "memory": self.memory,
            "interconnect": self.interconnect or None,
            "interconnect_bytes_per_s": self.interconnect_bandwidth,
            "peak_flops_per_s": {
                "bf16": self.bf16_flops,
                "tf32": self.tf32_flops,
                "f32": self.f32_flops,
                "f64": self.f64_flops,
                "f64_matrix": self.f64_matrix_flops,
                "fp8": self.fp8_flops,
                "int8": self.int8_flops,
            },
            "sources": list(self.sources),
        }
        if self.measured:
            spec["measured"] = self.measured
        return spec


_FALLBACKS = {
    "bf16": ("bf16",),
    "fp8": ("fp8", "bf16"),
    "int8": ("int8", "bf16"),
    "tf32": ("tf32", "f32", "bf16"),
    "f32": ("f32", "bf16"),
    "f64": ("f64", "f32", "bf16"),
    "f64_matrix": ("f64_matrix", "f64", "f32", "bf16"),
}
_BF16_PASSES = {"bf16x3": 3, "bf16x6": 6}


@lru_cache(maxsize=256)
def _rate(dev: Device, precision: str) -> tuple[float, str]:
    passes = _BF16_PASSES.get(precision)
    if passes:
        return dev.bf16_flops / passes, precision
    for name in _FALLBACKS.get(precision, ("bf16",)):
        value = getattr(dev, f"{name}_flops")
        if value:
            return value, name
    return dev.bf16_flops, "bf16"


# -- the documents --------------------------------------------------------------------

_H100_DATASHEET = (
    "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM, H100 PCIe and H100 NVL columns), "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
)
_HOPPER_WHITEPAPER = (
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (H100 SXM5 peak rates), "
    "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper"
)
_H100_PAGE = "NVIDIA H100 specifications, https://www.nvidia.com/en-us/data-center/h100/"
_H200_PAGE = (
    "NVIDIA H200 specifications (H200 SXM and H200 NVL), "
    "https://www.nvidia.com/en-us/data-center/h200/"
)
_GH200_PAGE = (
    "NVIDIA GH200 Grace Hopper Superchip specifications, "
    "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/"
)
_NVLINK_PAGE = (
    "NVIDIA NVLink and NVSwitch (NVLink 4: 900 GB/s per Hopper GPU), "
    "https://www.nvidia.com/en-us/data-center/nvlink/"
)
_HGX_PAGE = (
    "NVIDIA HGX platform specifications (HGX B200: eight GPUs' totals), "
    "https://www.nvidia.com/en-us/data-center/hgx/"
)
_DGX_B200 = (
    "NVIDIA DGX B200 datasheet (64 TB/s HBM3e for eight GPUs), "
    "https://resources.nvidia.com/en-us-dgx-systems/dgx-b200-datasheet"
)
_A100_DATASHEET = (
    "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe and SXM), https://www.nvidia.com/"
    "content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
)
_A100_40GB_DATASHEET = (
    "NVIDIA A100 Tensor Core GPU datasheet, 2020 (A100 40GB for NVLink and for PCIe), "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet.pdf"
)
_AMPERE_WHITEPAPER = (
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper (A100 40GB SXM4), "
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf"
)
_V100_DATASHEET = (
    "NVIDIA V100 Tensor Core GPU datasheet (V100 SXM2 and V100 PCIe), https://images.nvidia.com/"
    "content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
)
_L4_PAGE = "NVIDIA L4 Tensor Core GPU specifications, https://www.nvidia.com/en-us/data-center/l4/"
# NVIDIA publishes no datasheet for its China-market parts.
_SECONDARY = "secondary source, NVIDIA publishing no datasheet for this part, unchecked: "
_MI250X_PAGE = (
    "AMD Instinct MI250X specifications (the package: two GCDs), "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html"
)
_MI250_ROCM = (
    "AMD Instinct MI250 microarchitecture, ROCm documentation (1.6 TB/s per GCD; "
    "links of 50 GB/s each way), https://rocm.docs.amd.com/en/latest/conceptual/gpu-arch/mi250.html"
)
_MI300X_PAGE = (
    "AMD Instinct MI300X specifications, "
    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"
)
_MI300_ROCM = (
    "AMD Instinct MI300 series microarchitecture, ROCm documentation (MI300X peak table, "
    "seven Infinity Fabric links), https://rocm.docs.amd.com/en/latest/conceptual/gpu-arch/mi300.html"
)
_MI325X_PAGE = (
    "AMD Instinct MI325X specifications, "
    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html"
)
_MI355X_PAGE = (
    "AMD Instinct MI355X specifications, "
    "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html"
)


def _tpu_page(version: str) -> str:
    return f"Cloud TPU {version} system architecture, https://cloud.google.com/tpu/docs/{version}"


# -- the table ------------------------------------------------------------------------
# An interconnect "bridge" pairs PCIe cards (two, or four on the H200 NVL);
# without one they talk over PCIe (Gen5 x16: 128 GB/s both ways, 64 each way).

DEVICES: dict[str, Device] = {
    d.name: d
    for d in (
        Device(
            "h100",
            "NVIDIA H100 SXM",
            "gpu",
            989.4 * TERA,
            3.35 * TERA,
            f32_flops=66.9 * TERA,
            tf32_flops=494.7 * TERA,
            f64_flops=33.5 * TERA,
            f64_matrix_flops=66.9 * TERA,
            fp8_flops=1978.9 * TERA,
            int8_flops=1978.9 * TERA,
            interconnect="NVLink 4",
            interconnect_bandwidth=900 * BOTH_WAYS_GB,
            sources=(_HOPPER_WHITEPAPER, _H100_DATASHEET),
        ),
        Device(
            "h100-pcie",
            "NVIDIA H100 PCIe",
            "gpu",
            1513 * SPARSE_TERA,
            2.0 * TERA,
            f32_flops=51 * TERA,
            tf32_flops=756 * SPARSE_TERA,
            f64_flops=26 * TERA,
            f64_matrix_flops=51 * TERA,
            fp8_flops=3026 * SPARSE_TERA,
            int8_flops=3026 * SPARSE_TERA,
            interconnect="NVLink 4 bridge",
            interconnect_bandwidth=600 * BOTH_WAYS_GB,
            # The 2022 edition of the datasheet; the current one lists the NVL instead.
            sources=(_H100_DATASHEET,),
        ),
        Device(
            "h100-nvl",
            "NVIDIA H100 NVL",
            "gpu",
            1671 * SPARSE_TERA,
            3.9 * TERA,
            f32_flops=60 * TERA,
            tf32_flops=835 * SPARSE_TERA,
            f64_flops=30 * TERA,
            f64_matrix_flops=60 * TERA,
            fp8_flops=3341 * SPARSE_TERA,
            int8_flops=3341 * SPARSE_TERA,
            interconnect="NVLink 4 bridge",
            interconnect_bandwidth=600 * BOTH_WAYS_GB,
            sources=(_H100_PAGE, _H100_DATASHEET),
        ),
        Device(
            # The H100 SXM's GPU with more and faster memory: the H200 page
            # lists the H100 SXM's compute figures (rounded), these are the
            # whitepaper's.
            "h200",
            "NVIDIA H200 SXM",
            "gpu",
            989.4 * TERA,
            4.8 * TERA,
            f32_flops=66.9 * TERA,
            tf32_flops=494.7 * TERA,
            f64_flops=33.5 * TERA,
            f64_matrix_flops=66.9 * TERA,
            fp8_flops=1978.9 * TERA,
            int8_flops=1978.9 * TERA,
            interconnect="NVLink 4",
            interconnect_bandwidth=900 * BOTH_WAYS_GB,
            sources=(_H200_PAGE, _HOPPER_WHITEPAPER),
        ),
        Device(
            "h200-nvl",
            "NVIDIA H200 NVL",
            "gpu",
            1671 * SPARSE_TERA,
            4.8 * TERA,
            f32_flops=60 * TERA,
            tf32_flops=835 * SPARSE_TERA,
            f64_flops=30 * TERA,
            f64_matrix_flops=60 * TERA,
            fp8_flops=3341 * SPARSE_TERA,
            int8_flops=3341 * SPARSE_TERA,
            interconnect="NVLink 4 bridge",  # 2- or 4-way: 900 GB/s per GPU
            interconnect_bandwidth=900 * BOTH_WAYS_GB,
            sources=(_H200_PAGE,),
        ),
        Device(
            # An H100 SXM with FP64 cut to 1 TFLOPS and NVLink to 400 GB/s.
            # The FP64 tensor rate is not reported apart: None (f64 matrix
            # work falls back to the 1 TFLOPS).
            "h800",
            "NVIDIA H800 SXM",
            "gpu",
            989.4 * TERA,
            3.35 * TERA,
            f32_flops=66.9 * TERA,
            tf32_flops=494.7 * TERA,
            f64_flops=1 * TERA,
            fp8_flops=1978.9 * TERA,
            int8_flops=1978.9 * TERA,
            interconnect="NVLink 4",
            interconnect_bandwidth=400 * BOTH_WAYS_GB,
            sources=(
                _SECONDARY
                + "PHILISUN, NVIDIA H800 vs H100 (FP64 1 TFLOPS, NVLink 400 GB/s; low-precision "
                "compute as the H100's), https://www.philisun.com/technical-analysis/"
                "nvidia-h800-vs-h100-a-technical-deep-dive-into-politically-defined-ai-chips/",
                _HOPPER_WHITEPAPER,
            ),
        ),
        Device(
            # Dense figures as reported: FP16/BF16 148, TF32 74, FP32 44, FP64 1
            # TFLOPS, INT8/FP8 296; 96 GB HBM3 at 4.0 TB/s; NVLink 900 GB/s.
            "h20",
            "NVIDIA H20",
            "gpu",
            148 * TERA,
            4.0 * TERA,
            f32_flops=44 * TERA,
            tf32_flops=74 * TERA,
            f64_flops=1 * TERA,
            fp8_flops=296 * TERA,
            int8_flops=296 * TERA,
            interconnect="NVLink 4",
            interconnect_bandwidth=900 * BOTH_WAYS_GB,
            sources=(
                _SECONDARY + "Will It Run AI, NVIDIA H20 (96 GB HBM3, 4.0 TB/s, 148 TFLOPS FP16, "
                "296 TOPS INT8, NVLink 900 GB/s), https://willitrunai.com/es/gpus/h20-96gb",
                _SECONDARY + "H20 compute figures (INT8 296, FP16 148, TF32 74, FP32 44, FP64 1), "
                "https://zangshuxian.com/new/674733024499207168",
            ),
        ),
        Device(
            # "NVIDIA GH200 480GB": the 96 GB HBM3 superchip (480 GB is its
            # Grace's LPDDR5X). Its NVLink-C2C (900 GB/s) goes to that CPU;
            # peers are reached over the Hopper GPU's NVLink 4.
            "gh200",
            "NVIDIA GH200 480GB (96 GB HBM3)",
            "gpu",
            990 * TERA,
            4.0 * TERA,
            f32_flops=67 * TERA,
            tf32_flops=494 * TERA,
            f64_flops=34 * TERA,
            f64_matrix_flops=67 * TERA,
            fp8_flops=1979 * TERA,
            int8_flops=1979 * TERA,
            interconnect="NVLink 4",
            interconnect_bandwidth=900 * BOTH_WAYS_GB,
            sources=(_GH200_PAGE, _NVLINK_PAGE),
        ),
        Device(
            # Per GPU: the HGX B200 page's totals for eight GPUs (sparse where
            # marked so) over eight; HBM from the DGX B200's 64 TB/s over eight.
            "b200",
            "NVIDIA B200",
            "gpu",
            36_000 / 8 * SPARSE_TERA,
            64 / 8 * TERA,
            f32_flops=600 / 8 * TERA,
            tf32_flops=18_000 / 8 * SPARSE_TERA,
            f64_flops=296 / 8 * TERA,
            f64_matrix_flops=296 / 8 * TERA,  # "FP64/FP64 Tensor Core": one figure for both
            fp8_flops=72_000 / 8 * SPARSE_TERA,
            int8_flops=72_000 / 8 * SPARSE_TERA,
            interconnect="NVLink 5",
            interconnect_bandwidth=1800 * BOTH_WAYS_GB,  # "NVSwitch GPU-to-GPU bandwidth 1.8TB/s"
            sources=(_HGX_PAGE, _DGX_B200),
        ),
        Device(
            # No FP8 on Ampere: fp8 None (an fp8 dot falls back to the bf16 rate).
            "a100",
            "NVIDIA A100 80GB SXM",
            "gpu",
            312 * TERA,
            2.039 * TERA,
            f32_flops=19.5 * TERA,
            tf32_flops=156 * TERA,
            f64_flops=9.7 * TERA,
            f64_matrix_flops=19.5 * TERA,
            int8_flops=624 * TERA,
            interconnect="NVLink 3",
            interconnect_bandwidth=600 * BOTH_WAYS_GB,
            sources=(_A100_DATASHEET,),
        ),
        Device(
            "a100-40gb",
            "NVIDIA A100 40GB SXM",
            "gpu",
            312 * TERA,
            1.555 * TERA,
            f32_flops=19.5 * TERA,
            tf32_flops=156 * TERA,
            f64_flops=9.7 * TERA,
            f64_matrix_flops=19.5 * TERA,
            int8_flops=624 * TERA,
            interconnect="NVLink 3",
            interconnect_bandwidth=600 * BOTH_WAYS_GB,
            sources=(_A100_40GB_DATASHEET, _AMPERE_WHITEPAPER),
        ),
        Device(
            "a100-pcie",
            "NVIDIA A100 80GB PCIe",
            "gpu",
            312 * TERA,
            1.935 * TERA,
            f32_flops=19.5 * TERA,
            tf32_flops=156 * TERA,
            f64_flops=9.7 * TERA,
            f64_matrix_flops=19.5 * TERA,
            int8_flops=624 * TERA,
            interconnect="NVLink 3 bridge",  # two cards; else PCIe Gen4 x16, 32 GB/s each way
            interconnect_bandwidth=600 * BOTH_WAYS_GB,
            sources=(_A100_DATASHEET,),
        ),
        Device(
            "a100-pcie-40gb",
            "NVIDIA A100 40GB PCIe",
            "gpu",
            312 * TERA,
            1.555 * TERA,
            f32_flops=19.5 * TERA,
            tf32_flops=156 * TERA,
            f64_flops=9.7 * TERA,
            f64_matrix_flops=19.5 * TERA,
            int8_flops=624 * TERA,
            interconnect="NVLink 3 bridge",  # two cards; else PCIe Gen4 x16, 32 GB/s each way
            interconnect_bandwidth=600 * BOTH_WAYS_GB,
            sources=(_A100_40GB_DATASHEET,),
        ),
        Device(
            # 16 GB and 32 GB alike. Volta's tensor cores take f16 only: the
            # 125 TFLOPS is the f16 rate, and a bf16 dot priced at it is
            # optimistic. No TF32 (an f32 dot runs at the f32 rate, as JAX
            # says of V100), no FP8, and no INT8 rate published.
            "v100",
            "NVIDIA V100 SXM2",
            "gpu",
            125 * TERA,
            0.9 * TERA,
            f32_flops=15.7 * TERA,
            f64_flops=7.8 * TERA,
            interconnect="NVLink 2",
            interconnect_bandwidth=300 * BOTH_WAYS_GB,
            sources=(_V100_DATASHEET,),
        ),
        Device(
            "v100-pcie",
            "NVIDIA V100 PCIe",
            "gpu",
            112 * TERA,
            0.9 * TERA,
            f32_flops=14 * TERA,
            f64_flops=7 * TERA,
            interconnect="PCIe Gen3",  # no NVLink: PCIe Gen3 x16, "32 GB/sec"
            interconnect_bandwidth=32 * BOTH_WAYS_GB,
            sources=(_V100_DATASHEET,),
        ),
        Device(
            # GDDR6, not HBM. NVIDIA publishes no FP64 rate for the L4: None.
            "l4",
            "NVIDIA L4",
            "gpu",
            242 * SPARSE_TERA,
            300 * GIGA,
            f32_flops=30.3 * TERA,
            tf32_flops=120 * SPARSE_TERA,
            fp8_flops=485 * SPARSE_TERA,
            int8_flops=485 * SPARSE_TERA,
            memory="GDDR6",
            interconnect="PCIe Gen4",  # no NVLink: PCIe Gen4 x16, 64 GB/s
            interconnect_bandwidth=64 * BOTH_WAYS_GB,
            sources=(_L4_PAGE,),
        ),
        Device(
            # One GCD, the device a program runs on: an MI250X package holds
            # two, each its own GPU to ROCm and XLA, so AMD's package figures
            # are halved (FP64 vector 47.9, matrix 95.7; FP32 vector 47.9;
            # FP16/BF16 and INT8 383). FP32 matrix (95.7) runs at twice the
            # vector rate, which f32 dots do not get here. No TF32, no FP8.
            # A GCD drives eight 16-wide Infinity Fabric links at 50 GB/s each
            # way, one of them configurable as the host's PCIe link: seven to
            # peers (four to the other GCD of its package).
            "mi250x",
            "AMD Instinct MI250X (one GCD)",
            "gpu",
            383 / 2 * TERA,
            1.6 * TERA,
            f32_flops=47.9 / 2 * TERA,
            f64_flops=47.9 / 2 * TERA,
            f64_matrix_flops=95.7 / 2 * TERA,
            int8_flops=383 / 2 * TERA,
            interconnect="Infinity Fabric",
            interconnect_bandwidth=7 * 50 * GIGA,
            sources=(_MI250X_PAGE, _MI250_ROCM),
        ),
        Device(
            # AMD: seven Infinity Fabric links to peers, "Peak Infinity Fabric
            # Link Bandwidth 128 GB/s" each. AMD does not say which way; read as
            # both directions (its platform's 896 GB/s total is 7 x 128): 64 GB/s
            # each way per link.
            "mi300x",
            "AMD Instinct MI300X",
            "gpu",
            1307.4 * TERA,
            5.3 * TERA,
            f32_flops=163.4 * TERA,
            tf32_flops=653.7 * TERA,
            f64_flops=81.7 * TERA,
            f64_matrix_flops=163.4 * TERA,
            fp8_flops=2614.9 * TERA,
            int8_flops=2614.9 * TERA,
            interconnect="Infinity Fabric",
            interconnect_bandwidth=7 * 128 * BOTH_WAYS_GB,
            sources=(_MI300_ROCM, _MI300X_PAGE),
        ),
        Device(
            # The MI300X's compute (same peak table) with 256 GB of HBM3E.
            "mi325x",
            "AMD Instinct MI325X",
            "gpu",
            1307.4 * TERA,
            6.0 * TERA,
            f32_flops=163.4 * TERA,
            tf32_flops=653.7 * TERA,
            f64_flops=81.7 * TERA,
            f64_matrix_flops=163.4 * TERA,
            fp8_flops=2614.9 * TERA,
            int8_flops=2614.9 * TERA,
            interconnect="Infinity Fabric",
            interconnect_bandwidth=7 * 128 * BOTH_WAYS_GB,  # read as the MI300X's
            sources=(_MI325X_PAGE,),
        ),
        Device(
            # AMD's dense figures (its "with structured sparsity" ones are
            # twice). AMD publishes no TF32 rate for CDNA 4: None (an f32 dot
            # falls back to the f32 rate). Seven links of 153.6 GB/s, read as
            # both directions like the MI300X's.
            "mi355x",
            "AMD Instinct MI355X",
            "gpu",
            2500 * TERA,
            8.0 * TERA,
            f32_flops=157.3 * TERA,
            f64_flops=78.6 * TERA,
            f64_matrix_flops=78.6 * TERA,
            fp8_flops=5000 * TERA,
            int8_flops=5000 * TERA,
            interconnect="Infinity Fabric",
            interconnect_bandwidth=7 * 153.6 * BOTH_WAYS_GB,
            sources=(_MI355X_PAGE,),
        ),
        # TPUs. Google publishes no f32 (nor f64) rate: XLA runs f32 matrix
        # work on the MXUs in bf16 passes (`devices.peak_for`), and the bf16
        # peak stands in for the vector units too. ICI: Google's "bidirectional
        # ICI bandwidth per chip", halved.
        Device(
            # The v4 page gives no per-chip ICI figure, only the pod's: an
            # all-reduce bandwidth of 1.1 PB/s over 4096 chips. Per chip that
            # is one direction's worth (on v5e and v6e the same quotient,
            # 51.2 TB/s / 256 and 102.4 TB/s / 256, is half their per-chip
            # bidirectional figure).
            "tpu-v4",
            "Google TPU v4",
            "tpu",
            275 * TERA,
            1200 * GIGA,
            int8_flops=275 * TERA,
            interconnect="ICI",
            interconnect_bandwidth=1.1e15 / 4096,
            sources=(_tpu_page("v4"),),
        ),
        Device(
            "tpu-v5e",
            "Google TPU v5e",
            "tpu",
            197 * TERA,
            819 * GIGA,
            int8_flops=393 * TERA,
            interconnect="ICI",
            interconnect_bandwidth=400 * BOTH_WAYS_GB,
            sources=(_tpu_page("v5e"),),
        ),
        Device(
            "tpu-v5p",
            "Google TPU v5p",
            "tpu",
            459 * TERA,
            2765 * GIGA,
            fp8_flops=459 * TERA,  # as the v5p page prints it: the bf16 rate
            int8_flops=918 * TERA,  # not on the v5p page: Google's v5p announcement
            interconnect="ICI",
            interconnect_bandwidth=1200 * BOTH_WAYS_GB,
            sources=(
                _tpu_page("v5p"),
                "Google Cloud blog, Introducing Cloud TPU v5p and AI Hypercomputer (918 TOPS "
                "int8), https://cloud.google.com/blog/products/ai-machine-learning/"
                "introducing-cloud-tpu-v5p-and-ai-hypercomputer",
            ),
        ),
        Device(
            "tpu-v6e",
            "Google TPU v6e (Trillium)",
            "tpu",
            918 * TERA,
            1638 * GIGA,
            int8_flops=1836 * TERA,
            interconnect="ICI",
            interconnect_bandwidth=800 * BOTH_WAYS_GB,
            sources=(_tpu_page("v6e"),),
        ),
    )
}
