"""HLO text -> an immutable model (pure Python, no Qt).

>>> from xlaview.hlo import parse_module
>>> module = parse_module(text)
>>> [c.name for c in module.computations]
"""

from xlaview.hlo.errors import HloSyntaxError, Location, locate
from xlaview.hlo.model import Computation, Frame, Instruction, Module, Span, StackFrames
from xlaview.hlo.parse.driver import ParseResult, parse_module, parse_module_tolerant
from xlaview.hlo.shape import Layout, Shape, ShapeSyntaxError, describe_dimension_order, parse_shape

__all__ = [
    "Computation",
    "Frame",
    "HloSyntaxError",
    "Instruction",
    "Layout",
    "Location",
    "Module",
    "ParseResult",
    "Shape",
    "ShapeSyntaxError",
    "Span",
    "StackFrames",
    "describe_dimension_order",
    "locate",
    "parse_module",
    "parse_module_tolerant",
    "parse_shape",
]
