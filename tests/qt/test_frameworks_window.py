"""The window on dumps of TensorFlow and PyTorch/XLA programs compiled at test
time (tests/programs/frameworks.py; skipped, saying why, without them), through
MainWindow's public API as a user would drive it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cost_oracle import relative_difference, xla_costs
from programs.frameworks import dump_of, kernel_files, params, program_module, summary
from PySide6.QtWidgets import QPlainTextEdit, QTreeWidget


def problems(window) -> list[str]:
    return [f"{p.path}:{p.line}: {p.message}" for p in window.problems.problems]


def opened(window, folder: Path) -> None:
    window.open_dump(folder)
    assert window.wait_idle()


@pytest.mark.parametrize("case", params())
def test_every_module_is_listed_by_its_name(window, request, case) -> None:
    folder = dump_of(request, case)
    index = summary(folder)
    opened(window, folder)
    modules = window.findChild(QTreeWidget, "moduleList")
    rows = [
        (modules.topLevelItem(r).text(0), modules.topLevelItem(r).text(1))
        for r in range(modules.topLevelItemCount())
    ]
    assert sorted(rows) == sorted((f"{m['id']:04d}", m["display_name"]) for m in index["modules"])
    assert problems(window) == [], "nothing routine is a problem"


@pytest.mark.parametrize("case", params())
def test_the_window_opens_the_program(window, request, case) -> None:
    folder = dump_of(request, case)
    main = program_module(folder, summary(folder))
    opened(window, folder)
    state = window.view_state()
    assert state["module"] == main["name"], f"opened {state['module']}, not {main['name']}"
    assert state["pass"] == state["text_pass"] == state["graph_pass"] == "after"
    assert state["memory"] == main["memory"], "the memory summary --json gives"


@pytest.mark.parametrize("case", params())
def test_each_module_shows_its_text_graph_and_xla_cost(window, request, case) -> None:
    folder = dump_of(request, case)
    index = summary(folder)
    afters = {m["id"]: str(folder / m["after_optimizations"]) for m in index["modules"]}
    theirs = xla_costs(afters.values())
    opened(window, folder)
    window.bottom_tabs.setCurrentWidget(window.cost_panel)
    for m in index["modules"]:
        window.select_module(m["id"])
        assert window.wait_idle()
        state = window.view_state()
        assert state["module"] == m["name"] and state["pass"] == "after"
        assert state["computation"] is not None and window.graph_pane.main.graph is not None
        assert window.text.toPlainText() == Path(afters[m["id"]]).read_text()
        assert state["memory"] == m["memory"]
        shown = window.cost_panel.shown
        assert shown is not None and shown.device.name == "cpu"
        xla = theirs[afters[m["id"]]]
        for key, ours in (
            ("flops", shown.cost.flops),
            ("transcendentals", shown.cost.transcendentals),
            ("bytes accessed", shown.cost.bytes_accessed),
        ):
            assert relative_difference(ours, xla[key]) < 0.005, (m["name"], key, ours, xla[key])
        assert not shown.cost.unknown_ops
    assert problems(window) == []


@pytest.mark.parametrize("case", params())
def test_every_pass_of_the_program_shows(window, request, case) -> None:
    folder = dump_of(request, case)
    main = program_module(folder, summary(folder))
    opened(window, folder)
    window.select_module(main["id"])
    assert window.wait_idle()
    files = {"before": main["before_optimizations"], "after": main["after_optimizations"]}
    files |= {str(p["seq"]): p["file"] for p in main["passes"]}
    keys = [p.key for p in window.timeline.points]
    assert keys == ["before", *(str(p["seq"]) for p in main["passes"]), "after"]
    for key in keys:
        window.select_pass(key)
        assert window.wait_idle()
        state = window.view_state()
        assert str(state["pass"]) == str(state["text_pass"]) == str(state["graph_pass"]) == key
        assert window.text.toPlainText() == (folder / files[key]).read_text(), key
        assert window.graph_pane.main.graph is not None, key
    assert problems(window) == [], "every pass dump reads"


@pytest.mark.parametrize("case", params())
def test_a_selected_op_shows_its_kernel(window, request, case) -> None:
    folder = dump_of(request, case)
    main = program_module(folder, summary(folder))
    opened(window, folder)
    window.select_module(main["id"])
    assert window.wait_idle()
    kernels = kernel_files(main)
    assert "fusion" in kernels, kernels
    listed = sorted(a.text() for a in window.levels_bar.filled_menu().actions() if a.text())
    assert listed == sorted(name for files in kernels.values() for name, _ in files), (
        "the levels bar lists every kernel of the module"
    )
    for (name, _file), *_ in kernels.values():
        window.select_instruction(name)
        window.code_tabs.show_kernel()
        assert window.wait_idle()
        assert window.view_state()["selection"] == name
        assert name in window.inspector.toPlainText()
        code = window.findChild(QPlainTextEdit, "kernelText").toPlainText()
        assert re.search(rf"^define \S+ @{re.escape(name)}(_kernel)?\(", code, re.M), (
            name,
            code[:300],
        )
        assert "object file" in window.code_tabs.kernel.header.text()
    # An unfused dot runs in a library: no kernel of its own, and said why.
    after = (folder / main["after_optimizations"]).read_text()
    dot = re.search(r"^\s+(?:ROOT )?%?([\w.-]+) = \S+ dot\(", after, re.M)
    assert dot
    window.select_instruction(dot.group(1))
    assert window.wait_idle()
    assert "no kernel" in window.code_tabs.kernel.header.text()
    # These frameworks hand XLA HLO: no module.mlir, and the tab says so.
    window.code_tabs.show_stablehlo()
    assert window.wait_idle()
    assert window.findChild(QPlainTextEdit, "stablehloText").toPlainText() == ""
    assert "module.mlir" in window.code_tabs.stablehlo.header.text()
    assert problems(window) == []
