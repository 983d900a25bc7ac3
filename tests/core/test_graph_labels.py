"""Graph nodes say what they run: a fusion its kind (and a kCustom fusion its
name), a custom call its target, as `kinds.op_label` writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlaview.analysis.drawing.graph import build_graph, node_width
from xlaview.analysis.kinds import op_label
from xlaview.dump.modules import load_module
from xlaview.resources import sample_dump, sample_dump_default_flags

ROCM = "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"


def after(folder: Path):
    return load_module(next(folder.glob("*after_optimizations.txt"))).module


@pytest.mark.parametrize(
    ("folder", "label"),
    [
        (sample_dump, "fusion kLoop"),
        (sample_dump, "dot"),
        (sample_dump_default_flags, "fusion kCustom __ynn_fusion"),
    ],
)
def test_every_node_carries_its_op_label(folder, label: str) -> None:
    module = after(folder())
    labels = set()
    for comp in module.computations:
        graph = build_graph(module, comp)
        for node in graph.nodes:
            instr = comp.instruction(node.instruction)
            assert node.label == op_label(instr, module), node.instruction
            assert (
                node_width(node) >= 20 + 7.8 * min(len(node.label), 38) or node_width(node) == 320.0
            ), f"{node.instruction}: its label fits its box"
            labels.add(node.label)
    assert label in labels, f"no {label!r} node in {sorted(labels)}"


def test_a_gemm_node_names_its_library_call(corpus: Path) -> None:
    (path,) = (corpus / ROCM).glob("module_0011.*gfx942_gpu_after_optimizations.txt")
    module = load_module(path).module
    graph = build_graph(module, module.entry)
    node = next(n for n in graph.nodes if n.instruction == "custom-call.1")
    assert node.label == "custom-call __cublas$lt$matmul"
