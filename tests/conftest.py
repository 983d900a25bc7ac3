"""Shared fixtures: real XLA dumps compiled at test time, and the peer corpus."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))

# The peer corpus lives beside the repository on developer machines and in CI;
# a user's checkout has none, and its tests are then skipped.
CORPUS = Path(os.environ.get("XLAVIEW_CORPUS", TESTS.parent.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip(f"peer corpus not found at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Dump folders of small JAX programs, every pass dumped (compiled, not run)."""
    pytest.importorskip("jax")
    from programs.zoo import generate

    return generate(tmp_path_factory.mktemp("zoo"))


@pytest.fixture(scope="session")
def kernel_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One program of every kind of op, compiled for XLA:CPU with its emitters'
    IR dumps: ``default`` (YNNPACK fusions) and ``no_ynn`` (none)."""
    pytest.importorskip("jax")
    from programs.kernel_programs import generate

    return generate(tmp_path_factory.mktemp("kernels"))


@pytest.fixture(scope="session")
def matching_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One small JAX train step compiled as variants (again, without XLA:CPU's
    library fusions, with an op more per layer): VARIANT -> dump folder."""
    pytest.importorskip("jax")
    from programs.matching_programs import generate

    return generate(tmp_path_factory.mktemp("matching"))


@pytest.fixture(scope="session")
def gpt_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real GPT train step (2 layers) with every pass dumped: the benchmarks'
    program (benchmarks/gpt.py), small enough to compile in seconds."""
    pytest.importorskip("jax")
    import subprocess

    out = tmp_path_factory.mktemp("gpt2")
    script = TESTS.parent / "benchmarks" / "gpt.py"
    subprocess.run([sys.executable, str(script), str(out), "--layers", "2"], check=True)
    return out


@pytest.fixture(scope="session")
def profiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small JAX programs run under jax.profiler, every pass dumped: NAME ->
    folder with ``dump/``, ``trace/`` and ``runs.json``."""
    pytest.importorskip("jax")
    from programs.profiled import generate

    return generate(tmp_path_factory.mktemp("profiled"))


def _framework_dumps(tmp_path_factory: pytest.TempPathFactory, framework: str) -> dict[str, Path]:
    from programs.frameworks import generate, interpreter

    python, why = interpreter(framework)
    if python is None:
        pytest.skip(why)
    try:
        return generate(framework, tmp_path_factory.mktemp(framework), python=python)
    except RuntimeError as err:
        pytest.fail(str(err), pytrace=False)


@pytest.fixture(scope="session")
def tf_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Dump folders of small TensorFlow programs (``tf.function(jit_compile=True)``,
    run), every pass dumped: NAME -> folder. Skipped without TensorFlow (here or
    in ``$XLAVIEW_TF_PYTHON``)."""
    return _framework_dumps(tmp_path_factory, "tensorflow")


@pytest.fixture(scope="session")
def torch_xla_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Dump folders of small PyTorch/XLA programs (``PJRT_DEVICE=CPU``, run), every
    pass dumped: NAME -> folder. Skipped without torch_xla (here or in
    ``$XLAVIEW_TORCH_XLA_PYTHON``)."""
    return _framework_dumps(tmp_path_factory, "torch_xla")


def pytest_configure(config: pytest.Config) -> None:
    """This machine's CPU figures (the ``cpu`` device) go to a cache of the
    session's own, shared with the commands the tests run: measured once per
    session, never in the user's cache."""
    if "XLAVIEW_CACHE_DIR" not in os.environ:
        import tempfile

        folder = tempfile.mkdtemp(prefix="xlaview-test-cache-")
        os.environ["XLAVIEW_CACHE_DIR"] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
