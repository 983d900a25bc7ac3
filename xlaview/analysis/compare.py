"""Compare two dumps of the same program (other flags, another XLA): for each
module both have, what the after-optimizations modules differ in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xlaview.analysis.memory import ModuleMemory, explain_memory, memory_timeline, module_memory
from xlaview.analysis.traffic import Traffic, analyze_traffic
from xlaview.dump.modules import ModuleCache
from xlaview.dump.records import DumpIndex, DumpModule
from xlaview.dump.reports import load_reports


@dataclass(frozen=True, slots=True)
class ModuleComparison:
    name: str
    left: DumpModule
    right: DumpModule
    left_traffic: Traffic
    right_traffic: Traffic
    left_peak: int | None
    right_peak: int | None
    only_left: tuple[str, ...]  # instruction names
    only_right: tuple[str, ...]
    left_instructions: int
    right_instructions: int
    # Each side's memory (`module_memory`), and the sentence on why it differs
    # from its peak of live values (`explain_memory`).
    left_memory: ModuleMemory | None = None
    right_memory: ModuleMemory | None = None
    left_memory_note: str | None = None
    right_memory_note: str | None = None

    def to_json(self) -> dict[str, Any]:
        def side(
            traffic: Traffic,
            peak: int | None,
            count: int,
            only: tuple[str, ...],
            memory: ModuleMemory | None,
            note: str | None,
        ) -> dict[str, Any]:
            large = [i.shape for i in traffic.intermediates[:5]]
            return {
                "instructions": count,
                "fusion_counts": traffic.fusion_counts,
                "total_traffic_bytes": traffic.total_traffic_bytes,
                "intermediate_traffic_bytes": traffic.intermediate_traffic_bytes,
                "largest_intermediates": large,
                # Kept for older readers: the peak of live values.
                "peak_memory_bytes": peak,
                "memory": memory.to_json() if memory else None,
                "memory_text": memory.describe() if memory else None,
                "memory_note": note,
                "only_here": list(only),
            }

        return {
            "module": self.name,
            "left": side(
                self.left_traffic,
                self.left_peak,
                self.left_instructions,
                self.only_left,
                self.left_memory,
                self.left_memory_note,
            ),
            "right": side(
                self.right_traffic,
                self.right_peak,
                self.right_instructions,
                self.only_right,
                self.right_memory,
                self.right_memory_note,
            ),
        }


def match_modules(left: DumpIndex, right: DumpIndex) -> list[tuple[DumpModule, DumpModule]]:
    """Modules of the same name (in dump order when a name repeats)."""
    pairs = []
    used: set[int] = set()
    for a in left.modules:
        if a.after_optimizations is None:
            continue
        for k, b in enumerate(right.modules):
            if k not in used and b.name == a.name and b.after_optimizations is not None:
                pairs.append((a, b))
                used.add(k)
                break
    return pairs


def compare_dumps(
    left: DumpIndex, right: DumpIndex, cache: ModuleCache | None = None
) -> list[ModuleComparison]:
    cache = cache or ModuleCache()
    out = []
    for a, b in match_modules(left, right):
        assert a.after_optimizations and b.after_optimizations
        ma = cache.load(a.after_optimizations).module
        mb = cache.load(b.after_optimizations).module
        names_a = {i.name for i in ma.instructions()}
        names_b = {i.name for i in mb.instructions()}
        memory_a, note_a = _memory(a)
        memory_b, note_b = _memory(b)
        out.append(
            ModuleComparison(
                a.name or a.key,
                a,
                b,
                analyze_traffic(ma),
                analyze_traffic(mb),
                memory_a.peak_live_bytes if memory_a else None,
                memory_b.peak_live_bytes if memory_b else None,
                tuple(sorted(names_a - names_b)),
                tuple(sorted(names_b - names_a)),
                len(names_a),
                len(names_b),
                memory_a,
                memory_b,
                note_a,
                note_b,
            )
        )
    return out


def _memory(module: DumpModule) -> tuple[ModuleMemory | None, str | None]:
    """The module's memory, and why it differs from its peak of live values."""
    reports = load_reports(module, values=False)
    memory = module_memory(reports)
    if memory is None:
        return None, None
    live = reports.live_range
    timeline = memory_timeline(live, reports.buffer_assignment) if live is not None else None
    return memory, explain_memory(memory, timeline)
