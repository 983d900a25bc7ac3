"""Whole hostile folders through every command (issue 15).

Hypothesis builds a dump folder: modules with names full of markup, terminal
escapes and bytes that are not UTF-8; their HLO files and reports as regular
files (real, truncated, one-line, binary, empty, damaged reports), FIFOs,
links to /dev/zero or to nothing, unreadable or 3 GiB sparse files, a copy
deeper than the index searches. Each command runs in its own process under a
4 GB address-space cap and a time limit, and must: not hang, not die of a
signal, print no traceback and no raw control character, exit non-zero (with
one clear line) exactly where it could not do its job, and leave the folder
as it was. What "could do its job" means is modelled below from the folder's
recipe, independently of xlaview's index.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hostile import (
    HLO_CONTENTS,
    REPORT_CONTENTS,
    REPORTS,
    check_run,
    create,
    readable,
    snapshot,
    xlaview_capped,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("XLAVIEW_FUZZ_EXAMPLES", "8"))

NAME_PARTS = st.sampled_from([
    "jit_f", "<img src=&#47;dev&#47;zero>", "<b>x<&#47;b>", "&amp;", "\x1b]0;pwned\x07", "\x1b[31m",
    "\n", "\r", "\t", "\u202e", "é", "×", "_", "-",
])  # fmt: skip
RAW_BYTES = st.sampled_from([b"", b"\xff", b"\xfe\x80", b"\xc3"])
HLO_ROLES = ("before", "after", "pass1", "pass2")
REPORT_ROLES = ("buffer-assignment", "live-range", "memory-usage-report")
KINDS = ("file",) * 6 + ("fifo", "zero", "dangling", "huge", "unreadable")


@dataclass
class File:
    role: str
    kind: str
    content: str  # a key of HLO_CONTENTS or REPORT_CONTENTS


@dataclass
class Module:
    id: int
    name: bytes
    files: list[File] = field(default_factory=list)

    def rel(self, role: str) -> bytes:
        base = b"module_%04d." % self.id + self.name
        if role == "before":
            return base + b".cpu_before_optimizations.txt"
        if role == "after":
            return base + b".cpu_after_optimizations.txt"
        if role.startswith("pass"):
            return base + b".%04d.pipe.after_x%s.before_y.txt" % (int(role[4:]), role.encode())
        return base + b".cpu_after_optimizations-" + role.encode() + b".txt"


@st.composite
def names(draw) -> bytes:
    parts = draw(st.lists(st.tuples(NAME_PARTS, RAW_BYTES), min_size=1, max_size=4))
    return b"".join(p.encode() + raw for p, raw in parts)


@st.composite
def modules(draw) -> list[Module]:
    ids = draw(st.lists(st.integers(0, 9999), min_size=1, max_size=3, unique=True))
    out = []
    for module_id in ids:
        module = Module(module_id, draw(names()))
        # Weighted towards files that work, so that the commands' success
        # paths also meet hostile names and neighbours.
        for role in HLO_ROLES:
            if draw(st.integers(0, 3)):
                content = draw(st.sampled_from(["good"] * 4 + sorted(HLO_CONTENTS)))
                module.files.append(File(role, draw(st.sampled_from(KINDS)), content))
        for role in REPORT_ROLES:
            if draw(st.booleans()):
                module.files.append(
                    File(
                        role,
                        draw(st.sampled_from(KINDS)),
                        draw(st.sampled_from(sorted(REPORT_CONTENTS))),
                    )
                )
        out.append(module)
    return out


def build(root: Path, recipe: list[Module], deep: bool) -> None:
    for module in recipe:
        for f in module.files:
            if f.role in HLO_ROLES:
                content = HLO_CONTENTS[f.content][0]
            else:
                content = REPORT_CONTENTS[f.content] or REPORTS[f.role]
            create(root, module.rel(f.role), f.kind, content)
    if deep:  # a good module below the levels the index searches
        create(
            root,
            b"d/" * 10 + b"module_0000.jit_deep.cpu_after_optimizations.txt",
            "file",
            HLO_CONTENTS["good"][0],
        )


# -------------------------------------------------------------------- the model


class Model:
    """What each command can do with a recipe's folder."""

    def __init__(self, root: Path, recipe: list[Module]) -> None:
        self.root = root
        self.files: dict[int, dict[str, File]] = {
            m.id: {f.role: f for f in m.files} for m in recipe
        }
        self.modules = {m.id: m for m in recipe}

    def present(self, module: int, role: str) -> bool:
        """Whether the file is a regular file, and so in the index."""
        f = self.files[module].get(role)
        return f is not None and f.kind in ("file", "unreadable", "huge")

    def works(self, module: int, role: str) -> bool:
        """Whether the file reads as HLO text with at least one computation."""
        f = self.files[module].get(role)
        if f is None or f.kind not in ("file", "unreadable") or not HLO_CONTENTS[f.content][1]:
            return False
        return readable(self.root, self.modules[module].rel(role))

    def reads(self, module: int, role: str) -> bool:
        """Whether the file reads as text (not binary, not too large)."""
        f = self.files[module].get(role)
        return (
            f is not None
            and f.kind in ("file", "unreadable")
            and f.content != "binary"
            and readable(self.root, self.modules[module].rel(role))
        )

    def indexed(self) -> list[int]:
        return sorted(m for m in self.files if any(self.present(m, r) for r in self.files[m]))

    def default(self) -> int | None:
        """The module commands show when none is named: the one the index's
        `default_module` picks (the rule itself is tested with the folders)."""
        from xlaview.dump.index import index_dump
        from xlaview.dump.main_module import default_module

        index = index_dump(self.root)
        return default_module(index).id if index.modules else None

    def last_point(self, module: int) -> str | None:
        for role in ("after", "pass2", "pass1", "before"):
            if self.present(module, role):
                return role
        return None


# -------------------------------------------------------------------- the test


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(recipe=modules(), deep=st.booleans(), strict_terminal=st.booleans())
def test_hostile_folders_through_every_command(
    recipe: list[Module], deep: bool, strict_terminal: bool
) -> None:
    with tempfile.TemporaryDirectory(prefix="xlaview-hostile-") as tmp:
        root = Path(tmp) / "dump"
        root.mkdir()
        build(root, recipe, deep)
        _every_command(root, Path(tmp) / "out.png", recipe, strict_terminal)


def _check(run, command: str, ok: bool) -> None:
    event(f"{command} {'works' if ok else 'fails'}")  # --hypothesis-show-statistics
    check_run(run, command, ok)


def _every_command(root: Path, png: Path, recipe: list[Module], strict_terminal: bool) -> None:
    model = Model(root, recipe)
    before = snapshot(root)
    # Half the runs print to a terminal that takes ASCII only, and says so strictly.
    env = {"PYTHONIOENCODING": "ascii:strict", "LC_ALL": "C"} if strict_terminal else {}
    default = model.default()
    folder = str(root)

    run = xlaview_capped("summary", folder, env=env)
    _check(run, "summary", True)
    run = xlaview_capped("summary", "--json", folder, env=env)
    _check(run, "summary", True)
    _strict_json(run.stdout)

    # traffic and export: the default module's final dump, else its last pass dump
    point = model.last_point(default) if default is not None else None
    ok = point is not None and model.works(default, point)
    _check(xlaview_capped("traffic", folder, env=env), "traffic", ok)

    ok = default is not None and model.works(default, "before") and model.works(default, "after")
    _check(xlaview_capped("diff", folder, "--from", "before", "--to", "after", env=env), "diff", ok)

    # inspect: the default module's final dump, else any HLO file of the recipe.
    target = next(
        ((m.id, f.role) for m in recipe for f in m.files if m.id == default and f.role == "after"),
        None,
    )
    target = target or next(
        (
            (m.id, f.role)
            for m in recipe
            for f in m.files
            if f.role in ("before", "after", "pass1", "pass2")
        ),
        None,
    )
    if target is not None:
        path = os.path.join(os.fsencode(root), model.modules[target[0]].rel(target[1]))
        _check(xlaview_capped("inspect", path, env=env), "inspect", model.works(*target))

    with_after = [m for m in model.indexed() if model.present(m, "after")]
    ok = bool(with_after) and all(model.reads(m, "after") for m in with_after)
    _check(xlaview_capped("compare", folder, folder, env=env), "compare", ok)

    ok = point is not None and model.works(default, point)
    run = xlaview_capped("export", folder, "--out", str(png), env=env, timeout=60)
    _check(run, "export", ok)
    assert png.exists() == ok, f"an image written {png.exists()}, expected {ok}: {run}"
    png.unlink(missing_ok=True)

    assert snapshot(root) == before, "a command changed the dump folder"


def _strict_json(out: bytes) -> None:
    """One JSON document, valid UTF-8, no lone surrogate anywhere."""
    document = json.loads(out.decode("utf-8"))

    def walk(value: object) -> None:
        if isinstance(value, str):
            value.encode("utf-8")  # raises on a lone surrogate
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(document)
