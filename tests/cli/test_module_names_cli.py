"""``summary --json`` gives each module its framework's name beside its HLO name."""

from __future__ import annotations

import json
from pathlib import Path

from commands import xlaview

TF_NAME = (
    "a_inference_step_90__XlaMustCompile_true_config_proto_13561319589895757934"
    "_executor_type_11160318154034397263_.5"
)
MODULE = (
    "HloModule {name}\n\nENTRY %main (p: f32[4]) -> f32[4] {{\n"
    "  %p = f32[4]{{0}} parameter(0)\n  ROOT %n = f32[4]{{0}} negate(%p)\n}}\n"
)


def test_summary_json_has_display_names(tmp_path: Path) -> None:
    for number, name in ((5, TF_NAME), (7, "jit_f"), (9, "SyncTensorsGraph.105381")):
        path = tmp_path / f"module_{number:04d}.{name}.before_optimizations.txt"
        path.write_text(MODULE.format(name=name))
    (tmp_path / "module_0011.after_optimizations.txt").write_text(MODULE.format(name="old"))
    document = json.loads(xlaview("summary", "--json", str(tmp_path)).stdout)
    shown = {m["id"]: (m["name"], m["display_name"]) for m in document["modules"]}
    assert shown == {
        5: (TF_NAME, "step"),
        7: ("jit_f", "jit_f"),
        9: ("SyncTensorsGraph.105381", "SyncTensorsGraph.105381"),
        11: shown[11],
    }
    assert shown[11][1] == shown[11][0], "a name read from the text, or none: as it is"
