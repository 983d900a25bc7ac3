"""Measured time beside the estimate: ``jax.profiler`` traces read and joined
to a dump's modules (pure Python, no Qt).

    trace = read_trace(path)                       # a trace folder or file
    dump_module = choose_module(trace, index)      # the module the trace timed most
    profile = profile_dump_module(trace, index, dump_module)
    profile.ops[0].measured_s, profile.ops[0].roofline_fraction
"""

from xlaview.profile.files import TraceFile, TraceReadError, find_trace, trace_files
from xlaview.profile.join import (
    TracedModule,
    busiest_module,
    choose_module,
    executed_file,
    measure_dump_module,
    traced_modules,
)
from xlaview.profile.measure import ModuleTime, OpTime, measure_module
from xlaview.profile.report import ModuleProfile, OpProfile, combine
from xlaview.profile.static import (
    StaticCosts,
    StaticOp,
    profile_dump_module,
    roofline_device,
    static_costs,
)
from xlaview.profile.trace import Trace, read_trace

__all__ = [
    "ModuleProfile",
    "ModuleTime",
    "OpProfile",
    "OpTime",
    "StaticCosts",
    "StaticOp",
    "Trace",
    "TraceFile",
    "TraceReadError",
    "TracedModule",
    "busiest_module",
    "choose_module",
    "combine",
    "executed_file",
    "find_trace",
    "measure_dump_module",
    "measure_module",
    "profile_dump_module",
    "read_trace",
    "roofline_device",
    "static_costs",
    "trace_files",
    "traced_modules",
]  # fmt: skip
