"""The accelerators xlaview prices, the rate each op gets on them, and which
one a dump was compiled for.

The figures are the vendors', each entry citing its documents
(`xlaview.analysis.cost.datasheets`: NVIDIA, AMD and Google Cloud datasheets
and specification pages). `peak_for` says which of a chip's rates an op runs
at (its element type, matrix or vector units, the precision it asked for);
`detect_device` reads the dump for the chip: the ``device_description_str`` of
the GPU target config, the ``sm_*``/``gfx*`` target in the file names or the
config, a TPU generation in the path. Where the dump leaves the variant open
(an ``sm_9.0`` is an H100 SXM, PCIe or NVL, an H200, an H800...) or names a
chip the table lacks, the reason says what was assumed.

There is no CPU entry in the table: a CPU's peaks depend on the host's cores,
vector width, clock and caches, none of which a dump records. The ``cpu``
device is this machine's, measured (`xlaview.analysis.cost.cpu_device`), and
a CPU dump (XLA names its optimized HLO ``*.cpu_after_optimizations.txt``)
is priced on it: a trace of the same machine is then compared with its own
roofline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from xlaview.analysis.cost.datasheets import DEVICES, Device
from xlaview.analysis.kinds import precision_level
from xlaview.dump.files import read_head
from xlaview.errors import XlaviewError
from xlaview.hlo import Module

__all__ = [
    "CPU", "DEFAULT_DEVICE", "DEFAULT_TPU", "DEVICES", "Device", "DeviceChoice",
    "UnknownDeviceError", "detect_device", "device", "peak_for", "precision_level",
]  # fmt: skip

DEFAULT_DEVICE = "h100"
DEFAULT_TPU = "tpu-v5e"

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
_DOUBLE = frozenset(("f64", "c128"))


class UnknownDeviceError(XlaviewError, KeyError):
    """A device name not in `DEVICES`."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown device"


CPU = "cpu"  # this machine's CPU, measured


def device(name: str) -> Device:
    """The device called ``name`` (case-insensitive; `UnknownDeviceError` if
    none): a table entry, or ``cpu``, this machine's CPU (calibrated the first
    time, seconds, then cached: `cpu_device.calibration_cached`;
    `cpu_device.CalibrationError` where it cannot be measured)."""
    key = name.strip().lower()
    if key == CPU:
        from xlaview.analysis.cost.cpu_device import cpu_device

        return cpu_device()
    found = DEVICES.get(key)
    if found is None:
        known = ", ".join((*DEVICES, CPU))
        raise UnknownDeviceError(f"unknown device {name!r}; known: {known}")
    return found


# -- the rate an op gets --------------------------------------------------------------


def peak_for(
    dev: Device, element_type: str, matrix: bool, precision: str = "default"
) -> tuple[float, str]:
    """(FLOP/s, the rate used) an op can reach on ``dev``; ``precision`` is the
    level it asked for, ``default``, ``high`` or ``highest`` (`precision_level`).

    Matrix work (dots, convolutions, GEMM calls, fusions holding one) runs on
    the tensor/matrix units at the rate of its operand type: bf16 and f16 at the
    bf16 peak, fp8 and int8 at theirs, f64 at the FP64 tensor/matrix rate where
    the chip has one (H100 SXM: 66.9 TFLOPS against 33.5 on its vector units),
    else the f64 one. An f32 product depends on the precision asked, as JAX
    documents it (jax.lax.Precision,
    https://docs.jax.dev/en/latest/jax.lax.html#jax.lax.Precision, the levels
    ``jax.default_matmul_precision`` sets,
    https://docs.jax.dev/en/latest/_autosummary/jax.default_matmul_precision.html):

    - on TPUs DEFAULT "performs float32 computations in bfloat16" (one pass:
      the bf16 peak, ``bf16``), HIGH "in 3 bfloat16 passes" (``bf16x3``: a third
      of it), HIGHEST in 6 (``bf16x6``: a sixth);
    - on GPUs DEFAULT and HIGH use TensorFloat-32 where the chip has it
      (``tf32``; else, as on a V100, the f32 rate) and HIGHEST "uses float32"
      (``f32``);
    - elsewhere (a CPU), the f32 rate.

    Everything else (element-wise, reductions) runs on the vector units: the f32
    peak (a bf16 add is no faster there), the f64 one for f64, or on TPUs, which
    publish none, the bf16 peak. A rate the vendor does not publish falls back
    to the nearest one that is (`Device.rate`).
    """
    return dev.rate(_wanted(dev, element_type, matrix, precision.lower()))


def _wanted(dev: Device, element_type: str, matrix: bool, precision: str) -> str:
    if not matrix:
        return "f64" if element_type in _DOUBLE else "f32"
    if element_type in _HALF:
        return "bf16"
    if element_type in _FP8:
        return "fp8"
    if element_type in _INT8:
        return "int8"
    if element_type in _DOUBLE:
        return "f64_matrix"
    if dev.platform == "tpu":
        return {"high": "bf16x3", "highest": "bf16x6"}.get(precision, "bf16")
    if dev.platform == "gpu":
        return "f32" if precision == "highest" else "tf32"
    return "f32"


# -- which device a dump was compiled for ---------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceChoice:
    """The device to price a module on, and why: ``detected`` is False when
    the dump does not say, or names a chip the table lacks, and a default was
    taken."""

    device: Device
    reason: str
    detected: bool


# What a ``device_description_str`` (the CUDA/ROCm device name) says, first
# match wins, most specific first: (pattern over the lower-cased name, the
# table entry, what the name leaves open). A name no pattern takes has no
# table entry (an H800 PCIe, a GH200 with HBM3e, an A800, an MI300A...).
_DESCRIPTIONS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern), key, left_open)
    for pattern, key, left_open in (
        (r"\bh100\b.*\bpcie\b", "h100-pcie", ""),
        (r"\bh100\b.*\bnvl\b", "h100-nvl", ""),
        (r"\bh100\b.*\b(hbm3|sxm)", "h100", ""),  # "NVIDIA H100 80GB HBM3"
        (r"\bh100\b", "h100", "does not say SXM, PCIe or NVL: priced as the SXM"),
        (r"\bh200\b.*\bnvl\b", "h200-nvl", ""),
        (r"\bh200\b", "h200", ""),  # "NVIDIA H200": the SXM
        (r"\bgh200\b.*\b480gb\b", "gh200", ""),
        (r"\bh800\b(?!.*\bpcie\b)", "h800", ""),
        (r"\bh20\b", "h20", ""),
        (r"\bb200\b", "b200", ""),  # not a GB200's, clocked higher
        (r"\ba100\b.*\bsxm.*\b40gb\b", "a100-40gb", ""),  # "NVIDIA A100-SXM4-40GB"
        (r"\ba100\b.*\bsxm.*\b80gb\b", "a100", ""),
        (r"\ba100\b.*(\bpcie\b.*\b40gb\b|\b40gb\b.*\bpcie\b)", "a100-pcie-40gb", ""),
        (r"\ba100\b.*(\bpcie\b.*\b80gb\b|\b80gb\b.*\bpcie\b)", "a100-pcie", ""),
        (r"\ba100\b", "a100", "does not say SXM or PCIe, 40 or 80 GB: priced as the 80GB SXM"),
        (r"\bv100-sxm2\b", "v100", ""),  # "Tesla V100-SXM2-32GB"; 16 GB has the same figures
        (r"\bv100-pcie\b", "v100-pcie", ""),
        (r"\bl4\b", "l4", ""),
        (r"\bmi250x/mi250\b", "mi250x", "does not tell an MI250X from an MI250: priced as the X"),
        (r"\bmi250x\b", "mi250x", ""),
        (r"\bmi300x\b", "mi300x", ""),
        (r"\bmi325x\b", "mi325x", ""),
        (r"\bmi355x\b", "mi355x", ""),
    )
)
# A compile target (file name, ``cuda_compute_capability``, ``gcn_arch_name``)
# -> (table entry, its family). Each stands for chips the table tells apart
# (sm_9.0: H100 SXM/PCIe/NVL, H200, H800, H20, GH200; sm_8.0: the four A100s;
# sm_7.0: V100 SXM2 and PCIe; sm_8.9: every Ada chip, L4, L40S, RTX 4090...;
# sm_10.0: B200 and GB200; gfx90a: MI250X, MI250, MI210; gfx942: MI300X, MI300A,
# MI325X; gfx950: MI355X, MI350X), so the reason names the one assumed.
_TARGETS = {
    "sm_7.0": ("v100", "Volta"),
    "sm_8.0": ("a100", "Ampere"),
    "sm_8.9": ("l4", "Ada"),
    "sm_9.0": ("h100", "Hopper"),
    "sm_10.0": ("b200", "Blackwell"),
    "gfx90a": ("mi250x", "CDNA 2"),
    "gfx942": ("mi300x", "CDNA 3"),
    "gfx950": ("mi355x", "CDNA 4"),
}
_SM = re.compile(r"\bsm_(\d+)(?:[._](\d+))?a?_gpu")
_GFX = re.compile(r"\b(gfx[0-9a-f]+)_gpu")
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


def detect_device(
    module: Module | None = None, path: str | Path | None = None, platform: str | None = None
) -> DeviceChoice:
    """The device ``module`` (read from ``path``) was compiled for, as far as the
    dump tells, in this order: the ``device_description_str`` of the
    ``gpu_target_config.pbtxt`` beside it ("NVIDIA H100 PCIe", "NVIDIA
    A100-SXM4-40GB", "AMD Instinct MI300X"...: the exact variant), the GPU
    target in the file name (``sm_9.0_gpu_...``, ``gfx942_gpu_...``) or in that
    config, a TPU generation in the folder names (``v5e``, ``v6e``...), TPU
    tiled layouts (generation unknown: TPU v5e), an XLA:CPU dump (this
    machine's CPU, measured; the H100 where it cannot be). A target that
    stands for several chips is priced as one, and the reason says which. A
    chip the table lacks, or a dump naming none, is priced on the H100,
    marked as not detected."""
    file = Path(path) if path is not None else None
    if file is not None:
        config = _gpu_config(file)
        description = re.search(r'device_description_str:\s*"([^"]*)"', config)
        if description and description.group(1).strip():
            return _from_description(description.group(1).strip())
        target = _file_target(file.name) or _config_target(config)
        if target:
            return _from_target(target)
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
    if platform == "cpu" or (file is not None and _compiled_for_cpu(file)):
        return _this_cpu()
    return DeviceChoice(DEVICES[DEFAULT_DEVICE], "the dump names no accelerator", False)


def _from_description(name: str) -> DeviceChoice:
    lowered = name.lower()
    for pattern, key, left_open in _DESCRIPTIONS:
        if pattern.search(lowered):
            said = f"{name} in the GPU target config"
            return DeviceChoice(DEVICES[key], f"{said} {left_open}" if left_open else said, True)
    return _no_entry(repr(name))


def _from_target(target: str) -> DeviceChoice:
    if target not in _TARGETS:
        return _no_entry(target)
    key, family = _TARGETS[target]
    dev = DEVICES[key]
    return DeviceChoice(
        dev, f"{target}: {family}, priced as {dev.title}; name the variant with --device", True
    )


def _compiled_for_cpu(file: Path) -> bool:
    from xlaview.analysis.cost.cpu_device import compiled_for_cpu

    return compiled_for_cpu(file)


def _this_cpu() -> DeviceChoice:
    from xlaview.analysis.cost.cpu_device import CalibrationError, cpu_device

    try:
        return DeviceChoice(cpu_device(), "an XLA:CPU dump: this machine's CPU, measured", True)
    except CalibrationError as err:
        said = f"an XLA:CPU dump, but {err}: priced as {DEFAULT_DEVICE}"
        return DeviceChoice(DEVICES[DEFAULT_DEVICE], said, False)


def _no_entry(what: str) -> DeviceChoice:
    return DeviceChoice(
        DEVICES[DEFAULT_DEVICE], f"no table entry for {what}: priced as {DEFAULT_DEVICE}", False
    )


def _file_target(name: str) -> str:
    """``sm_9.0`` or ``gfx942`` from a dump file's name ('' when it names none)."""
    if match := _GFX.search(name):
        return match.group(1)
    if match := _SM.search(name):
        major, minor = match.group(1), match.group(2)
        if minor is None:  # "sm_90": the last digit is the minor version
            major, minor = major[:-1] or "0", major[-1]
        return f"sm_{int(major)}.{int(minor)}"
    return ""


def _config_target(config: str) -> str:
    """``sm_9.0`` or ``gfx942`` from a GPU target config ('' when it names none)."""
    if arch := re.search(r'gcn_arch_name:\s*"(gfx[0-9a-f]+)', config):
        return arch.group(1)
    if cuda := re.search(r"cuda_compute_capability\s*\{\s*major:\s*(\d+)\s*minor:\s*(\d+)", config):
        return f"sm_{int(cuda.group(1))}.{int(cuda.group(2))}"
    return ""


def _gpu_config(file: Path) -> str:
    """The head of the ``gpu_target_config.pbtxt`` beside ``file`` ('' when none)."""
    prefix = file.name.split(".")[0]  # module_NNNN
    try:
        configs = sorted(file.parent.glob(f"{prefix}.*gpu_target_config.pbtxt"))
        return read_head(configs[0], 20000).decode("utf-8", errors="replace") if configs else ""
    except OSError:  # DumpReadError too: a FIFO or a device named like a config
        return ""
