"""The rooms of the code, enforced beside import-linter's contracts
(``pyproject.toml``, run by ``.ci/run``): what those cannot say is said here.

- no package folder holds more than 16 modules;
- no import cycle between modules, imports inside functions included;
- a room's modules never import the room's own facade (its ``__init__``);
- the core imports with Qt unavailable; the Qt model never imports QtWidgets,
  not even through another module, and runs on a bare QCoreApplication.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

import xlaview

PACKAGE = Path(xlaview.__file__).parent
MAX_MODULES_PER_FOLDER = 16
CORE = (
    "hlo",
    "dump",
    "analysis",
    "text",
    "profile",
    "errors",
    "units",
    "collector",
    "helper",
    "collection",
    "resources",
    "version",
)


def is_core(name: str) -> bool:
    parts = name.split(".")
    return len(parts) > 1 and parts[1] in CORE


def module_name(path: Path) -> str:
    parts = ("xlaview", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts).removesuffix(".__init__")


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


@cache
def imports_of(name: str) -> frozenset[str]:
    """What module ``name`` imports, wherever the import is (a function body
    included, ``if TYPE_CHECKING:`` blocks aside): modules of xlaview as the
    module they name (``from a import b`` names ``a.b`` where that is a
    module), and other packages as written."""
    path = modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    found.add(full if full in modules() else base)
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return frozenset(found)


def internal_imports(name: str) -> set[str]:
    return {m for m in imports_of(name) if m in modules() and m != name}


def test_no_folder_holds_more_than_16_modules() -> None:
    crowded = {}
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        if count > MAX_MODULES_PER_FOLDER:
            crowded[str(folder.relative_to(PACKAGE.parent))] = count
    assert not crowded, f"more than {MAX_MODULES_PER_FOLDER} modules: {crowded}"


def test_no_import_cycles_between_modules() -> None:
    """Tarjan's strongly connected components over every import. A
    package's ``__init__`` importing its own modules is not a cycle unless
    one of them imports the package back (the next test forbids that)."""
    graph = {name: internal_imports(name) for name in modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    assert not cycles, f"import cycles: {cycles}"


def test_no_module_imports_its_own_facade() -> None:
    offenders = {}
    for name in modules():
        parts = name.split(".")
        ancestors = {".".join(parts[:i]) for i in range(2, len(parts))}
        found = sorted(internal_imports(name) & ancestors)
        if found:
            offenders[name] = found
    assert not offenders, f"import the module, not the facade: {offenders}"


def test_core_modules_never_import_qt_the_window_or_the_cli() -> None:
    offenders = {}
    for name in modules():
        if not is_core(name):
            continue
        found = sorted(
            m
            for m in imports_of(name)
            if m.split(".")[0] in ("PySide6", "shiboken6")
            or m.startswith(("xlaview.qt", "xlaview.cli"))
        )
        if found:
            offenders[name] = found
    assert not offenders, f"the core imports the GUI: {offenders}"


def test_the_qt_model_never_imports_widgets_even_indirectly() -> None:
    seen: set[str] = set()
    todo = [m for m in modules() if m.startswith("xlaview.qt.model")]
    offenders = {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        widgets = sorted(m for m in imports_of(name) if m.startswith("PySide6.QtWidgets"))
        if widgets:
            offenders[name] = widgets
        todo += internal_imports(name)
    assert not offenders, f"reached from xlaview.qt.model: {offenders}"


def test_core_imports_with_qt_unavailable() -> None:
    """Import every core module in a process where importing PySide6 fails."""
    core = sorted(m for m in modules() if is_core(m))
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6'):\n"
        "            raise ImportError('Qt is blocked in this test')\n"
        "sys.meta_path.insert(0, Block())\n"
        f"import importlib\nfor m in {core!r}: importlib.import_module(m)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr


def test_the_view_model_runs_on_a_bare_core_application() -> None:
    """The view model opens the sample, shows a pass, selects an op and
    prices it with a QCoreApplication only: no widget, no QtWidgets loaded."""
    script = (
        "import sys\n"
        "from PySide6.QtCore import QCoreApplication\n"
        "app = QCoreApplication([])\n"
        "from xlaview.qt.model.view_model import ViewModel\n"
        "from xlaview.resources import sample_dump\n"
        "model = ViewModel()\n"
        "model.open_dump(sample_dump())\n"
        "assert model.wait_idle(60000)\n"
        "model.select_instruction('convert_exponential_fusion')\n"
        "assert model.wait_idle(60000)\n"
        "state = model.view_state()\n"
        "assert state['text_pass'] == 'after', state\n"
        "assert state['selection'] == 'convert_exponential_fusion', state\n"
        "assert model.selection.described.get('cost'), 'the selection is priced'\n"
        "assert 'PySide6.QtWidgets' not in sys.modules, 'QtWidgets was imported'\n"
        "model.shutdown()\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=300
    )
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]


def test_qt_modules_stay_small() -> None:
    """One job per module: the Qt layer's modules at most 500 lines (as ruff
    formats them: 450 before the tree was formatted so)."""
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in (PACKAGE / "qt").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 500
    }
    assert not long, f"split these: {long}"
