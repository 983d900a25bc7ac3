"""FLOPs of dots and convolutions, counted as XLA's HloCostAnalysis counts them.

Shared by the ``dot``/``convolution`` instructions and by the library calls
that replace them after optimization (cuBLAS/hipBLASLt GEMMs, cuDNN/MIOpen
convolutions, oneDNN on CPU), whose operands and attributes describe the same
arithmetic. An FMA counts as two FLOPs (XLA's ``kFmaFlops``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from xlaview.hlo import Shape

FMA_FLOPS = 2


@dataclass(frozen=True, slots=True)
class WindowDimension:
    """One dimension of an HLO ``window={...}`` attribute."""

    size: int = 1
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1


@dataclass(frozen=True, slots=True)
class ConvolutionLabels:
    """``dim_labels=b01f_01io->b01f`` decoded into dimension numbers."""

    input_batch: int
    input_feature: int
    input_spatial: tuple[int, ...]
    kernel_input_feature: int
    kernel_output_feature: int
    kernel_spatial: tuple[int, ...]
    output_batch: int
    output_feature: int
    output_spatial: tuple[int, ...]


_WINDOW_FIELD = re.compile(r"(size|stride|pad|lhs_dilate|rhs_dilate|rhs_reversal)=(\S+)")


def parse_window(text: str | None) -> tuple[WindowDimension, ...]:
    """``{size=3x3 stride=2x2 pad=1_1x1_1}`` -> one `WindowDimension` per spatial dimension."""
    if not text:
        return ()
    fields: dict[str, list[str]] = {}
    for key, value in _WINDOW_FIELD.findall(text.strip("{}")):
        fields[key] = value.rstrip("}").split("x")
    rank = max((len(v) for v in fields.values()), default=0)

    def ints(key: str, default: int) -> list[int]:
        values = fields.get(key)
        return [int(v) for v in values] if values else [default] * rank

    sizes, strides = ints("size", 1), ints("stride", 1)
    lhs, rhs = ints("lhs_dilate", 1), ints("rhs_dilate", 1)
    pads = [p.split("_") for p in fields.get("pad", ["0_0"] * rank)]
    return tuple(
        WindowDimension(sizes[k], strides[k], int(pads[k][0]), int(pads[k][-1]), rhs[k], lhs[k])
        for k in range(rank)
    )


def parse_dim_labels(text: str | None) -> ConvolutionLabels | None:
    """``b01f_01io->b01f`` -> dimension numbers (None when it does not read)."""
    if not text or "->" not in text or "_" not in text:
        return None
    lhs_rhs, out = text.split("->", 1)
    lhs, rhs = lhs_rhs.split("_", 1)

    def spatial(labels: str) -> tuple[int, ...]:
        digits = sorted((int(c), k) for k, c in enumerate(labels) if c.isdigit())
        return tuple(k for _, k in digits)

    try:
        return ConvolutionLabels(
            lhs.index("b"),
            lhs.index("f"),
            spatial(lhs),
            rhs.index("i"),
            rhs.index("o"),
            spatial(rhs),
            out.index("b"),
            out.index("f"),
            spatial(out),
        )
    except ValueError:
        return None


def dot_flops(lhs: Shape, result: Shape, lhs_contracting: tuple[int, ...]) -> int:
    """``2 x result elements x contracted size``, XLA's ``GetDotFlops``."""
    width = 1
    for dim in lhs_contracting:
        if 0 <= dim < lhs.rank:
            width *= lhs.dims[dim]
    return FMA_FLOPS * _elements(result) * width


def convolution_flops(
    lhs: Shape,
    rhs: Shape,
    result: Shape,
    window: tuple[WindowDimension, ...],
    labels: ConvolutionLabels,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
) -> int:
    """XLA's ``GetConvolutionFlops``: 2 x the multiply-adds that touch a valid
    (in-bounds, non-dilated) input element, summed over the window."""
    try:
        input_feature = lhs.dims[labels.input_feature]
        output_feature = result.dims[labels.output_feature]
        batch = lhs.dims[labels.input_batch]
        if not window:
            window = (WindowDimension(),)
            kernel_limits, output_limits, input_limits = [1], [1], [1]
        else:
            kernel_limits = [rhs.dims[d] for d in labels.kernel_spatial]
            output_limits = [result.dims[d] for d in labels.output_spatial]
            input_limits = [lhs.dims[d] for d in labels.input_spatial]
    except IndexError:
        return 0
    counts = [
        _valid_positions(dim, input_limits[k], kernel_limits[k], output_limits[k])
        for k, dim in enumerate(window)
        if k < len(kernel_limits)
    ]
    fmas = (
        (input_feature // max(feature_group_count, 1))
        * output_feature
        * (batch // max(batch_group_count, 1))
        * math.prod(counts)
    )
    return fmas * FMA_FLOPS


def _valid_positions(
    w: WindowDimension, input_limit: int, kernel_limit: int, output_limit: int
) -> int:
    # The two shortcuts XLA takes for an N^2 pattern with N valid positions.
    if (
        input_limit == output_limit
        and kernel_limit == output_limit
        and input_limit == w.base_dilation
        and w.window_dilation == 1
        and max(1, input_limit - 1) == w.stride
        and w.padding_low == 0
        and w.padding_high == 0
    ):
        return input_limit
    if (
        input_limit == 1
        and kernel_limit == output_limit
        and w.window_dilation == 1
        and w.base_dilation == 1
        and w.stride == 1
        and w.padding_high == output_limit - 1
        and w.padding_low == output_limit - 1
    ):
        return output_limit
    count = 0
    for kernel_index in range(kernel_limit):
        if w.stride == 1 and w.base_dilation == 1:
            base = w.padding_low - kernel_index * w.window_dilation
            count += max(min(input_limit + base, output_limit) - max(base, 0), 0)
            continue
        for output_index in range(output_limit):
            undilated = output_index * w.stride - w.padding_low + kernel_index * w.window_dilation
            index = undilated // w.base_dilation if w.base_dilation > 1 else undilated
            if undilated != index * w.base_dilation:
                continue
            if 0 <= index < input_limit:
                count += 1
    return count


def _elements(shape: Shape) -> int:
    return math.prod(max(d, 0) for d in shape.dims)
