"""The module list shows a module by its framework's name, the whole HLO
module name in the tooltip; the filter finds either."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLineEdit, QTreeWidget

TF_NAME = (
    "a_inference_step_90__XlaMustCompile_true_config_proto_13561319589895757934"
    "_executor_type_11160318154034397263_.5"
)
TEXT = (
    "HloModule {name}\n\nENTRY %main (p: f32[4]) -> f32[4] {{\n"
    "  %p = f32[4]{{0}} parameter(0)\n  ROOT %n = f32[4]{{0}} negate(%p)\n}}\n"
)


def framework_dump(folder: Path) -> Path:
    """A hand-written folder: a TensorFlow function, a JAX jit, a PyTorch/XLA graph."""
    folder.mkdir()
    for number, name in ((5, TF_NAME), (7, "jit_f"), (9, "SyncTensorsGraph.105381")):
        (folder / f"module_{number:04d}.{name}.cpu_after_optimizations.txt").write_text(
            TEXT.format(name=name)
        )
    return folder


def test_the_module_list_shows_framework_names(window, qtbot, tmp_path: Path) -> None:
    window.open_dump(framework_dump(tmp_path / "dump"))
    window.wait_idle()
    entries = {e.module.id: (e.shown, e.full) for e in window.model.module_entries()}
    assert entries == {
        5: ("step", f"module_0005 {TF_NAME}"),
        7: ("jit_f", "module_0007 jit_f"),
        9: ("SyncTensorsGraph.105381", "module_0009 SyncTensorsGraph.105381"),
    }
    tree = window.findChild(QTreeWidget, "moduleList")
    rows = {tree.topLevelItem(i).text(0): tree.topLevelItem(i) for i in range(3)}
    assert rows["0005"].text(1) == "step"
    assert TF_NAME in rows["0005"].toolTip(1), "the whole name in the tooltip"
    assert [rows[k].text(1) for k in ("0007", "0009")] == ["jit_f", "SyncTensorsGraph.105381"]
    # The filter finds a module by what it shows and by its whole name.
    modules_filter = window.findChild(QLineEdit, "moduleFilter")
    for needle, shown in (("XlaMustCompile", {"0005"}), ("step", {"0005"}), ("jit", {"0007"})):
        modules_filter.setText(needle)
        assert {k for k, item in rows.items() if not item.isHidden()} == shown, needle
    modules_filter.clear()
    # Picking the row shows that module.
    tree.setCurrentItem(rows["0005"])
    window.wait_idle()
    assert window.model.module is not None and window.model.module.name == TF_NAME
