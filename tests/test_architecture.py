"""The layers of the code, enforced: the core never imports Qt, and imports
point down only (hlo < dump < analysis < profile; text, units, errors and the
helper process beside them; qt and cli on top)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import xlaview

PACKAGE = Path(xlaview.__file__).parent
QT_MODULES = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "xlaview.qt")
# Modules that reach the GUI only through a lazy import inside a function.
LAZY_GUI_ENTRY_POINTS = {"__main__.py", "collect.py"}

# What each part of the package may import of xlaview. Leaves first.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "units": set(),
    "collector": set(),
    "helper": {"errors"},
    "resources": set(),
    "hlo": {"errors", "units", "collector"},
    "text": {"errors", "units"},
    "dump": {"hlo", "errors", "units", "collector"},
    "analysis": {"dump", "hlo", "text", "errors", "units", "collector"},
    "profile": {"analysis", "dump", "hlo", "errors", "units"},
    "collect": {"dump", "errors", "units", "profile"},
}
TOP = {"qt", "cli", "__init__", "__main__"}  # may import anything (qt: not cli)


def part_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def core_files() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if part_of(p) != "qt"]


def imports(path: Path, top_level_only: bool) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def test_core_modules_do_not_import_qt() -> None:
    offenders = {}
    for path in core_files():
        rel = path.relative_to(PACKAGE)
        lazy_ok = rel.parts[0] == "cli" or (path.name in LAZY_GUI_ENTRY_POINTS
                                            and len(rel.parts) == 1)
        found = [n for n in imports(path, top_level_only=lazy_ok) if n.startswith(QT_MODULES)]
        if found:
            offenders[str(rel)] = found
    assert not offenders, f"Qt imported from the core: {offenders}"


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_imports_point_down(part: str) -> None:
    offenders = {}
    for path in PACKAGE.rglob("*.py"):
        if part_of(path) != part:
            continue
        # A lazy import of the GUI inside a function (collect --open) is allowed.
        lazy_ok = path.name in LAZY_GUI_ENTRY_POINTS
        for name in imports(path, top_level_only=lazy_ok):
            if not name.startswith("xlaview."):
                continue
            target = name.split(".")[1]
            if target != part and target not in ALLOWED[part]:
                offenders.setdefault(str(path.relative_to(PACKAGE)), []).append(name)
    assert not offenders, f"{part} may import only {sorted(ALLOWED[part])}: {offenders}"


def test_every_part_has_a_place() -> None:
    parts = {part_of(p) for p in PACKAGE.rglob("*.py")}
    assert parts <= set(ALLOWED) | TOP, f"unplaced: {parts - set(ALLOWED) - TOP}"


def test_qt_never_imports_the_cli() -> None:
    offenders = [str(p.relative_to(PACKAGE)) for p in (PACKAGE / "qt").rglob("*.py")
                 if any(n.startswith("xlaview.cli") for n in imports(p, top_level_only=False))]
    assert not offenders


def test_core_imports_with_qt_unavailable() -> None:
    """Import every core module in a process where importing PySide6 fails."""
    modules = sorted(
        ".".join(("xlaview", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        for p in core_files()
        if p.name != "__main__.py"  # running it starts the app
    )
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6'):\n"
        "            raise ImportError('Qt is blocked in this test')\n"
        "sys.meta_path.insert(0, Block())\n"
        f"import importlib\nfor m in {modules!r}: importlib.import_module(m)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_modules_stay_small() -> None:
    """One job per module: the Qt layer's modules at most 450 lines."""
    long = {str(p.relative_to(PACKAGE)): n for p in (PACKAGE / "qt").rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 450}
    assert not long, f"split these: {long}"
