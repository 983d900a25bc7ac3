"""The device table: every figure cited, the chip a dump names priced as that
chip (never a sibling), and the rate each op gets by type and precision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xlaview.analysis.cost.devices import (
    DEVICES,
    detect_device,
    device,
    peak_for,
    precision_level,
)

TERA = 1e12
HLO = "module_0001.jit_f.{}_gpu_after_optimizations.txt"


def gpu_dump(folder: Path, target: str, config: str | None) -> Path:
    """An HLO file named for ``target`` and, unless None, a GPU target config beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (folder / "module_0001.jit_f.gpu_target_config.pbtxt").write_text(config)
    path = folder / HLO.format(target)
    path.write_text("HloModule f\n")
    return path


def cuda_config(description: str, major: int, minor: int) -> str:
    return (
        "gpu_device_info {\n  cuda_compute_capability {\n"
        f"    major: {major}\n    minor: {minor}\n  }}\n}}\n"
        'platform_name: "CUDA"\n'
        f'device_description_str: "{description}"\n'
    )


def test_every_entry_cites_documents_with_addresses() -> None:
    for name, dev in DEVICES.items():
        assert dev.name == name
        assert dev.bf16_flops > 0 and dev.memory_bandwidth > 0, name
        if dev.measured:
            continue  # a calibrated device says how it was measured instead
        assert dev.sources, f"{name} cites no document"
        assert all("https://" in s for s in dev.sources), f"{name}: a source without its URL"


@pytest.mark.parametrize(
    ("description", "capability", "name", "hbm"),
    [
        ("NVIDIA H100 PCIe", (9, 0), "h100-pcie", 2.0e12),
        ("NVIDIA H100 80GB HBM3", (9, 0), "h100", 3.35e12),
        ("NVIDIA H100 NVL", (9, 0), "h100-nvl", 3.9e12),
        ("NVIDIA H200", (9, 0), "h200", 4.8e12),
        ("NVIDIA H200 NVL", (9, 0), "h200-nvl", 4.8e12),
        ("NVIDIA H800", (9, 0), "h800", 3.35e12),
        ("NVIDIA H20", (9, 0), "h20", 4.0e12),
        ("NVIDIA GH200 480GB", (9, 0), "gh200", 4.0e12),
        ("NVIDIA B200", (10, 0), "b200", 8.0e12),
        ("NVIDIA A100-SXM4-80GB", (8, 0), "a100", 2.039e12),
        ("NVIDIA A100-SXM4-40GB", (8, 0), "a100-40gb", 1.555e12),
        ("NVIDIA A100 80GB PCIe", (8, 0), "a100-pcie", 1.935e12),
        ("NVIDIA A100-PCIE-40GB", (8, 0), "a100-pcie-40gb", 1.555e12),
        ("Tesla V100-SXM2-32GB", (7, 0), "v100", 0.9e12),
        ("Tesla V100-PCIE-16GB", (7, 0), "v100-pcie", 0.9e12),
        ("NVIDIA L4", (8, 9), "l4", 300e9),
    ],
)
def test_the_description_names_the_variant(
    tmp_path: Path, description: str, capability: tuple[int, int], name: str, hbm: float
) -> None:
    major, minor = capability
    # The file name's sm_X.Y stands for the whole family; the config's name wins.
    path = gpu_dump(tmp_path, f"sm_{major}.{minor}", cuda_config(description, major, minor))
    choice = detect_device(None, path)
    assert (choice.device.name, choice.detected) == (name, True), choice.reason
    assert choice.device.memory_bandwidth == pytest.approx(hbm), name
    assert description in choice.reason


@pytest.mark.parametrize(
    ("description", "arch", "name", "hbm"),
    [
        ("AMD Instinct MI300X", "gfx942", "mi300x", 5.3e12),
        ("AMD Instinct MI325X", "gfx942", "mi325x", 6.0e12),
        ("AMD Instinct MI250X", "gfx90a", "mi250x", 1.6e12),  # one GCD of the package
        ("AMD Instinct MI355X", "gfx950", "mi355x", 8.0e12),
    ],
)
def test_rocm_descriptions(
    tmp_path: Path, description: str, arch: str, name: str, hbm: float
) -> None:
    config = (
        "gpu_device_info {\n  rocm_compute_capability {\n"
        f'    gcn_arch_name: "{arch}:sramecc+:xnack-"\n  }}\n}}\n'
        f'platform_name: "ROCM"\ndevice_description_str: "{description}"\n'
    )
    choice = detect_device(None, gpu_dump(tmp_path, arch, config))
    assert (choice.device.name, choice.detected) == (name, True), choice.reason
    assert choice.device.memory_bandwidth == pytest.approx(hbm)


@pytest.mark.parametrize(
    "description",
    [
        "NVIDIA RTX 6000 Ada Generation",
        "NVIDIA H800 PCIe",
        "NVIDIA GH200 144G HBM3e",
        "NVIDIA A800-SXM4-80GB",
        "NVIDIA GB200",
        "Tesla V100S-PCIE-32GB",
        "AMD Instinct MI300A",
    ],
)
def test_a_chip_without_an_entry_is_said_so(tmp_path: Path, description: str) -> None:
    path = gpu_dump(tmp_path, "sm_9.0", cuda_config(description, 9, 0))
    choice = detect_device(None, path)
    assert (choice.device.name, choice.detected) == ("h100", False), choice.reason
    assert choice.reason == f"no table entry for {description!r}: priced as h100"


def test_a_name_that_leaves_the_variant_open_says_what_was_assumed(tmp_path: Path) -> None:
    choice = detect_device(None, gpu_dump(tmp_path, "sm_9.0", cuda_config("NVIDIA H100", 9, 0)))
    assert choice.device.name == "h100" and choice.detected
    assert "does not say SXM, PCIe or NVL" in choice.reason, choice.reason


@pytest.mark.parametrize(
    ("target", "name"),
    [
        ("sm_7.0", "v100"),
        ("sm_8.0", "a100"),
        ("sm_8.9", "l4"),  # Ada: the L40S and RTX 4090 are sm_8.9 too
        ("sm_9.0", "h100"),
        ("sm_10.0", "b200"),
        ("gfx90a", "mi250x"),
        ("gfx942", "mi300x"),
        ("gfx950", "mi355x"),
    ],
)
def test_the_file_name_target_picks_its_family(tmp_path: Path, target: str, name: str) -> None:
    choice = detect_device(None, gpu_dump(tmp_path, target, None))
    assert (choice.device.name, choice.detected) == (name, True), choice.reason
    # One target, several chips: the reason names the one assumed.
    assert choice.reason.startswith(f"{target}: ") and DEVICES[name].title in choice.reason
    assert "--device" in choice.reason


@pytest.mark.parametrize("target", ["sm_8.6", "sm_12.0", "gfx908", "gfx1100"])
def test_a_target_without_an_entry_is_said_so(tmp_path: Path, target: str) -> None:
    choice = detect_device(None, gpu_dump(tmp_path, target, None))
    assert (choice.device.name, choice.detected) == ("h100", False)
    assert choice.reason == f"no table entry for {target}: priced as h100"


@pytest.mark.parametrize(
    ("config", "name"),
    [
        ("cuda_compute_capability {\n  major: 8\n  minor: 9\n}\n", "l4"),
        ("cuda_compute_capability {\n  major: 10\n  minor: 0\n}\n", "b200"),
        ('rocm_compute_capability {\n  gcn_arch_name: "gfx950:sramecc+:xnack-"\n}\n', "mi355x"),
    ],
)
def test_the_config_target_when_nothing_else_says(tmp_path: Path, config: str, name: str) -> None:
    path = tmp_path / "module_0001.jit_f.after_optimizations.txt"
    path.write_text("HloModule f\n")
    (tmp_path / "module_0001.jit_f.gpu_target_config.pbtxt").write_text(config)
    choice = detect_device(None, path)
    assert (choice.device.name, choice.detected) == (name, True), choice.reason


def test_tpu_v4_has_googles_bandwidth() -> None:
    # "HBM2 capacity and bandwidth: 32 GiB, 1200 GBps" (Cloud TPU v4 page).
    assert device("tpu-v4").memory_bandwidth == 1.2e12


def test_an_f64_dot_runs_on_the_fp64_tensor_cores() -> None:
    h100 = device("h100")
    assert peak_for(h100, "f64", True) == (pytest.approx(66.9 * TERA), "f64_matrix")
    assert peak_for(h100, "f64", False) == (pytest.approx(33.5 * TERA), "f64")
    assert peak_for(device("mi300x"), "f64", True)[0] == pytest.approx(163.4 * TERA)
    # No FP64 matrix rate published (the H800's): the vector one.
    assert peak_for(device("h800"), "f64", True) == (pytest.approx(1 * TERA), "f64")


@pytest.mark.parametrize("name", ["tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"])
@pytest.mark.parametrize(("asked", "passes", "used"), [
    ("default", 1, "bf16"), ("high", 3, "bf16x3"), ("highest", 6, "bf16x6"),
])  # fmt: skip
def test_an_f32_dot_on_a_tpu_runs_in_bf16_passes(
    name: str, asked: str, passes: int, used: str
) -> None:
    tpu = device(name)
    peak, precision = peak_for(tpu, "f32", True, asked)
    assert (peak, precision) == (pytest.approx(tpu.bf16_flops / passes), used)
    assert tpu.peak(precision) == pytest.approx(peak), "the name given back prices the same"


@pytest.mark.parametrize(("name", "asked", "used", "tflops"), [
    ("h100", "default", "tf32", 494.7),
    ("h100", "high", "tf32", 494.7),
    ("h100", "highest", "f32", 66.9),
    ("a100", "default", "tf32", 156),
    ("v100", "default", "f32", 15.7),  # no TF32 on Volta
    ("mi355x", "default", "f32", 157.3),  # AMD publishes no TF32 rate for CDNA 4
])  # fmt: skip
def test_an_f32_dot_on_a_gpu(name: str, asked: str, used: str, tflops: float) -> None:
    assert peak_for(device(name), "f32", True, asked) == (pytest.approx(tflops * TERA), used)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("lhs_contracting_dims={1}, operand_precision={highest,highest}", "highest"),
        ("operand_precision={high,default}", "high"),
        ("operand_precision={default,highest}", "highest"),
        ("operand_precision={default,default}", "default"),
        ("lhs_contracting_dims={1}, rhs_contracting_dims={0}", "default"),
        ('backend_config={"operand_precision":["HIGHEST","HIGHEST"],"algorithm":"ALG_UNSET"}',
         "highest"),
        ('backend_config={"operand_precision":["HIGH","DEFAULT"]}', "high"),
        ('backend_config={"algorithm":"ALG_DOT_F32_F32_F32"}', "highest"),
        ("algorithm=dot_bf16_bf16_f32_x6", "highest"),
        ("algorithm=dot_bf16_bf16_f32_x3", "high"),
        # The algorithm decides over the operand levels.
        ("operand_precision={highest,highest}, algorithm=dot_bf16_bf16_f32", "default"),
    ],
)  # fmt: skip
def test_precision_level(text: str, level: str) -> None:
    assert precision_level(text) == level


def test_device_spec_json() -> None:
    spec = device("h100").to_json()
    assert set(spec) == {
        "name", "title", "hbm_bytes_per_s", "interconnect", "interconnect_bytes_per_s",
        "peak_flops_per_s", "sources", "memory",
    }  # fmt: skip
    assert spec["memory"] == "HBM" and device("l4").to_json()["memory"] == "GDDR6"
    assert set(spec["peak_flops_per_s"]) == {
        "bf16",
        "tf32",
        "f32",
        "f64",
        "f64_matrix",
        "fp8",
        "int8",
    }
    assert spec["peak_flops_per_s"]["f64_matrix"] == pytest.approx(66.9 * TERA)
    assert spec["interconnect"] == "NVLink 4"
    assert spec["interconnect_bytes_per_s"] == pytest.approx(450e9), "900 GB/s both ways, halved"
    tpu = json.loads(json.dumps(device("tpu-v5e").to_json()))
    assert tpu["peak_flops_per_s"]["f32"] is None, "Google publishes no f32 rate"
    assert tpu["sources"] and "measured" not in tpu
