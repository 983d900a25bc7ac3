"""What ops cost and how long they take at best (pure Python, no Qt).

- `totals`: FLOPs, transcendentals and bytes of every op and of the module,
  with XLA's ``HloCostAnalysis`` semantics (`model` applies its `rules`;
  `fusion_bytes` reads fused bodies; `flop_counts` counts dots and
  convolutions; `library_calls` prices library calls XLA cannot see; `loops`
  counts how often each part of a module runs);
- `devices`: published peaks of accelerators and which one a dump was
  compiled for; `roofline`: each op's time on one of them;
- `two_processes`: a big module read and priced by two processes.

Modules of this room import each other directly, never this facade.
"""

from __future__ import annotations

from xlaview.analysis.cost.devices import (
    DEVICES,
    Device,
    DeviceChoice,
    UnknownDeviceError,
    detect_device,
    device,
    peak_for,
)
from xlaview.analysis.cost.roofline import Roofline, roofline
from xlaview.analysis.cost.totals import ModuleCost, module_cost
from xlaview.analysis.cost.two_processes import load_and_price

__all__ = [
    "DEVICES", "Device", "DeviceChoice", "ModuleCost", "Roofline", "UnknownDeviceError",
    "detect_device", "device", "load_and_price", "module_cost", "peak_for", "roofline",
]  # fmt: skip
