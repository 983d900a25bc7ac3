"""The core never imports Qt: only ``xlaview.qt`` may (and the CLI, lazily, inside a command)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import xlaview

PACKAGE = Path(xlaview.__file__).parent
QT_MODULES = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "xlaview.qt")
# Modules that reach the GUI only through a lazy import inside a function.
LAZY_GUI_ENTRY_POINTS = {"__main__.py", "collect.py"}


def core_files() -> list[Path]:
    return [
        p
        for p in PACKAGE.rglob("*.py")
        if "qt" not in p.relative_to(PACKAGE).parts[:1]
    ]


def qt_imports(path: Path, top_level_only: bool) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        found += [n for n in names if n.startswith(QT_MODULES)]
    return found


def test_core_modules_do_not_import_qt() -> None:
    offenders = {}
    for path in core_files():
        rel = path.relative_to(PACKAGE)
        lazy_ok = rel.parts[0] == "cli" or (path.name in LAZY_GUI_ENTRY_POINTS and len(rel.parts) == 1)
        imports = qt_imports(path, top_level_only=lazy_ok)
        if imports:
            offenders[str(path.relative_to(PACKAGE))] = imports
    assert not offenders, f"Qt imported from the core: {offenders}"


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
