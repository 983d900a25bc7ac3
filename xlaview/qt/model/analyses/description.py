"""What the inspector shows for an instruction of the shown pass: the core's
join of its text, layouts, buffers and kernel (`xlaview.analysis.inspect`),
with its cost and measured time where the pass is priced or was profiled."""

from __future__ import annotations

from typing import Any

from xlaview.analysis.inspect import describe_instruction
from xlaview.hlo import Module
from xlaview.qt.model.analyses.costing import Costing
from xlaview.qt.model.analyses.module_info import ModuleInfo


def describe(
    module: Module, name: str, computation: str, info: ModuleInfo, costing: Costing
) -> dict[str, Any]:
    cost, roof = costing.priced(module)
    described = describe_instruction(
        module, name, info.reports_for_pass(), info.levels, cost=cost, roof=roof, kernel=False
    )  # the kernel: `Kernels`, on the worker
    described["computation"] = computation
    described["measured"] = costing.measured_of(name)
    return described
