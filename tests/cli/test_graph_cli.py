"""``xlaview graph``, as a user runs it: the folded structure of a
computation on real dumps (JAX named scopes, an unrolled GPT train step,
TensorFlow and PyTorch/XLA programs) and on HLO with no metadata."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import commands
import pytest
from programs.frameworks import dump_of, params, program_module, summary

ROOT = Path(__file__).parent.parent.parent
KEYS = {"computation", "nodes", "edges", "groups", "top_level"}
OP_NAME = re.compile(r'op_name="([^"]*)"')
GROUP_KEYS = {"name", "kind", "nodes", "repeats", "children"}


def graph_json(*args: str) -> Any:
    return json.loads(commands.xlaview("graph", "--json", *args).stdout)


def walk(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every group of the tree, parents first."""
    out, todo = [], list(reversed(groups))
    while todo:
        group = todo.pop()
        out.append(group)
        todo.extend(reversed(group["children"]))
    return out


def check_shape(doc: dict[str, Any]) -> None:
    assert set(doc) == KEYS
    for group in walk(doc["groups"]):
        assert set(group) == GROUP_KEYS, group.keys()
        assert group["kind"] in ("scope", "repeat")
        if group["kind"] == "scope":
            assert group["repeats"] == 1
        inside = sum(c["nodes"] for c in group["children"])
        assert inside <= group["nodes"], group["name"]


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("jax")
    out = tmp_path_factory.mktemp("scoped")
    program = ROOT / "tests" / "programs" / "scoped.py"
    subprocess.run([sys.executable, str(program), str(out), "--blocks", "10"], check=True)
    return out


def test_named_scopes(scoped) -> None:
    doc = graph_json(str(scoped))
    check_shape(doc)
    names = {g["name"] for g in walk(doc["groups"])}
    for i in range(10):
        assert {f"jvp(block_{i})", f"transpose(jvp(block_{i}))"} <= names, sorted(names)
    assert {"attention", "mlp"} <= names
    assert doc["computation"].startswith("main")
    assert doc["top_level"] <= 36, "a few dozen boxes at most, folded"
    text = commands.xlaview("graph", str(scoped)).stdout
    assert f"{doc['top_level']} top-level box" in text
    assert "    transpose(jvp(block_9))" in text, "an indented tree"


def test_points_and_computations_resolve_as_other_commands(scoped) -> None:
    before = graph_json(str(scoped), "--pass", "before")
    after = graph_json(str(scoped), "--module", "0", "--pass", "after")
    assert before["nodes"] != after["nodes"]
    flat = graph_json(str(scoped), "--group", "none")
    assert flat["groups"] == [] and flat["top_level"] == flat["nodes"] == after["nodes"]
    missing = commands.xlaview("graph", str(scoped), "--computation", "nope", check=False)
    assert missing.returncode == 2 and "no computation 'nope'" in missing.stderr
    fusion = next(
        line.split()[0].lstrip("%")
        for line in next(scoped.glob("*after_optimizations.txt")).read_text().splitlines()
        if line.startswith("%fused") or line.startswith("fused")
    )
    inner = graph_json(str(scoped), "--computation", fusion)
    assert inner["computation"] == fusion


@pytest.mark.parametrize("grouping", ["scope", "repeats", "none"])
def test_hlo_without_metadata(tmp_path, grouping) -> None:
    lines = ["HloModule m", "", "ENTRY main {", "  x = f32[8]{0} parameter(0)"]
    prev = "x"
    for i in range(30):
        lines += [f"  a{i} = f32[8]{{0}} add({prev}, x)", f"  t{i} = f32[8]{{0}} tanh(a{i})"]
        prev = f"t{i}"
    lines += [f"  ROOT r = f32[8]{{0}} negate({prev})", "}"]
    file = tmp_path / "m.hlo"
    file.write_text("\n".join(lines) + "\n")
    doc = graph_json(str(file), "--group", grouping)
    check_shape(doc)
    if grouping == "none":
        assert doc["groups"] == []
    else:
        (repeat,) = doc["groups"]
        assert repeat["kind"] == "repeat" and repeat["repeats"] >= 29


@pytest.mark.slow
def test_unrolled_gpt_folds_forward_and_backward_blocks(tmp_path_factory) -> None:
    pytest.importorskip("jax")
    layers = 12
    out = tmp_path_factory.mktemp("gpt12")
    script = ROOT / "benchmarks" / "gpt.py"
    subprocess.run([sys.executable, str(script), str(out), "--layers", str(layers)], check=True)
    for grouping in ("scope", "repeats"):
        doc = graph_json(str(out), "--group", grouping)
        check_shape(doc)
        assert doc["top_level"] <= 200, grouping
        repeats = [g for g in walk(doc["groups"]) if g["repeats"] > 1 and g["children"]]
        assert len(repeats) == 2, [(g["name"], g["repeats"]) for g in repeats]
        assert all(g["repeats"] >= layers - 3 for g in repeats), repeats
        for g in repeats:
            assert len(g["children"]) == g["repeats"], "each instance a group of its own"
    doc = graph_json(str(out))
    scopes = {g["name"]: g for g in walk(doc["groups"])}

    def runs(scope: str) -> list[dict]:
        return [c for c in scopes[scope]["children"] if c["kind"] == "repeat" and c["children"]]

    forward, backward = runs("jvp()"), runs("transpose(jvp())")
    assert len(forward) == len(backward) == 1, "one run on each chain"
    step = scopes["jit(train_step)"]
    updates = [c for c in step["children"] if c["name"].startswith("multiply_subtract_fusion x")]
    assert sum(c["repeats"] for c in updates) == 6 * layers + 1, "each weight's update, by shape"
    own = step["nodes"] - sum(c["nodes"] for c in step["children"])
    assert own + len(step["children"]) <= 20, "opened, the step is a picture of a few boxes"


@pytest.mark.parametrize("case", params())
def test_framework_dumps_group_by_their_scopes(request, case) -> None:
    folder = dump_of(request, case)
    module = program_module(folder, summary(folder))
    doc = graph_json(str(folder), "--module", f"{module['id']:04d}")
    check_shape(doc)
    # TensorFlow's gradient_tape/... scopes; PyTorch/XLA (2.9) writes no op_name
    # with a scope, and these programs' forward ops are flat ("Softmax").
    text = (folder / module["after_optimizations"]).read_text()
    scopes = {op.split("/")[0] for op in OP_NAME.findall(text) if "/" in op}
    top = {g["name"].split("/")[0] for g in doc["groups"] if g["kind"] == "scope"}
    assert top <= scopes, "groups named by their scopes"
    if scopes:
        assert top, "their op_name scopes make groups"
        assert doc["top_level"] < doc["nodes"]
    else:
        assert doc["top_level"] == doc["nodes"] or doc["groups"], "flat, or folded by repeats"


def test_out_draws_the_whole_graph_with_its_key(tmp_path: Path) -> None:
    """``graph --out`` draws the whole graph as ``export --graph`` does: a PNG
    of the scene, an SVG whose text keeps each node's name and the key."""
    from PySide6.QtGui import QImage

    from xlaview.resources import sample_dump

    png, svg = tmp_path / "g.png", tmp_path / "g.svg"
    commands.xlaview("graph", str(sample_dump()), "--out", str(png))
    commands.xlaview("graph", str(sample_dump()), "--group", "none", "--out", str(svg))
    image = QImage(str(png))
    assert image.height() > 1500 and image.width() > 600, image.size()
    text = svg.read_text()
    assert "dot_general.6" in text and "convert_exponential_fusion" in text
    assert "long edge" in text, "the key"
    bad = commands.xlaview(
        "graph", str(sample_dump()), "--out", str(tmp_path / "g.jpg"), check=False
    )
    assert bad.returncode != 0 and ".png or .svg" in bad.stderr
