"""Published peaks of accelerators, which one a dump was compiled for, and the roofline.

Peaks are dense (no structured sparsity), from the vendors' data sheets:
NVIDIA H100 SXM5 and H200 SXM (H100/H200 Tensor Core GPU data sheets), A100
80GB SXM (A100 data sheet), AMD Instinct MI300X (AMD MI300X data sheet), Google
Cloud TPU v4, v5e, v5p and v6e (Cloud TPU system architecture pages). Google
publishes no f32 rate for TPUs: XLA's default precision runs f32 matrix work
on the MXU in bf16 passes, so the bf16 peak stands in for it there.

There is no CPU entry: a CPU's peak depends on the host's cores, vector width
and clock, none of which a dump records, so no one number could be defended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from xlaview.dump.files import read_head
from xlaview.errors import XlaviewError
from xlaview.hlo import Module

TERA = 1e12

_FP8 = frozenset(
    (
        "f8e5m2",
        "f8e4m3",
        "f8e4m3fn",
        "f8e4m3b11fnuz",
        "f8e5m2fnuz",
        "f8e4m3fnuz",
        "f8e3m4",
        "f8e8m0fnu",
        "f4e2m1fn",
    )
)
_INT8 = frozenset(("s8", "u8", "s4", "u4", "s2", "u2", "s1", "u1"))
_HALF = frozenset(("bf16", "f16"))


@dataclass(frozen=True, slots=True)
class Device:
    """One accelerator's published peaks: FLOP/s per precision (None where the
    vendor publishes none) and main-memory bandwidth in bytes/s."""

    name: str
    title: str
    platform: str
    bf16_flops: float
    memory_bandwidth: float
    f32_flops: float | None = None
    tf32_flops: float | None = None
    f64_flops: float | None = None
    fp8_flops: float | None = None
    int8_flops: float | None = None

    def peak(self, precision: str) -> float:
        """FLOP/s at ``precision`` (``bf16``, ``f32``, ``tf32``, ``f64``, ``fp8``,
        ``int8``), falling back to the nearest published rate."""
        return _peak(self, precision)[0]

    def ridge(self, precision: str = "bf16") -> float:
        """The arithmetic intensity (FLOP/byte) where compute and memory time meet."""
        return self.peak(precision) / self.memory_bandwidth


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
            fp8_flops=1978.9 * TERA,
            int8_flops=1978.9 * TERA,
        ),
        Device(
            "h200",
            "NVIDIA H200 SXM",
            "gpu",
            989.4 * TERA,
            4.8 * TERA,
            f32_flops=66.9 * TERA,
            tf32_flops=494.7 * TERA,
            f64_flops=33.5 * TERA,
            fp8_flops=1978.9 * TERA,
            int8_flops=1978.9 * TERA,
        ),
        Device(
            "a100",
            "NVIDIA A100 80GB SXM",
            "gpu",
            312 * TERA,
            2.039 * TERA,
            f32_flops=19.5 * TERA,
            tf32_flops=156 * TERA,
            f64_flops=9.7 * TERA,
            int8_flops=624 * TERA,
        ),
        Device(
            "mi300x",
            "AMD Instinct MI300X",
            "gpu",
            1307.4 * TERA,
            5.3 * TERA,
            f32_flops=163.4 * TERA,
            tf32_flops=653.7 * TERA,
            f64_flops=81.7 * TERA,
            fp8_flops=2614.9 * TERA,
            int8_flops=2614.9 * TERA,
        ),
        Device("tpu-v4", "Google TPU v4", "tpu", 275 * TERA, 1.228 * TERA, int8_flops=275 * TERA),
        Device("tpu-v5e", "Google TPU v5e", "tpu", 197 * TERA, 0.819 * TERA, int8_flops=394 * TERA),
        Device("tpu-v5p", "Google TPU v5p", "tpu", 459 * TERA, 2.765 * TERA, int8_flops=918 * TERA),
        Device(
            "tpu-v6e",
            "Google TPU v6e (Trillium)",
            "tpu",
            918 * TERA,
            1.64 * TERA,
            int8_flops=1836 * TERA,
        ),
    )
}
DEFAULT_DEVICE = "h100"
DEFAULT_TPU = "tpu-v5e"


class UnknownDeviceError(XlaviewError, KeyError):
    """A device name not in `DEVICES`."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown device"


def device(name: str) -> Device:
    """The device called ``name`` (case-insensitive; `UnknownDeviceError` if none)."""
    found = DEVICES.get(name.strip().lower())
    if found is None:
        raise UnknownDeviceError(f"unknown device {name!r}; known: {', '.join(DEVICES)}")
    return found


def peak_for(
    dev: Device, element_type: str, matrix: bool, highest: bool = False
) -> tuple[float, str]:
    """(FLOP/s, precision) an op can reach on ``dev``.

    Matrix work (dots, convolutions, GEMM calls, fusions holding one) runs on
    the tensor/matrix units at the rate of its operand type: bf16 and f16 at the
    bf16 peak, fp8 and int8 at theirs, f32 at TF32 on GPUs unless full precision
    was asked (``operand_precision={highest,...}``), then at the f32 peak.
    Everything else (element-wise, reductions) runs on the vector units: the f32
    peak (a bf16 add is no faster there), or on TPUs, which publish none, the
    bf16 peak. Missing rates fall back to the nearest published one.
    """
    return _peak(dev, _wanted(dev, element_type, matrix, highest))


def _wanted(dev: Device, element_type: str, matrix: bool, highest: bool) -> str:
    if not matrix:
        return "f32"
    if element_type in _HALF:
        return "bf16"
    if element_type in _FP8:
        return "fp8"
    if element_type in _INT8:
        return "int8"
    if element_type in ("f64", "c128"):
        return "f64"
    return "f32" if highest else "tf32"


_FALLBACKS = {
    "bf16": ("bf16",),
    "fp8": ("fp8", "bf16"),
    "int8": ("int8", "bf16"),
    "tf32": ("tf32", "f32", "bf16"),
    "f32": ("f32", "bf16"),
    "f64": ("f64", "f32", "bf16"),
}


@lru_cache(maxsize=256)
def _peak(dev: Device, precision: str) -> tuple[float, str]:
    for name in _FALLBACKS.get(precision, ("bf16",)):
        value = getattr(dev, f"{name}_flops")
        if value:
            return value, name
    return dev.bf16_flops, "bf16"


# -- which device a dump was compiled for ---------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceChoice:
    """The device to price a module on, and why: ``detected`` is False when
    the dump does not say and a default was taken."""

    device: Device
    reason: str
    detected: bool


_SM = re.compile(r"sm_(\d+)[._]?(\d)?_gpu")
_GFX = re.compile(r"(gfx[0-9a-f]+)_gpu")
_TPU_GENERATION = re.compile(r"(?<![a-z0-9])(v4|v5e|v5litepod|v5lite|v5p|v6e|trillium)(?![a-z0-9])")
_TPU_NAMES = {
    "v4": "tpu-v4",
    "v5e": "tpu-v5e",
    "v5litepod": "tpu-v5e",
    "v5lite": "tpu-v5e",
    "v5p": "tpu-v5p",
    "v6e": "tpu-v6e",
    "trillium": "tpu-v6e",
}
_GPU_TITLES = (
    ("h200", "h200"),
    ("h100", "h100"),
    ("a100", "a100"),
    ("mi300x", "mi300x"),
    ("mi300", "mi300x"),
)
_GPU_ARCH = {"gfx942": "mi300x"}


def detect_device(
    module: Module | None = None, path: str | Path | None = None, platform: str | None = None
) -> DeviceChoice:
    """The device ``module`` (read from ``path``) was compiled for, as far as the
    dump tells: the GPU target in the file name (``gfx942_gpu_...`` -> MI300X,
    ``sm_9.0_gpu_...`` -> H100) or in the ``gpu_target_config.pbtxt`` beside it
    (which also tells an H200 from an H100), a TPU generation in the folder names
    (``v5e``, ``v6e``...), or TPU tiled layouts (generation unknown: TPU v5e).
    Otherwise (a CPU dump) the H100, marked as not detected."""
    file = Path(path) if path is not None else None
    if file is not None:
        found = _from_gpu_config(file)
        if found:
            return found
        name = file.name
        if match := _GFX.search(name):
            arch = match.group(1)
            if arch in _GPU_ARCH:
                return DeviceChoice(DEVICES[_GPU_ARCH[arch]], f"compiled for {arch}", True)
        if match := _SM.search(name):
            major, minor = match.group(1), match.group(2) or ""
            key = (
                "h100"
                if major.startswith("9")
                else "a100"
                if (major, minor) in (("8", "0"), ("80", ""))
                else None
            )
            if key:
                return DeviceChoice(DEVICES[key], f"compiled for sm_{major}{minor}", True)
    if platform is None and module is not None:
        from xlaview.analysis.memory_spaces import memory_platform

        platform = memory_platform(module)
    if file is not None and (platform == "tpu" or "tpu" in str(file).lower()):
        match = _TPU_GENERATION.search(str(file.absolute()).lower())
        if match:
            return DeviceChoice(
                DEVICES[_TPU_NAMES[match.group(1)]], f"TPU {match.group(1)} named in the path", True
            )
    if platform == "tpu":
        return DeviceChoice(DEVICES[DEFAULT_TPU], "TPU layouts; generation unknown", False)
    return DeviceChoice(DEVICES[DEFAULT_DEVICE], "the dump names no accelerator", False)


def _from_gpu_config(file: Path) -> DeviceChoice | None:
    """Read ``device_description_str`` from the GPU target config beside ``file``."""
    folder = file.parent
    prefix = file.name.split(".")[0]  # module_NNNN
    try:
        configs = sorted(folder.glob(f"{prefix}.*gpu_target_config.pbtxt"))
    except OSError:
        return None
    for config in configs[:1]:
        try:
            text = read_head(config, 20000).decode("utf-8", errors="replace")
        except OSError:  # DumpReadError too: a FIFO or a device named like a config
            return None
        match = re.search(r'device_description_str:\s*"([^"]*)"', text)
        title = (match.group(1) if match else "").lower()
        for needle, key in _GPU_TITLES:
            if needle in title.replace(" ", "").replace("instinct", ""):
                return DeviceChoice(
                    DEVICES[key],
                    f"{match.group(1) if match else key} in the GPU target config",
                    True,
                )
        arch = re.search(r'gcn_arch_name:\s*"(gfx[0-9a-f]+)', text)
        if arch and arch.group(1) in _GPU_ARCH:
            return DeviceChoice(
                DEVICES[_GPU_ARCH[arch.group(1)]], f"compiled for {arch.group(1)}", True
            )
        cuda = re.search(r"cuda_compute_capability\s*\{\s*major:\s*(\d+)\s*minor:\s*(\d+)", text)
        if cuda and (cuda.group(1) == "9" or cuda.group(1, 2) == ("8", "0")):
            key = "h100" if cuda.group(1) == "9" else "a100"
            return DeviceChoice(
                DEVICES[key], f"compiled for sm_{cuda.group(1)}{cuda.group(2)}", True
            )
    return None
