"""Two dumps of one program matched op by op (`xlaview.analysis.matching`),
on real dumps: compiled twice, with and without XLA:CPU's library fusions,
with an op more; and `xlaview compare --json`'s contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commands import xlaview

from xlaview.analysis.matching import HOW, match_instructions
from xlaview.dump.modules import load_module
from xlaview.resources import sample_dump, sample_dump_default_flags

UNFUSED = sample_dump()  # the seed attention at 8192, library fusions off
FUSED = sample_dump_default_flags()  # the same program, one library fusion


def final(folder: Path):
    (path,) = folder.glob("*cpu_after_optimizations.txt")
    return load_module(path).module


def entry_names(module) -> list[str]:
    return [i.name for i in module.entry.instructions]


def test_the_same_program_compiled_twice_matches_every_op_by_name(matching_dumps) -> None:
    a, b = final(matching_dumps["default"]), final(matching_dumps["again"])
    matching = match_instructions(a, b)
    assert [m.a for m in matching.matches] == entry_names(a), "every op of the first matched"
    assert {m.how for m in matching.matches} == {"name"}
    assert all(m.a == m.b and not m.changed for m in matching.matches), "nothing changed"
    assert not (matching.only_a or matching.only_b or matching.splits or matching.merges)


def test_the_library_fusion_is_a_merge_found_through_metadata() -> None:
    a, b = final(UNFUSED), final(FUSED)
    matching = match_instructions(a, b)
    fused = matching.in_a("ynn_fusion")
    assert fused is not None and fused.how == "metadata", matching.to_json()
    assert fused.a == "dot_general.7" and "opcode" in fused.aspects  # the last dot's op_name
    (merge,) = matching.merges
    assert merge.b == ("ynn_fusion",)
    # The softmax's [8192,8192] steps, with no metadata of their own, are in it too.
    for name in ("dot_general.6", "convert_exponential_fusion", "convert_convert_fusion"):
        assert name in merge.a, merge
        assert matching.group_in_b(name) is merge
    assert matching.in_b("x.1") is not None and matching.in_b("x.1").how == "name"
    # The constants only the softmax's steps read are inside the library fusion now.
    assert {"constant.4", "constant.5"} <= set(merge.a) and not matching.only_a, merge


def test_compare_json_ranks_the_removed_8192_squared_intermediates_first() -> None:
    document = json.loads(
        xlaview("compare", "--json", str(UNFUSED), str(FUSED), "--module", "jit_attention").stdout
    )
    assert document["matched_module"]["a"] == document["matched_module"]["b"] == "jit_attention"
    # The keys compare gave before are kept.
    assert {"left", "right", "modules"} <= set(document)
    assert document["modules"][0]["left"]["fusion_counts"]["kLoop"] == 15
    for key in ("matches", "splits", "merges", "only_a", "only_b", "summary"):
        assert key in document, key
    for match in document["matches"]:
        assert {"a", "b", "how", "changed", "delta"} <= set(match)
        assert match["how"] in HOW
        assert set(match["delta"]) == {"flops", "bytes_accessed", "time_s", "traffic_bytes"}
    (merge,) = document["merges"]
    assert merge["b"] == "ynn_fusion" and "convert_exponential_fusion" in merge["a"]
    top = document["summary"][0]
    assert set(top) >= {"what", "a", "b", "delta_time_s", "delta_memory_bytes"}
    assert top["what"] == "merged fusion" and top["b"] == ["ynn_fusion"]
    squares = [i for i in top["intermediates"] if "[8192,8192]" in i["shape"]]
    assert len(squares) == 4 and all(i["side"] == "a" for i in squares), top["intermediates"]
    assert top["delta_memory_bytes"] <= -sum(i["bytes"] for i in squares)
    assert top["delta_time_s"] < 0, "the fused attention is faster on the roofline"
    text = xlaview("compare", str(UNFUSED), str(FUSED)).stdout
    first = text.splitlines()
    assert "What changed" in first[2] and "merged fusion" in first[5], text[:2000]
    assert "-f32[8192,8192] x3" in first[5], first[5]


@pytest.mark.parametrize(
    ("first", "second"),
    [("no_library", "default"), ("default", "no_library"), ("default", "extra_op")],
)
def test_a_flag_or_a_code_change_still_matches_nine_ops_in_ten(
    matching_dumps, first: str, second: str
) -> None:
    a, b = final(matching_dumps[first]), final(matching_dumps[second])
    matching = match_instructions(a, b)
    larger = max(len(a.entry.instructions), len(b.entry.instructions))
    grouped_a = {n for g in (*matching.splits, *matching.merges) for n in g.a}
    grouped = {m.a for m in matching.matches} | grouped_a
    assert len(grouped) >= 0.9 * larger, (len(grouped), larger, matching.to_json())
    names = {m.a: m.b for m in matching.matches}
    assert len(set(names.values())) == len(names), "one to one"
    if "no_library" in (first, second):
        # The library fusions took in reduce steps and elementwise ops: merges
        # one way are splits the other way.
        fused_first = first == "default"
        groups = matching.splits if fused_first else matching.merges
        assert groups, matching.to_json()
        library = [g.a[0] if fused_first else g.b[0] for g in groups]
        assert any(name.startswith("ynn_fusion") for name in library), groups
        reverse = match_instructions(b, a)
        mirrored = reverse.merges if fused_first else reverse.splits
        assert {(g.a, g.b) for g in groups} == {(g.b, g.a) for g in mirrored}
    else:
        # One op more per layer: the new ops are the only ones unmatched.
        assert not matching.only_a and 1 <= len(matching.only_b) <= 3, matching.only_b
        assert not (matching.splits or matching.merges)


def test_pytorch_xla_and_jax_attention_match_by_structure(torch_xla_dumps, matching_dumps) -> None:
    """PyTorch/XLA prints no op_name here, so structure alone matches the
    same attention written in JAX (and compiled by another XLA)."""
    torch_side = torch_xla_dumps["attention"]
    (path,) = torch_side.glob("*cpu_after_optimizations.txt")
    a, b = load_module(path).module, final(matching_dumps["torch_attention"])
    matching = match_instructions(a, b)
    found = {m.a: m.b for m in matching.matches}
    # torch's parameters: wq, x, wk, wv (and the scale); JAX's: x, wq, wk, wv.
    expected = {"p0.1": "wq.1", "p1.2": "x.1", "p2.4": "wk.1", "p3.6": "wv.1"}
    assert {k: found.get(k) for k in expected} == expected, matching.to_json()
    root = a.entry.root.operand_names[-1]  # torch returns q, k, v and the output
    assert found.get(root) == b.entry.root.name, matching.to_json()
    assert all(m.how == "structure" for m in matching.matches)


def test_a_sharding_change_matches_every_op_and_names_the_new_collectives(
    matching_dumps,
) -> None:
    """The batch split over 4 devices, then the features too: each op of the
    first is matched; what the second adds moves data (collectives, copies)."""
    from xlaview.analysis.matching.facts import PLUMBING, moves_data

    a, b = final(matching_dumps["data_parallel"]), final(matching_dumps["model_parallel"])
    matching = match_instructions(a, b)
    assert not matching.only_a, matching.only_a
    assert any(m.how == "metadata" for m in matching.matches)
    added = [b.entry.instruction(name) for name in matching.only_b]
    computing = [
        i.name
        for i in added
        if i.opcode not in PLUMBING and i.opcode != "partition-id" and not moves_data(b, i)
    ]
    assert not computing, computing
    assert any(i.opcode == "all-gather" for i in added), matching.only_b
    reshaped = [m for m in matching.matches if "shape" in m.aspects]
    assert any(m.a.startswith("dot") for m in reshaped), "the dots' per-device shapes changed"


def test_a_change_inside_a_loop_body_changes_the_loop(matching_dumps) -> None:
    a, b = final(matching_dumps["scan"]), final(matching_dumps["scan_changed"])
    matching = match_instructions(a, b)
    loops = [m for m in matching.matches if a.entry.instruction(m.a).opcode == "while"]
    assert loops and all(m.how == "name" for m in loops)
    assert [m.aspects for m in loops if m.changed] == [("body",)], loops
    assert len(matching.matches) == len(a.entry.instructions), "nothing else moved"


def _covered(matching, side: str) -> set[str]:
    """The ops of one side matched or in a split or merge."""
    grouped = {n for g in (*matching.splits, *matching.merges) for n in getattr(g, side)}
    return grouped | {getattr(m, side) for m in matching.matches}


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["default", "torch_attention"])  # a train step, an attention
def test_two_jax_versions_a_year_apart_match_nine_ops_in_ten(tmp_path: Path, variant: str) -> None:
    """The same program compiled by this jax and by one a year older (jax
    0.8.0 of October 2025: its XLA prints ``source_file``/``source_line``
    where this one prints stack frames, and has no single-dot library fusion)."""
    import os
    import subprocess
    import sys

    old = os.environ.get("XLAVIEW_OLD_JAX_PYTHON")
    if not old:
        pytest.skip(
            "set XLAVIEW_OLD_JAX_PYTHON to a Python with an older jax "
            "(python3 -m venv V && V/bin/pip install 'jax[cpu]==0.8.0')"
        )
    script = Path(__file__).parents[1] / "programs" / "matching_programs.py"
    folders = []  # each compiled under its own XLA's default flags (the older knows fewer)
    for k, python in enumerate((old, sys.executable)):
        folder = tmp_path / str(k)
        env = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={folder}", "JAX_PLATFORMS": "cpu"}
        subprocess.run([python, str(script), "--compile", variant], env=env, check=True)
        folders.append(folder)
    a, b = final(folders[0]), final(folders[1])
    larger = max((a, b), key=lambda m: len(m.entry.instructions))
    side = "a" if larger is a else "b"
    for first, second, own in ((a, b, side), (b, a, "b" if side == "a" else "a")):
        matching = match_instructions(first, second)
        covered = _covered(matching, own)
        assert len(covered) >= 0.9 * len(larger.entry.instructions), matching.to_json()
        assert matching.counts()["metadata"], "source lines printed two ways still match"
        assert matching.splits or matching.merges, "the newer XLA's library fusions"
