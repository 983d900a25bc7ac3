"""A module's boundaries worked out from its file in a helper process: the
same as in the window's own process, sent back cheaply, never from a file that
changed since its traffic was found."""

from __future__ import annotations

import pickle
import shutil
import threading
from pathlib import Path

import pytest

from xlaview.analysis.boundaries.explain import module_boundaries
from xlaview.analysis.boundaries.from_file import explained, file_boundaries, fusion_callers, shared
from xlaview.analysis.traffic import analyze_traffic
from xlaview.dump.files import DumpReadError
from xlaview.dump.index import index_dump
from xlaview.dump.modules import load_module
from xlaview.helper import HelperProcess
from xlaview.resources import sample_dump


def seed_file() -> Path:
    module = index_dump(sample_dump()).modules[0]
    return module.after_optimizations.path


def stamp(path: Path) -> tuple[int, int]:
    status = path.stat()
    return status.st_size, status.st_mtime_ns


def test_from_the_file_as_from_the_module() -> None:
    path = seed_file()
    module = load_module(path).module
    traffic = analyze_traffic(module)
    result = file_boundaries(path, stamp(path), traffic)
    assert result.boundaries == module_boundaries(module, traffic)
    assert result.callers == fusion_callers(module, result.boundaries)
    # The seed's evidence lives in the bodies of its fusions.
    assert result.callers["fused_computation.2"] == "convert_exponential_fusion", result.callers
    assert result.callers["wrapped_reduce-window_computation"] == "wrapped_reduce-window"


def test_shared_pickles_alike_and_smaller() -> None:
    path = seed_file()
    module = load_module(path).module
    result = explained(module, analyze_traffic(module))
    compact = shared(result)
    assert pickle.loads(pickle.dumps(compact)) == result
    assert len(pickle.dumps(compact)) < len(pickle.dumps(result)), "equal evidence sent once"


def test_in_the_helper_process() -> None:
    path = seed_file()
    traffic = analyze_traffic(load_module(path).module)
    helper = HelperProcess()
    arrived = threading.Event()
    outcome: list = []

    def deliver(ok: bool, value: object, trace: str) -> None:
        outcome.append((ok, value, trace))
        arrived.set()

    try:
        helper.submit(file_boundaries, (str(path), stamp(path), traffic), deliver)
        assert arrived.wait(60), "the helper answered"
    finally:
        helper.close()
    ok, value, trace = outcome[0]
    assert ok, trace
    assert value.boundaries.find("wrapped_convert.3").reason == "multi-pass"


def test_a_file_changed_since_is_refused(tmp_path: Path) -> None:
    path = tmp_path / seed_file().name
    shutil.copy(seed_file(), path)
    traffic = analyze_traffic(load_module(path).module)
    old = stamp(path)
    path.write_text(path.read_text() + "\n")
    with pytest.raises(DumpReadError, match="changed since"):
        file_boundaries(path, old, traffic)
    with pytest.raises(DumpReadError):
        file_boundaries(tmp_path / "gone.txt", old, traffic)


def test_shared_keeps_the_values_inside_library_kernels() -> None:
    """The seed under default flags is one __ynn_fusion: its interior values
    came back from the helper path dropped (a new `Boundaries` of the module's
    name and its boundaries only); they are kept, and the sums come made."""
    from xlaview.resources import sample_dump_default_flags

    path = index_dump(sample_dump_default_flags()).modules[0].after_optimizations.path
    module = load_module(path).module
    traffic = analyze_traffic(module)
    result = file_boundaries(path, stamp(path), traffic)
    assert result.boundaries.interior, "the library kernel's interior values"
    assert result.boundaries == module_boundaries(module, traffic)
    assert {"by_reason", "saved", "counts", "by_value", "reasons"} <= set(result.boundaries.memo)
    assert sum(result.boundaries.counts().values()) == len(result.boundaries.boundaries)


class Stop(Exception):
    """Raised by a progress report, as the window's worker does for a job nobody wants."""


def test_progress_is_told_as_the_values_are_explained_and_stops_the_work() -> None:
    """A window's worker stops the boundaries of a pass the user stepped away
    from at a progress report: without reports, the next pass's text and
    graph waited 3.5 s for those of a mixture of experts' pass."""
    path = seed_file()
    module = load_module(path).module
    traffic = analyze_traffic(module)
    heard: list[float] = []
    assert explained(module, traffic, heard.append) == explained(module, traffic)
    assert heard[0] == 0.0 and heard[-1] == 1.0 and heard == sorted(heard), heard
    from_file: list[float] = []
    file_boundaries(path, stamp(path), traffic, from_file.append)
    assert from_file[0] == 0.1 and from_file[-1] == 1.0 and from_file == sorted(from_file)
    # Told again while a computation's ops are read, before its first value
    # (a second of a 40,000-op entry).
    said: list[float] = []

    def stop_at_the_second_report(fraction: float) -> None:
        said.append(fraction)
        if len(said) == 2:
            raise Stop

    with pytest.raises(Stop):
        explained(module, traffic, stop_at_the_second_report)
    assert said == [0.0, 0.0]
