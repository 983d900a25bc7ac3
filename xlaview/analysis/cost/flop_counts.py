"""FLOPs of dots and convolutions, counted as XLA's HloCostAnalysis counts them.

Shared by the ``dot``/``convolution`` instructions and by the library calls
that replace them after optimization (cuBLAS/hipBLASLt GEMMs, cuDNN/MIOpen
convolutions, oneDNN on CPU), whose operands and attributes describe the same
arithmetic. An FMA counts as two FLOPs (XLA's ``kFmaFlops``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from xlaview.hlo import Shape
from xlaview.hlo.interpreted import ConvolutionLabels, WindowDimension

FMA_FLOPS = 2


def dot_flops(lhs: Shape, result: Shape, lhs_contracting: tuple[int, ...]) -> int:
    """``2 x result elements x contracted size``, XLA's ``GetDotFlops``."""
    width = 1
    for dim in lhs_contracting:
        if 0 <= dim < lhs.rank:
            width *= lhs.dims[dim]
    return FMA_FLOPS * _elements(result) * width


# Counted once per kind of convolution (shapes, window, labels, groups): a
# U-Net's 4,287 are 46 kinds, and counting each again was about a tenth of
# its cost analysis (module_cost, first call: 1.84-2.52 s, now 1.64-1.97).
@lru_cache(maxsize=4096)
def convolution_flops(
    lhs: Shape,
    rhs: Shape,
    result: Shape,
    window: tuple[WindowDimension, ...],
    labels: ConvolutionLabels,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
) -> int | None:
    """XLA's ``GetConvolutionFlops``: 2 x the multiply-adds that touch a valid
    (in-bounds, non-dilated) input element, summed over the window (None:
    too many positions of a dilated input to count)."""
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
    known = [c for c in counts if c is not None]
    if len(known) != len(counts):
        return None
    fmas = (
        (input_feature // max(feature_group_count, 1))
        * output_feature
        * (batch // max(batch_group_count, 1))
        * math.prod(known)
    )
    return fmas * FMA_FLOPS


# Beyond this many kernel (or output) positions of a dilated input, the count
# is not worked out (one step per position): the convolution's FLOPs are then
# unknown, said so, never a guess.
MAX_DILATED_POSITIONS = 1 << 20


def _valid_positions(
    w: WindowDimension, input_limit: int, kernel_limit: int, output_limit: int
) -> int | None:
    """How many (kernel position, output position) pairs of one spatial
    dimension read an input element that is there (not padding, not a hole
    of the base dilation): XLA's double loop, counted in closed form (or, for
    a dilated input, in one step per position of the shorter side)."""
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
    if kernel_limit <= 0 or output_limit <= 0 or input_limit <= 0:
        return 0
    if w.base_dilation == 1:
        return _undilated_positions(w, input_limit, kernel_limit, output_limit)
    return _dilated_positions(w, input_limit, kernel_limit, output_limit)


def _undilated_positions(w: WindowDimension, n_in: int, n_kernel: int, n_out: int) -> int:
    """Pairs (k, o) with 0 <= o*stride + k*dilation - pad_low < n_in. For each
    k the outputs that qualify form a range [lower(k), upper(k)], both ends
    falling with k: the sum over k splits into a few runs, each a constant
    or a sum of floors of a linear function (`_floor_sum`)."""
    s, wd, pl = w.stride, w.window_dilation, w.padding_low
    top = n_in - 1 + pl

    def above(k: int) -> int:  # the last output k reaches before the input ends
        return (top - wd * k) // s

    def below(k: int) -> int:  # the first output k reaches at or after the input starts
        return -((wd * k - pl) // s)

    first = _first(n_kernel, lambda k: below(k) <= n_out - 1)
    last = _last(n_kernel, lambda k: above(k) >= 0)
    if first > last:
        return 0
    full_top = _last(n_kernel, lambda k: above(k) >= n_out - 1)  # upper(k) = n_out - 1
    from_zero = _first(n_kernel, lambda k: below(k) <= 0)  # lower(k) = 0
    upper = _run(first, min(last, full_top), n_out - 1) + _floor_run(
        max(first, full_top + 1), last, -wd, top, s
    )
    lower = _floor_run(first, min(last, from_zero - 1), wd, -pl, s, negate=True)
    return upper - lower + (last - first + 1)


def _dilated_positions(w: WindowDimension, n_in: int, n_kernel: int, n_out: int) -> int | None:
    """The same with a base dilation: an input element sits at every
    ``base_dilation``-th place, so for each position of the shorter side the
    positions of the other that land on one are an arithmetic progression."""
    s, wd, pl, bd = w.stride, w.window_dilation, w.padding_low, w.base_dilation
    span = bd * (n_in - 1)  # places 0..span hold input elements at multiples of bd
    if min(n_kernel, n_out) > MAX_DILATED_POSITIONS:
        return None
    count = 0
    if n_kernel <= n_out:
        step, other, places = s, n_out, ((wd * k - pl) for k in range(n_kernel))
    else:
        step, other, places = wd, n_kernel, ((s * o - pl) for o in range(n_out))
    g = math.gcd(step, bd)
    period = bd // g
    inverse = pow(step // g, -1, period) if period > 1 else 0
    for c in places:
        # j in [0, other) with 0 <= step*j + c <= span and step*j + c = 0 (mod bd)
        low = max(0, -(c // step) if c < 0 else 0)
        high = min(other - 1, (span - c) // step) if span >= c else -1
        if low > high or c % g:
            continue
        residue = ((-c // g) * inverse) % period if period > 1 else 0
        start = low + (residue - low) % period
        if start <= high:
            count += (high - start) // period + 1
    return count


def _first(n: int, holds: Callable[[int], bool]) -> int:
    """The least k in [0, n) where ``holds`` (true from some k on), else n."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _last(n: int, holds: Callable[[int], bool]) -> int:
    """The greatest k in [0, n) where ``holds`` (true up to some k), else -1."""
    return _first(n, lambda k: not holds(k)) - 1


def _run(first: int, last: int, value: int) -> int:
    return value * (last - first + 1) if last >= first else 0


def _floor_run(first: int, last: int, a: int, b: int, m: int, negate: bool = False) -> int:
    """Sum over k in [first, last] of floor((a*k + b) / m) (negated: of
    -floor(...))."""
    if last < first:
        return 0
    # k = first + i, i in [0, n): floor((a*i + a*first + b) / m)
    n, c = last - first + 1, a * first + b
    if a < 0:  # count down from last instead: the slope turns positive
        a, c = -a, a * last + b
    total = _floor_sum(n, m, a, c)
    return -total if negate else total


def _floor_sum(n: int, m: int, a: int, b: int) -> int:
    """Sum of floor((a*i + b) / m) for i in [0, n), a >= 0, m > 0, any b
    (the Euclid-like reduction: O(log) steps)."""
    total = 0
    if b < 0 or b >= m:
        q, b = divmod(b, m)
        total += q * n
    while True:
        if a >= m:
            q, a = divmod(a, m)
            total += q * n * (n - 1) // 2
        if b >= m:
            q, b = divmod(b, m)
            total += q * n
        y = a * n + b
        if y < m:
            return total
        n, b, m, a = y // m, y % m, a, m


def _elements(shape: Shape) -> int:
    return math.prod(max(d, 0) for d in shape.dims)
