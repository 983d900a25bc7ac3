"""Collecting dumps: from a command line and from a JAX function."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from xlaview.collection import merge_xla_flags

PROGRAM = textwrap.dedent("""
    import sys, jax, jax.numpy as jnp
    print("hello from the program")
    x = jnp.ones((8, 8))
    print(float(jax.jit(lambda a: jnp.tanh(a @ a).sum())(x)))
    sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
""")


def run(
    *args: str, env: dict | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(
        [sys.executable, "-m", "xlaview", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


@pytest.mark.slow
def test_collect_a_real_program(program: Path, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    proc = run(
        "collect",
        "--out",
        str(out),
        "--",
        sys.executable,
        str(program),
        "3",
        env={"XLA_FLAGS": "--xla_backend_optimization_level=1"},
    )
    assert proc.returncode == 3, proc.stderr  # the program's status passes through
    assert "hello from the program" in proc.stdout
    debug = list(out.glob("*.debug_options"))
    assert debug and all("xla_backend_optimization_level: 1" in p.read_text() for p in debug)
    summary = json.loads(run("summary", "--json", str(out)).stdout)
    lam = next(m for m in summary["modules"] if "lambda" in (m["name"] or ""))
    assert len(lam["passes"]) > 5 and lam["after_optimizations"]
    assert "jit__lambda" in proc.stdout  # the summary table follows the program's output


HELPERS_FIRST = textwrap.dedent("""
    import jax, jax.numpy as jnp
    x = jnp.ones((32, 32))        # compiles jit_broadcast_in_dim, before the program's jit
    w = jnp.full((32, 32), 0.5)

    @jax.jit
    def step(x, w):
        return jnp.tanh(x @ w).sum()

    print(float(step(x, w)))
""")


@pytest.mark.slow
def test_the_programs_own_module_opens_not_the_first_helper(tmp_path: Path) -> None:
    from xlaview.dump.index import index_dump
    from xlaview.dump.main_module import default_module

    script = tmp_path / "helpers_first.py"
    script.write_text(HELPERS_FIRST)
    out = tmp_path / "dump"
    proc = run("collect", "--out", str(out), "--", sys.executable, str(script))
    assert proc.returncode == 0, proc.stderr
    index = index_dump(out)
    helpers = [m for m in index.modules if m.name == "jit_broadcast_in_dim"]
    main = default_module(index)
    assert main.name == "jit_step", [m.title for m in index.modules]
    assert helpers and all(h.id < main.id for h in helpers), "the helpers compiled first"
    traffic = json.loads(run("traffic", "--json", str(out)).stdout)
    assert traffic["module"] == "jit_step", "the command line opens the same module"


def test_users_dump_folder_wins_with_a_warning(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    flags, folder, warnings = merge_xla_flags(
        f"--xla_dump_to={theirs} --xla_foo=1", tmp_path / "ours"
    )
    assert folder == theirs and warnings
    assert flags.split().count(f"--xla_dump_to={theirs}") == 1
    assert "--xla_foo=1" in flags.split() and "--xla_dump_hlo_pass_re=.*" in flags.split()
    flags, folder, warnings = merge_xla_flags("--xla_dump_hlo_pass_re=fusion", tmp_path / "o")
    assert "--xla_dump_hlo_pass_re=fusion" in flags and ".*" not in flags and not warnings


@pytest.mark.parametrize("args,message", [
    (["collect", "--", "no-such-program-xyz"], "command not found"),
    (["collect", "--out", "/proc/xlaview-cannot-write", "--", "true"], "cannot create"),
    (["collect"], "give the command"),
])  # fmt: skip
def test_collect_errors_are_clear(args: list[str], message: str, tmp_path: Path) -> None:
    proc = run(*args, env={"XDG_CACHE_HOME": str(tmp_path)})
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_program_that_compiles_nothing(tmp_path: Path) -> None:
    proc = run("collect", "--out", str(tmp_path / "d"), "--", sys.executable, "-c", "pass")
    assert proc.returncode == 0
    assert "nothing was dumped" in proc.stderr


@pytest.mark.slow
def test_python_api_compiles_without_running(tmp_path: Path) -> None:
    script = tmp_path / "api.py"
    marker = tmp_path / "ran"
    script.write_text(
        textwrap.dedent(f"""
        import jax, jax.numpy as jnp, os, xlaview
        from pathlib import Path

        def step(x, w):
            jax.debug.callback(lambda: Path({str(marker)!r}).touch())  # only when it runs
            return jnp.tanh(x @ w).sum()

        spec = jax.ShapeDtypeStruct
        folder = xlaview.collect(step, spec((16, 32), jnp.float32), spec((32, 8), jnp.float32),
                                 out={str(tmp_path / "api-dump")!r})
        before = sorted(os.listdir(folder))
        jax.jit(lambda a: a * 2).lower(jnp.ones(3)).compile()   # not dumped
        jax.jit(lambda a: a + 1)(jnp.ones(3))                   # nor this one
        assert sorted(os.listdir(folder)) == before, "other compilations were dumped"
        # Still a function once it has run (a module of that name once shadowed it).
        again = xlaview.collect(lambda a: a * 3, jnp.ones(3), out={str(tmp_path / "again")!r})
        assert any(again.iterdir()), "a second collect dumped nothing"
        print(folder)
    """)
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    folder = Path(proc.stdout.strip().splitlines()[-1])
    assert not marker.exists(), "collect ran the function"
    summary = json.loads(run("summary", "--json", str(folder)).stdout)
    (module,) = summary["modules"]
    assert module["name"] == "jit_step" and len(module["passes"]) > 5
    assert all(module["reports"].values())


def test_python_api_without_jax(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in ('jax', 'jaxlib'):
                    raise ImportError('no jax here')
        sys.meta_path.insert(0, Block())
        from xlaview.collection import CollectError, collect
        try:
            collect(lambda x: x, 1.0)
        except CollectError as err:
            print(err)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert "needs jax" in proc.stdout, proc.stderr


@pytest.mark.parametrize("existing", [
    "", "--xla_foo=1", '--xla_foo="a b"   --xla_bar=\'c\'', "\t--xla_foo=1\n",
])  # fmt: skip
@pytest.mark.parametrize("passes", [
    ".*", "a --xla_dump_to=/x", '"quoted"', "'single", 'back\\slash "and quote"', "tab\there",
])  # fmt: skip
def test_our_flag_values_read_back_whole(existing: str, passes: str, tmp_path: Path) -> None:
    """XLA reads XLA_FLAGS with its own tokenizer: a value of ours with spaces
    or quotes is quoted so that it reads back as one value, never a new flag,
    and the user's flags (their quoting too) are kept as they were."""
    from xlaview.collection import xla_flags

    out = tmp_path / "a folder with spaces"
    flags, folder, _ = merge_xla_flags(existing, out, passes, "jit_.*")
    read, rest = xla_flags(flags)
    assert rest == "" and folder == out
    assert read == xla_flags(existing)[0] + [
        ("--xla_dump_to", str(out)),
        ("--xla_dump_hlo_pass_re", passes),
        ("--xla_dump_hlo_module_re", "jit_.*"),
    ], flags


@pytest.mark.parametrize("existing,message", [
    ("/etc/xla_flags.txt", "names a file of flags"),
    ("--xla_foo=1 junk --xla_bar=2", "XLA stops reading at 'junk"),
])  # fmt: skip
def test_flags_xla_would_not_read_are_refused(existing: str, message: str, tmp_path: Path) -> None:
    from xlaview.collection import CollectError

    with pytest.raises(CollectError, match=message):
        merge_xla_flags(existing, tmp_path / "o")


@pytest.mark.slow
def test_a_pass_regex_cannot_add_an_xla_flag(program: Path, tmp_path: Path) -> None:
    """XLA itself reads the quoted value: the dump goes where we said, with
    the passes the regex names, and no second --xla_dump_to takes effect."""
    out, evil = tmp_path / "dump here", tmp_path / "evil"
    proc = run(
        "collect",
        "--out",
        str(out),
        "--passes",
        f"fusion|x --xla_dump_to={evil}",
        "--",
        sys.executable,
        str(program),
    )
    assert proc.returncode == 0, proc.stderr
    assert not evil.exists(), "a --passes value became an XLA flag"
    dumped = [p.name for p in out.glob("*.txt")]
    assert any(".after_fusion." in n for n in dumped), dumped[:5]
    assert not any(".after_algsimp." in n for n in dumped), "the regex was not applied"
