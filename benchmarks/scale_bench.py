"""The big dumps of issues 12 and 28: ``python benchmarks/run.py scale``.

Input: the 48-layer GPT train step (``benchmarks/gpt.py --layers 48``: 958
files, 1.2 GB; a 45.6 MB after-optimizations module with 333k instructions;
59 pass dumps of about 45 MB) and train steps of other shapes
(``benchmarks/shapes.py``: a mixture of experts, stacked U-Nets, a scanned
and rematerialized mixer), generated once into ``XLAVIEW_BENCH_DIR``, and
the 10-layer GPT for a 2.8 MB module. Each dump's times are ratios to its R,
XLA's C++ parse of its after-optimizations module measured in the same run;
what a person feels (a GUI stall) and budgets (memory) are absolute. The
figures:

- parse: `parse_module` against XLA's C++ parser on both after-optimizations
  modules, interleaved. "ready" is what `parse_module` returns: every line
  checked (names, opcodes, shapes, operands, ROOT, called computations), the
  `Instruction` tuples of a computation built on first access; "built" adds
  touching every computation's instructions.
- cli: ``inspect -i``, ``traffic``, ``diff`` (two 45 MB passes) and ``cost``
  (when the command exists) as whole processes, against a process that
  imports jax and runs XLA's parser on the same module.
- steps: the core's work per step of the window's scrub, in a fresh process
  (`python scale_bench.py steps DIR`): open the module on its last dump, then
  visit every dump in order and go back 8 (69 steps); each step loads the
  pass through one `ModuleCache` (default budget), builds the entry
  computation (the graph), maps a line to its owner (the text), and diffs
  against the pass before it, as the window does. "open" is the index and the
  after-optimizations module, parsed cold: the best of three fresh processes
  (R is XLA's best of three). Resident memory is sampled after every step.

The window's figures (text and graph on screen, GUI stalls, window plus
helper memory) belong in `gui_figures`, measured by ``gui_probe.py``.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from timing import after_optimizations, best_of, main_module

if TYPE_CHECKING:
    from xlaview.dump.modules import LoadedModule, ModuleCache
    from xlaview.dump.records import DumpFile

HERE = Path(__file__).parent
REPEAT_PARSE = 5
REPEAT_CLI = 5
BACK_STEPS = 8


@dataclass(frozen=True)
class Figure:
    """One measured figure, its goal, and the reference it is read against."""

    name: str
    value: float
    unit: str  # "s", "x" (a ratio), "R" (a ratio to the run's R), "MB"
    goal: float | None  # the value must stay below it
    reference: str = ""

    @property
    def ok(self) -> bool | None:
        return None if self.goal is None else self.value < self.goal

    def line(self) -> str:
        mark = {True: "ok  ", False: "MISS", None: "    "}[self.ok]
        fmt = {"s": "{:.3f} s", "x": "{:.2f}x", "R": "{:.2f} R", "MB": "{:.0f} MB"}[self.unit]
        goal = f"goal < {fmt.format(self.goal)}" if self.goal is not None else ""
        return f"  {mark} {self.name:<46} {fmt.format(self.value):>10}  {goal:<16} {self.reference}"


def of_r(name: str, seconds: float, r: float, goal: float | None, note: str = "") -> Figure:
    """A time as a ratio to R, the run's reference (XLA's parse of the dump's module)."""
    return Figure(name, seconds / r, "R", goal, f"{seconds:.2f} s" + (f"; {note}" if note else ""))


def xla_parse_s(folder: Path) -> float:
    """R: XLA's C++ parse of the dump's after-optimizations text, best of 3, now."""
    from jax._src.lib import xla_client

    text = after_optimizations(folder).read_text()
    return best_of(lambda: xla_client.hlo.hlo_module_from_text(text), 3)[0]


# -- parse ---------------------------------------------------------------------


def parse_figures(folders: list[Path]) -> list[Figure]:
    from jax._src.lib import xla_client

    from xlaview.hlo import parse_module

    def built(text: str) -> int:
        module = parse_module(text)
        return sum(len(comp.instructions) for comp in module.computations)

    figures = []
    for folder in folders:
        text = after_optimizations(folder).read_text()
        module = parse_module(text)
        size = f"{len(text) / 1e6:.1f} MB, {module.instruction_count} instructions"
        del module
        ready, full, xla = [], [], []

        def ours(t: str = text) -> object:
            return parse_module(t)

        def everything(t: str = text) -> object:
            return built(t)

        def theirs(t: str = text) -> object:
            return xla_client.hlo.hlo_module_from_text(t)

        for _ in range(REPEAT_PARSE):  # interleaved: machine noise hits all three alike
            ready.append(best_of(ours, 1)[0])
            full.append(best_of(everything, 1)[0])
            xla.append(best_of(theirs, 1)[0])
        ref = min(xla)
        note = f"XLA {ref:.3f} s ({folder.name}: {size})"
        figures.append(
            Figure(
                f"parse {folder.name}, ready / XLA",
                min(ready) / ref,
                "x",
                0.5,
                f"{min(ready):.3f} s; {note}",
            )
        )
        figures.append(
            Figure(
                f"parse {folder.name}, every instruction built / XLA",
                min(full) / ref,
                "x",
                None,
                f"{min(full):.3f} s",
            )
        )
    return figures


# -- cli -----------------------------------------------------------------------


def run_process(args: list[str], repeat: int = REPEAT_CLI) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def cli_figures(folder: Path, r: float) -> list[Figure]:
    from xlaview.dump.index import index_dump
    from xlaview.hlo import parse_module

    path = after_optimizations(folder)
    entry = parse_module(path.read_text()).entry
    assert entry is not None
    fusion = next(i.name for i in entry.instructions if i.opcode == "fusion")
    module = main_module(index_dump(folder))
    late = [str(p.seq) for p in module.passes][-2:]
    xlaview = [sys.executable, "-m", "xlaview"]
    commands = {
        "inspect -i": [*xlaview, "inspect", str(path), "-i", fusion],
        "traffic": [*xlaview, "traffic", str(path)],
        f"diff {late[0]} -> {late[1]}": [
            *xlaview,
            "diff",
            str(folder),
            "--from",
            late[0],
            "--to",
            late[1],
        ],
    }
    has_cost = (
        subprocess.run([*xlaview, "cost", "--help"], capture_output=True, check=False).returncode
        == 0
    )
    if has_cost:
        commands["cost"] = [*xlaview, "cost", str(path)]
    load_with_xla = (
        "from jax._src.lib import xla_client as x; "
        f"x.hlo.hlo_module_from_text(open({str(path)!r}).read())"
    )
    ref = run_process([sys.executable, "-c", load_with_xla], 3)
    figures = [
        of_r(f"cli {name}", run_process(args), r, 0.3, f"python + jax + XLA's parser {ref:.2f} s")
        for name, args in commands.items()
    ]
    if not has_cost:
        print("  (no cost command on this branch: not measured)")
    return figures


# -- steps ---------------------------------------------------------------------


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def measure_steps(folder: Path) -> dict:
    """The child's side of `step_figures` (a fresh process: its memory is the core's)."""
    from xlaview.analysis.passes.diff import diff_modules
    from xlaview.dump.index import index_dump
    from xlaview.dump.modules import ModuleCache

    start = time.perf_counter()
    module = main_module(index_dump(folder))
    index_s = time.perf_counter() - start
    points = module.timeline()
    # The window opens on the last dump (after optimizations); the user then
    # visits every dump from the first, and goes back through the middle.
    order = [len(points) - 1] + list(range(len(points)))
    order += list(range(len(points) - 2, len(points) - 2 - BACK_STEPS, -1))
    cache = ModuleCache()
    steps: list[dict[str, Any]] = []
    peak = resident_mb()
    collecting = {"since": 0.0, "total": 0.0, "longest": 0.0}

    def on_collection(phase: str, info: dict) -> None:
        if phase == "start":
            collecting["since"] = time.perf_counter()
        else:
            spent = time.perf_counter() - collecting["since"]
            collecting["total"] += spent
            collecting["longest"] = max(collecting["longest"], spent)

    gc.callbacks.append(on_collection)
    for k, i in enumerate(order):
        label, dump_file = points[i]
        t0 = time.perf_counter()
        loaded, t1 = _shown(cache, dump_file)
        t2 = time.perf_counter()
        if i > 0:
            before = cache.load(points[i - 1][1]).module
            diff_modules(before, loaded.module)
        t3 = time.perf_counter()
        rss = resident_mb()
        peak = max(peak, rss)
        steps.append(
            {
                "label": label,
                "load_s": t1 - t0,
                "show_s": t2 - t0,
                "diff_s": t3 - t2,
                "total_s": t3 - t0,
                "rss_mb": rss,
                "first": k == 0,
                "gc_s": collecting["total"],
                "gc_longest_s": collecting["longest"],
            }
        )
        collecting["total"] = collecting["longest"] = 0.0
    memory = cache.memory()
    return {
        "open_s": index_s + steps[0]["show_s"],
        "steps": steps,
        "peak_rss_mb": peak,
        "estimate_mb": memory["total"] / 1e6,
        "budget_mb": memory["budget"] / 1e6,
        "store_hits": cache.store.hits,
        "store_misses": cache.store.misses,
    }


def _shown(cache: ModuleCache, dump_file: DumpFile) -> tuple[LoadedModule, float]:
    """A pass loaded through ``cache`` and made ready to show as the window
    does: its entry built (the graph's input) and a line mapped to its owner
    (the text's map of lines). The loaded module and when the load ended."""
    loaded = cache.load(dump_file)
    loaded_at = time.perf_counter()
    entry = loaded.module.entry
    if entry is not None:
        assert entry.instructions
        loaded.module.line_owner(entry.span.line + 1)
    return loaded, loaded_at


def measure_open(folder: Path) -> float:
    """The child's side of the open figure alone: index, last dump shown."""
    from xlaview.dump.index import index_dump
    from xlaview.dump.modules import ModuleCache

    start = time.perf_counter()
    module = main_module(index_dump(folder))
    _shown(ModuleCache(), module.timeline()[-1][1])
    return time.perf_counter() - start


def _child(mode: str, folder: Path) -> Any:
    out = subprocess.run(
        [sys.executable, __file__, mode, str(folder)], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def step_figures(folder: Path, r: float) -> list[Figure]:
    result = _child("steps", folder)
    # The open, cold, in fresh processes: the best of three, as R is XLA's
    # best of three (machine noise only ever adds; one sample of it was
    # 0.53-0.89 s for the mixture of experts within an hour).
    opened = min([result["open_s"], *(_child("open", folder) for _ in range(2))])
    steps = [s for s in result["steps"] if not s["first"]]
    totals = sorted(s["total_s"] for s in steps)
    shows = sorted(s["show_s"] for s in steps)
    worst = max(steps, key=lambda s: s["total_s"])
    print(
        f"  {len(steps)} steps over {len(result['steps']) - BACK_STEPS - 1} dumps; computations "
        f"from the store {result['store_hits']}, parsed {result['store_misses']}; cache "
        f"estimate {result['estimate_mb']:.0f} MB of a {result['budget_mb']:.0f} MB budget"
    )
    return [
        of_r("core: open (index, first dump shown)", opened, r, 0.5, "best of 3 processes"),
        of_r("core: step shown, median", statistics.median(shows), r, 0.05),
        of_r("core: step shown + diff, median", statistics.median(totals), r, 0.05),
        of_r(f"core: step shown + diff, worst ({worst['label']})", totals[-1], r, 0.3),
        Figure(
            "core: resident memory, peak",
            result["peak_rss_mb"],
            "MB",
            None,
            "the window's goal (window + helpers) is 1.5 GB",
        ),
    ]


# -- the window (measured by gui_probe.py; added by the window's work) ---------


def gui_figures(folder: Path, r: float) -> list[Figure]:
    """The window on the dump, in a fresh offscreen process (gui_probe.py
    scale): open it, then visit every pass from the first and back through the
    middle, a step done when the text and the graph of the asked pass show; a
    held arrow key; a step away from a pass whose analyses run (the Traffic
    tab's boundaries wanted, 3 s stayed on it, at three places); a
    5 ms heartbeat on the GUI thread; the resident memory of the window and its
    helper processes sampled every 100 ms."""
    out = subprocess.run(
        [sys.executable, str(HERE / "gui_probe.py"), "scale", str(folder)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    got = json.loads(out.strip().splitlines()[-1])
    reference = subprocess.run(
        [sys.executable, str(HERE / "gui_probe.py"), "reference-window"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    empty = json.loads(reference.strip().splitlines()[-1])["visible_s"]
    ref = f"an empty Qt window shows in {empty:.2f} s"
    steps = sorted(got["steps_s"])
    print(f"  {len(steps)} steps over the {got['instructions']:,}-instruction module")
    beat = "5 ms heartbeat"
    return [
        of_r("window: HLO text on screen after open", got["text_s"], r, 0.4, ref),
        of_r("window: text and graph on screen", got["text_and_graph_s"], r, 0.8),
        of_r("window: step, median", statistics.median(steps), r, 0.1),
        of_r("window: step, worst", steps[-1], r, 0.5),
        of_r("window: held arrow key, last step shown after", got["held_settle_s"], r, 0.5),
        Figure("window: longest GUI stall, open", got["open_stall_ms"] / 1000, "s", 0.1, beat),
        Figure("window: longest GUI stall, scrub", got["scrub_stall_ms"] / 1000, "s", 0.1, beat),
        Figure("window: longest GUI stall, held key", got["held_stall_ms"] / 1000, "s", 0.1, beat),
        of_r("window: step away from a pass being analysed", got["away_step_s"], r, 0.5),
        Figure("window: longest GUI stall, analyses", got["away_stall_ms"] / 1000, "s", 0.1, beat),
        Figure(
            "window + helpers: resident memory, peak",
            got["peak_mb"],
            "MB",
            1500,
            "sampled every 100 ms",
        ),
    ]


def scale(folders: list[Path], small: Path | None = None) -> None:
    """Every figure of each big dump, as a ratio to its R (XLA's parse of its
    after-optimizations module, measured in the same run) where it is a time."""
    figures: list[Figure] = []
    if small is not None:
        print("scale: parse …", flush=True)
        figures += _printed(parse_figures([small, *folders]))
    for folder in folders:
        r = xla_parse_s(folder)
        text = after_optimizations(folder)
        print(
            f"scale: {folder.name}: R = XLA parses its after-optimizations module "
            f"({text.stat().st_size / 1e6:.1f} MB) in {r:.2f} s",
            flush=True,
        )
        for title, part in (
            ("cli", lambda f=folder, r=r: cli_figures(f, r)),
            ("steps", lambda f=folder, r=r: step_figures(f, r)),
            ("window", lambda f=folder, r=r: gui_figures(f, r)),
        ):
            print(f"scale: {folder.name}: {title} …", flush=True)
            figures += _printed(part(), folder.name)
    missed = [f.name for f in figures if f.ok is False]
    print(
        f"scale: {len(figures)} figures, {len(missed)} missed" + (f": {missed}" if missed else "")
    )


def _printed(figures: list[Figure], where: str = "") -> list[Figure]:
    named = [Figure(f"{where}: {f.name}" if where else f.name, *_rest(f)) for f in figures]
    for figure in named:
        print(figure.line(), flush=True)
    return named


def _rest(f: Figure) -> tuple[float, str, float | None, str]:
    return f.value, f.unit, f.goal, f.reference


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    if sys.argv[1] == "steps":
        print(json.dumps(measure_steps(Path(sys.argv[2]))))
    elif sys.argv[1] == "open":
        print(json.dumps(measure_open(Path(sys.argv[2]))))
