"""Small TensorFlow and PyTorch/XLA programs compiled by XLA with its dump flags, for tests.

Each program runs in a subprocess of its own, with
``XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_pass_re=.*`` set, under the first
interpreter that has the framework: the one named by ``XLAVIEW_TF_PYTHON`` or
``XLAVIEW_TORCH_XLA_PYTHON`` (a venv of its own, to keep the framework out of
the tests' one), else this one. ``interpreter()`` says which, or why none.

Run as a script: ``python frameworks.py FRAMEWORK OUT_DIR [NAME ...]`` compiles each
program of FRAMEWORK (``tensorflow`` or ``torch_xla``) into ``OUT_DIR/NAME``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Framework:
    name: str
    package: str  # what the interpreter must be able to import
    variable: str  # the environment variable naming an interpreter that has it
    programs: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()


FRAMEWORKS = {
    "tensorflow": Framework(
        "tensorflow",
        "tensorflow",
        "XLAVIEW_TF_PYTHON",
        ("mlp_step", "attention"),
        (("TF_CPP_MIN_LOG_LEVEL", "2"), ("CUDA_VISIBLE_DEVICES", "")),
    ),
    "torch_xla": Framework(
        "torch_xla",
        "torch_xla",
        "XLAVIEW_TORCH_XLA_PYTHON",
        ("mlp_step", "attention"),
        (("PJRT_DEVICE", "CPU"), ("CUDA_VISIBLE_DEVICES", ""), ("TF_CPP_MIN_LOG_LEVEL", "2")),
    ),
}

# A program compiles in a few seconds; importing the framework takes longer.
TIMEOUT_S = 300


def interpreter(framework: str) -> tuple[str | None, str]:
    """(the Python to run ``framework``'s programs with, or None; why)."""
    fw = FRAMEWORKS[framework]
    named = os.environ.get(fw.variable)
    candidates = ([named] if named else []) + [sys.executable]
    probe = f"import importlib.util as u, sys; sys.exit(u.find_spec({fw.package!r}) is None)"
    tried = []
    for python in candidates:
        try:
            proc = subprocess.run([python, "-c", probe], capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            tried.append(f"{python} ({e})")
            continue
        if proc.returncode == 0:
            return python, f"{fw.package} found by {python}"
        tried.append(python)
    return None, (
        f"{fw.package} is not installed for {' nor '.join(tried)}: "
        f"pip install '.[frameworks]', or set {fw.variable} to a Python that has it"
    )


def generate(
    framework: str, out: Path, names: tuple[str, ...] | None = None, python: str | None = None
) -> dict[str, Path]:
    """Compile each program of ``framework`` into ``out/<name>``; returns the folders.
    Raises RuntimeError (with the program's output) if one fails or times out."""
    fw = FRAMEWORKS[framework]
    if python is None:
        python, why = interpreter(framework)
        if python is None:
            raise RuntimeError(why)
    folders = {}
    for name in names or fw.programs:
        folder = out / name
        env = {
            **os.environ,
            **dict(fw.env),
            "XLA_FLAGS": f"--xla_dump_to={folder} --xla_dump_hlo_pass_re=.*",
        }
        cmd = [python, __file__, "--run", framework, name]
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            raise RuntimeError(f"{framework} {name}: no dump after {TIMEOUT_S} s") from e
        if proc.returncode != 0 or not folder.is_dir():
            raise RuntimeError(
                f"{framework} {name} exited {proc.returncode}:\n{proc.stdout[-2000:]}"
                f"\n{proc.stderr[-4000:]}"
            )
        folders[name] = folder
    return folders


# The dumps the tests read: (framework, program), from conftest's fixtures.
CASES = tuple((fw.name, program) for fw in FRAMEWORKS.values() for program in fw.programs)
FIXTURES = {"tensorflow": "tf_dumps", "torch_xla": "torch_xla_dumps"}


def params() -> list[Any]:
    """CASES as pytest parameters, named framework-program."""
    import pytest

    return [pytest.param(case, id="-".join(case)) for case in CASES]


def dump_of(request: Any, case: tuple[str, str]) -> Path:
    """The folder of one case (a pytest ``request`` asks the session's fixture)."""
    framework, program = case
    folder: Path = request.getfixturevalue(FIXTURES[framework])[program]
    return folder


def summary(folder: Path) -> dict[str, Any]:
    """``xlaview summary --json`` of a folder, run as a user runs it."""
    proc = subprocess.run(
        [sys.executable, "-m", "xlaview", "summary", "--json", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def has_dot(folder: Path, module: dict[str, Any]) -> bool:
    return " dot(" in (folder / module["before_optimizations"]).read_text()


def program_module(folder: Path, index: dict[str, Any]) -> dict[str, Any]:
    """The module (of ``summary``) a user of these programs means: the one with
    the dots (the others draw the inputs or scale them)."""
    (module,) = [m for m in index["modules"] if has_dot(folder, m)]
    return module


def prefix(module: dict[str, Any]) -> str:
    """What the module's files start with: ``module_NNNN.<name>``."""
    return str(module["after_optimizations"]).split(".cpu_after_optimizations")[0]


def kernel_files(module: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """The module's XLA:CPU kernels by kind, each (instruction, its LLVM IR file):
    ``fusion`` (``<prefix>.<name>_kernel_module.ir-no-opt.ll``), ``elemental``
    (an unfused op's, ``<name>_elemental_kernel_module``) and ``tiled``
    (``<prefix>.__compute_module_<name>``, the tiled emitter's)."""
    kernels: dict[str, list[tuple[str, str]]] = {}
    start = prefix(module) + "."
    for file in sorted(module["other_files"]):
        if not (file.startswith(start) and file.endswith(".ir-no-opt.ll")):
            continue
        rest = file[len(start) : -len(".ir-no-opt.ll")]
        if rest.startswith("__compute_module_"):
            kind, name = "tiled", rest[len("__compute_module_") :]
        elif rest.endswith("_elemental_kernel_module"):
            kind, name = "elemental", rest[: -len("_elemental_kernel_module")]
        elif rest.endswith("_kernel_module"):
            kind, name = "fusion", rest[: -len("_kernel_module")]
        else:
            continue
        kernels.setdefault(kind, []).append((name, file))
    return kernels


def _tensorflow(name: str) -> None:
    import tensorflow as tf

    tf.random.set_seed(0)
    if name == "mlp_step":
        # One SGD step of a two-layer MLP: forward, backward and the update of
        # the variables (resource variables: parameters and aliased outputs).
        w1 = tf.Variable(tf.random.normal([32, 64]))
        b1 = tf.Variable(tf.zeros([64]))
        w2 = tf.Variable(tf.random.normal([64, 8]))
        params = [w1, b1, w2]

        @tf.function(jit_compile=True)
        def mlp_step(x, y):
            with tf.GradientTape() as tape:
                h = tf.nn.relu(x @ w1 + b1)
                logits = h @ w2
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(y, logits))
            for v, g in zip(params, tape.gradient(loss, params), strict=True):
                v.assign_sub(0.01 * g)
            return loss

        # A helper compiled first, smaller than the step: the inputs' scaling.
        @tf.function(jit_compile=True)
        def standardize(x):
            return (x - tf.reduce_mean(x, axis=0)) / (tf.math.reduce_std(x, axis=0) + 1e-6)

        x = standardize(tf.random.normal([16, 32]))
        y = tf.one_hot(tf.range(16) % 8, 8)
        print(float(mlp_step(x, y)))
    elif name == "attention":

        @tf.function(jit_compile=True)
        def attention(x, wq, wk, wv):
            q, k, v = x @ wq, x @ wk, x @ wv
            s = tf.matmul(q, k, transpose_b=True) / 8.0
            return tf.matmul(tf.nn.softmax(s, axis=-1), v)

        x = tf.random.normal([128, 64])
        w = [tf.random.normal([64, 64]) for _ in range(3)]
        print(attention(x, *w).shape)
    else:
        raise SystemExit(f"unknown program {name!r}")


def _torch_xla(name: str) -> None:
    import torch
    import torch_xla

    device = torch_xla.device()
    torch.manual_seed(0)
    if name == "mlp_step":
        # One SGD step of a two-layer MLP; the inputs made on the device first
        # (small graphs of their own, before the step's).
        model = torch.nn.Sequential(
            torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 8)
        ).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x = torch.randn(16, 32, device=device)
        y = torch.randint(0, 8, (16,), device=device)
        torch_xla.sync()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        torch_xla.sync()
        print(float(loss.detach().cpu()))
    elif name == "attention":
        # Inputs drawn on the host and copied over: the attention is the one graph.
        x = torch.randn(128, 64).to(device)
        wq, wk, wv = (torch.randn(64, 64).to(device) for _ in range(3))
        q, k, v = x @ wq, x @ wk, x @ wv
        out = torch.softmax(q @ k.T / 8.0, dim=-1) @ v
        torch_xla.sync()
        print(tuple(out.cpu().shape))
    else:
        raise SystemExit(f"unknown program {name!r}")


if __name__ == "__main__":
    if sys.argv[1] == "--run":
        {"tensorflow": _tensorflow, "torch_xla": _torch_xla}[sys.argv[2]](sys.argv[3])
    else:
        for name, folder in generate(
            sys.argv[1], Path(sys.argv[2]), tuple(sys.argv[3:]) or None
        ).items():
            print(name, folder)
