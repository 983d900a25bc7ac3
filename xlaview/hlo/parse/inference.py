"""The shapes a text leaves out, inferred as XLA's parser infers them.

XLA's parser lets an instruction go without its shape when the opcode's
shape follows from its operands and attributes (``CanInferShape`` in
``xla/hlo/parser/hlo_parser.cc``; ``ShapeInference`` then gives it).
Hand-written HLO does so, above all in nested operands, instructions written
inline as the operand of another (``add(f32[10] parameter(0),
multiply(f32[10] parameter(1), f32[10] parameter(2)))``): without the shapes
the analyses would price those instructions as nothing. Only the careful
path (`xlaview.hlo.parse.tolerant`) meets such text: XLA always prints shapes.

The rules below follow ``ShapeInference`` for the opcodes real and test texts
leave shapes out of; an instruction none of them covers (or whose operands
are not known) keeps `UNKNOWN_SHAPE`, as before. Layouts as XLA gives them:
an elementwise result keeps its operand's layout (its dimension order where
the element type changes), a transpose permutes it (so that a transpose of
the default layout is a bitcast, priced as one), any other inferred array
has none written (the default).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar

from xlaview.hlo.attributes import computation_names, split_attributes
from xlaview.hlo.interpreted import braced_ints, parse_dim_labels, parse_window
from xlaview.hlo.model import Computation, Instruction
from xlaview.hlo.shape import ELEMENT_BITS, UNKNOWN_SHAPE, Shape, parse_shape

__all__ = ["infer_shapes"]

_SAME_SHAPE_UNARY = frozenset(
    (
        "acos", "acosh", "asin", "asinh", "atanh", "cbrt", "ceil", "clz", "copy", "cos", "cosh",
        "erf", "exponential", "exponential-minus-one", "floor", "log", "log-plus-one", "logistic",
        "negate", "not", "popcnt", "round-nearest-afz", "round-nearest-even", "rsqrt", "sign",
        "sin", "sinh", "sqrt", "tan", "tanh", "cholesky", "reverse", "domain", "add-dependency",
        "while", "select-and-scatter",
    )
)  # fmt: skip
_BINARY = frozenset(
    (
        "add", "subtract", "multiply", "divide", "remainder", "power", "atan2", "maximum",
        "minimum", "and", "or", "xor", "shift-left", "shift-right-arithmetic",
        "shift-right-logical",
    )
)  # fmt: skip
_COMPONENT = {"c64": "f32", "c128": "f64"}
_COMPLEX = {"f32": "c64", "f64": "c128"}
_FLOATS = frozenset(t for t in ELEMENT_BITS if t.startswith(("f", "bf")))

# Characters of tuple shape text `_tuple` may still make in this thread's parse.
_TUPLE_BUDGET: ContextVar[list[int]] = ContextVar("tuple_budget")
_MIN_BUDGET = 1 << 20
# Opcodes whose shape is their callee's (root's) shape, or made from it.
_CALLING = frozenset(("call", "conditional", "map"))
# A shape from its operands' shapes, the instruction's attributes and the
# root shapes of the computations it calls (None: cannot say).
_Rule = Callable[[Sequence[Shape], dict[str, str], Callable[[str], Shape | None]], Shape | None]


def infer_shapes(computations: Sequence[Computation], text_size: int = 0) -> list[Computation]:
    """``computations`` with every `UNKNOWN_SHAPE` the rules can infer filled
    in (the others as they were); a computation with nothing to fill is the
    same object. Called computations are inferred first, so that a ``call``
    or ``conditional`` takes its callee's root shape. Linear in the size of
    the computations with a shape left out, in whatever order the text
    defines them and their instructions (no recursion: a hostile chain of a
    million calls is walked like a short one); the others are not read.

    Tuples of tuples can double at each line (``t2 = tuple(t1, t1)``): the
    text of the tuple shapes made is held to a few times the ``text_size``
    of the module, and a tuple past that stays unknown."""
    _TUPLE_BUDGET.set([_MIN_BUDGET + 4 * text_size])
    by_name = {c.name: c for c in computations}
    done: dict[str, Computation] = {}
    entered: set[str] = set()
    for first in computations:
        stack = [first.name]
        while stack:
            name = stack[-1]
            if name in done:
                stack.pop()
                continue
            comp = by_name[name]
            if name not in entered:
                entered.add(name)
                stack.extend(c for c in _callees(comp) if c in by_name and c not in entered)
                continue
            stack.pop()
            done[name] = _infer_computation(comp, done)
    return [done[c.name] if by_name[c.name] is c else c for c in computations]


def _unshaped(comp: Computation) -> bool:
    # The fast path takes only instructions with their shapes: none to read there.
    return comp.parsed is None and any(i.shape is UNKNOWN_SHAPE for i in comp.instructions)


def _callees(comp: Computation) -> list[str]:
    """The computations whose root shape an instruction of ``comp`` waits for."""
    if not _unshaped(comp):
        return []
    return [
        name
        for i in comp.instructions
        if i.shape is UNKNOWN_SHAPE and i.opcode in _CALLING
        for name in i.called_computations
    ]


def _infer_computation(comp: Computation, done: dict[str, Computation]) -> Computation:
    if not _unshaped(comp):
        return comp
    instructions = list(comp.instructions)
    shapes = {i.name: i.shape for i in instructions}
    index = {i.name: k for k, i in enumerate(instructions)}

    def root_shape(name: str) -> Shape | None:
        called = done.get(name)  # None: undefined, or on a cycle of calls
        root = called.root if called is not None else None
        return root.shape if root is not None and root.shape is not UNKNOWN_SHAPE else None

    # Operands before their users, whatever the text's order (a depth-first
    # walk on a stack: operands may be defined after their users).
    entered: set[int] = set()
    tried: set[int] = set()
    inferred = False
    for first, instr in enumerate(instructions):
        if instr.shape is not UNKNOWN_SHAPE or first in tried:
            continue
        stack = [first]
        while stack:
            k = stack[-1]
            if k in tried:
                stack.pop()
                continue
            if k not in entered:
                entered.add(k)
                for name in instructions[k].operand_names:
                    j = index.get(name)
                    if j is not None and j not in entered and shapes[name] is UNKNOWN_SHAPE:
                        stack.append(j)
                continue
            stack.pop()
            tried.add(k)
            shape = _infer(instructions[k], shapes, root_shape)
            if shape is not None:
                instructions[k] = instructions[k]._replace(shape=shape)
                shapes[instructions[k].name] = shape
                inferred = True
    if not inferred:
        return comp
    return Computation(
        comp.name,
        comp.is_entry,
        tuple(instructions),
        comp.span,
        comp.signature,
        comp.attribute_text,
    )


def _infer(
    instr: Instruction, shapes: dict[str, Shape], root_shape: Callable[[str], Shape | None]
) -> Shape | None:
    rule = _RULES.get(instr.opcode)
    if rule is None:
        return None
    operands = [shapes.get(name, UNKNOWN_SHAPE) for name in instr.operand_names]
    if any(s is UNKNOWN_SHAPE for s in operands):
        return None
    try:
        attributes = split_attributes(instr.attribute_text) if instr.attribute_text else {}
        return rule(operands, attributes, root_shape)
    except (IndexError, KeyError, ValueError, ZeroDivisionError):
        # Attributes that do not fit the operands (XLA refuses the text); the
        # parse errors (ValueSyntaxError, ShapeSyntaxError) are ValueErrors.
        return None


# -- building shapes --------------------------------------------------------------


def _array(
    element_type: str,
    dims: Iterable[int],
    dynamic: Iterable[bool] = (),
    layout_of: Shape | None = None,
) -> Shape:
    dims = tuple(dims)
    flags = tuple(dynamic) or (False,) * len(dims)
    text = ",".join(
        "?" if d < 0 else f"<={d}" if dyn else str(d) for d, dyn in zip(dims, flags, strict=True)
    )
    layout = ""
    if layout_of is not None and layout_of.layout is not None and layout_of.dims == dims:
        kept = layout_of.layout
        if layout_of.element_type == element_type and kept.text:
            layout = "{" + kept.text + "}"
        elif kept.minor_to_major:  # tiles and element sizes are the type's
            layout = "{" + ",".join(map(str, kept.minor_to_major)) + "}"
    return parse_shape(f"{element_type}[{text}]{layout}")


def _tuple(elements: Iterable[Shape]) -> Shape:
    texts = [_text(e) for e in elements]
    size = sum(map(len, texts)) + 2 * len(texts)
    budget = _TUPLE_BUDGET.get(None) or [_MIN_BUDGET]
    if size > budget[0]:
        raise ValueError("tuple shapes past the budget")
    budget[0] -= size
    return parse_shape("(" + ", ".join(texts) + ")")


def _text(shape: Shape) -> str:
    return shape.text or str(shape)


def _like(shape: Shape, element_type: str | None = None) -> Shape:
    """``shape`` with another element type (an array; its layout kept), or itself."""
    if element_type is None or element_type == shape.element_type or not shape.is_array:
        return shape
    return _array(element_type, shape.dims, shape.dynamic, shape)


def _ints(attributes: dict[str, str], key: str) -> tuple[int, ...]:
    value = attributes.get(key)
    return braced_ints(value) if value else ()


def _higher_precision(a: str, b: str) -> str:
    """The element type XLA's ``HigherPrecisionElementType`` picks of two."""
    if a == b or not (a in _FLOATS and b in _FLOATS):
        return a
    return b if ELEMENT_BITS[b] > ELEMENT_BITS[a] else a


def _broadcast_dims(shapes: Sequence[Shape]) -> tuple[int, ...]:
    """The dimensions of an elementwise result: scalars broadcast, and so do
    dimensions of size 1 against another size (degenerate broadcast)."""
    ranked = [s for s in shapes if s.rank]
    if not ranked:
        return ()
    dims = list(ranked[0].dims)
    for shape in ranked[1:]:
        if shape.rank != len(dims):
            raise ValueError("ranks differ")
        for k, d in enumerate(shape.dims):
            if dims[k] == 1:
                dims[k] = d
            elif d not in (1, dims[k]):
                raise ValueError("dimensions differ")
    return tuple(dims)


def _elementwise(shapes: Sequence[Shape], element_type: str) -> Shape:
    dims = _broadcast_dims(shapes)
    layout_of = next((s for s in shapes if s.dims == dims), None)
    dynamic = layout_of.dynamic if layout_of is not None else ()
    return _array(element_type, dims, dynamic, layout_of)


# -- the rules, by opcode -----------------------------------------------------------


def _unary(ops: Sequence[Shape], _a: dict[str, str], _r: Callable[[str], Shape | None]) -> Shape:
    return ops[0]


def _to_component(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    return _like(ops[0], _COMPONENT.get(ops[0].element_type))


def _is_finite(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    return _like(ops[0], "pred")


def _binary(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    lhs, rhs = ops
    return _elementwise(ops, _higher_precision(lhs.element_type, rhs.element_type))


def _compare(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    return _elementwise(ops, "pred")


def _complex(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    return _elementwise(ops, _COMPLEX[ops[0].element_type])


def _ternary(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    # select(pred, on_true, on_false), clamp(min, operand, max): the middle one's type.
    return _elementwise(ops[1:] if ops[0].element_type == "pred" else ops, ops[1].element_type)


def _tuple_of(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    return _tuple(ops)


def _get_tuple_element(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape | None:
    index = int(a["index"])
    elements = ops[0].elements
    return elements[index] if 0 <= index < len(elements) else None


def _scalar(element_type: str) -> _Rule:
    return lambda _o, _a, _r: parse_shape(f"{element_type}[]")


def _broadcast(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    # XLA's parser infers a broadcast from ``dimensions`` as the sizes of new
    # major dimensions (``InferBroadcastShape(operand, broadcast_sizes)``).
    sizes = _ints(a, "dimensions")
    operand = ops[0]
    if not sizes:
        return operand
    return _array(
        operand.element_type, (*sizes, *operand.dims), (False,) * len(sizes) + operand.dynamic
    )


def _transpose(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape | None:
    # The layout is permuted with the dimensions (XLA's ``PermuteDimensions``):
    # a transpose of the default layout is a bitcast, and priced as one.
    order = _ints(a, "dimensions")
    operand = ops[0]
    if sorted(order) != list(range(operand.rank)):
        return None
    layout = operand.layout
    minor_to_major = (
        layout.minor_to_major
        if layout is not None and len(layout.minor_to_major) == operand.rank
        else tuple(reversed(range(operand.rank)))
    )
    inverse = {k: i for i, k in enumerate(order)}
    dims = ",".join(
        ("<=" if operand.dynamic[k] else "") + str(operand.dims[k]) for k in order
    ).replace("<=-1", "?")
    m2m = ",".join(str(inverse[k]) for k in minor_to_major)
    return parse_shape(f"{operand.element_type}[{dims}]{{{m2m}}}")


def _concatenate(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    (dim,) = _ints(a, "dimensions")
    first = ops[0]
    dims = list(first.dims)
    dims[dim] = sum(s.dims[dim] for s in ops)
    element_type = first.element_type
    for shape in ops[1:]:
        element_type = _higher_precision(element_type, shape.element_type)
    return _array(element_type, dims)


def _pad(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape | None:
    operand = ops[0]
    config = a.get("padding", "")
    items = config.split("x") if config else []
    if len(items) != operand.rank:
        return None
    dims = []
    for d, item in zip(operand.dims, items, strict=True):
        parts = [int(p) for p in item.split("_")]
        low, high = parts[0], parts[1]
        interior = parts[2] if len(parts) > 2 else 0
        dims.append(low + high + d + max(d - 1, 0) * interior)
    return _array(operand.element_type, dims)


def _dot(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    lhs, rhs = ops[0], ops[1]
    lhs_batch, rhs_batch = _ints(a, "lhs_batch_dims"), _ints(a, "rhs_batch_dims")
    lhs_contracting = _ints(a, "lhs_contracting_dims")
    rhs_contracting = _ints(a, "rhs_contracting_dims")
    dims = [lhs.dims[k] for k in lhs_batch]
    dims += [d for k, d in enumerate(lhs.dims) if k not in lhs_batch and k not in lhs_contracting]
    dims += [d for k, d in enumerate(rhs.dims) if k not in rhs_batch and k not in rhs_contracting]
    return _array(_higher_precision(lhs.element_type, rhs.element_type), dims)


def _windowed(dims: Sequence[int], window_text: str | None, spatial: Sequence[int]) -> list[int]:
    """``dims`` with each of the ``spatial`` ones through its window dimension."""
    window = parse_window(window_text)
    if len(window) != len(spatial):
        raise ValueError("window rank")
    out = list(dims)
    for k, w in zip(spatial, window, strict=True):
        padded = (dims[k] - 1) * w.base_dilation + 1 + w.padding_low + w.padding_high
        if dims[k] == 0:
            padded = w.padding_low + w.padding_high
        extent = (w.size - 1) * w.window_dilation + 1
        out[k] = 0 if padded < extent else (padded - extent) // w.stride + 1
    return out


def _reduce(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    n = len(ops) // 2
    reduced = set(_ints(a, "dimensions"))
    results = [
        _array(init.element_type, [d for k, d in enumerate(operand.dims) if k not in reduced])
        for operand, init in zip(ops[:n], ops[n:], strict=True)
    ]
    return results[0] if n == 1 else _tuple(results)


def _reduce_window(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    n = len(ops) // 2
    results = [
        _array(init.element_type, _windowed(operand.dims, a.get("window"), range(operand.rank)))
        for operand, init in zip(ops[:n], ops[n:], strict=True)
    ]
    return results[0] if n == 1 else _tuple(results)


def _convolution(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape | None:
    lhs, rhs = ops
    labels = parse_dim_labels(a.get("dim_labels"))
    if labels is None:
        return None
    batch_groups = int(a.get("batch_group_count", "1"))
    spatial = _windowed(lhs.dims, a.get("window"), labels.input_spatial)
    dims = [0] * lhs.rank
    dims[labels.output_batch] = lhs.dims[labels.input_batch] // batch_groups
    dims[labels.output_feature] = rhs.dims[labels.kernel_output_feature]
    for out_k, in_k in zip(labels.output_spatial, labels.input_spatial, strict=True):
        dims[out_k] = spatial[in_k]
    return _array(_higher_precision(lhs.element_type, rhs.element_type), dims)


def _gather(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    operand, indices = ops
    offset_dims = _ints(a, "offset_dims")
    dropped = set(_ints(a, "collapsed_slice_dims")) | set(_ints(a, "operand_batching_dims"))
    slice_sizes = _ints(a, "slice_sizes")
    index_vector_dim = int(a.get("index_vector_dim", str(indices.rank)))
    batch = [d for k, d in enumerate(indices.dims) if k != index_vector_dim]
    offsets = [d for k, d in enumerate(slice_sizes) if k not in dropped]
    rank = len(batch) + len(offset_dims)
    dims = []
    b = o = 0
    for k in range(rank):
        if k in offset_dims:
            dims.append(offsets[o])
            o += 1
        else:
            dims.append(batch[b])
            b += 1
    return _array(operand.element_type, dims)


def _scatter(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    n = (len(ops) - 1) // 2
    return ops[0] if n == 1 else _tuple(ops[:n])


def _sort(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    return ops[0] if len(ops) == 1 else _tuple(ops)


def _topk(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    operand = ops[0]
    dims = (*operand.dims[:-1], int(a["k"]))
    return _tuple((_array(operand.element_type, dims), _array("s32", dims)))


def _fft(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape | None:
    operand = ops[0]
    kind = a.get("fft_type", "FFT")
    lengths = _ints(a, "fft_length")
    dims = list(operand.dims)
    if kind in ("FFT", "IFFT"):
        return operand
    if not lengths:
        return None
    if kind == "RFFT":
        dims[-1] = lengths[-1] // 2 + 1
        return _array(_COMPLEX[operand.element_type], dims)
    if kind == "IRFFT":
        dims[len(dims) - len(lengths) :] = lengths
        return _array(_COMPONENT[operand.element_type], dims)
    return None


def _batch_norm(with_statistics: bool) -> _Rule:
    def rule(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
        operand = ops[0]
        if not with_statistics:
            return operand
        feature = _array(operand.element_type, (operand.dims[int(a["feature_index"])],))
        return _tuple((operand, feature, feature))

    return rule


def _set_dimension_size(ops: Sequence[Shape], a: dict[str, str], _r: object) -> Shape:
    operand = ops[0]
    (dim,) = _ints(a, "dimensions")
    dynamic = list(operand.dynamic)
    dynamic[dim] = True
    return _array(operand.element_type, operand.dims, dynamic)


def _called_root(*keys: str) -> _Rule:
    def rule(
        _ops: Sequence[Shape], a: dict[str, str], root_shape: Callable[[str], Shape | None]
    ) -> Shape | None:
        for key in keys:
            names = computation_names(a[key]) if key in a else ()
            if names:
                return root_shape(names[0])
        return None

    return rule


def _map(
    ops: Sequence[Shape], a: dict[str, str], root_shape: Callable[[str], Shape | None]
) -> Shape | None:
    names = computation_names(a.get("to_apply", ""))
    root = root_shape(names[0]) if names else None
    return _like(ops[0], root.element_type) if root is not None else None


def _triangular_solve(ops: Sequence[Shape], _a: dict[str, str], _r: object) -> Shape:
    return ops[1]


_RULES: dict[str, _Rule] = {
    **{opcode: _unary for opcode in _SAME_SHAPE_UNARY},
    **{opcode: _binary for opcode in _BINARY},
    "abs": _to_component,
    "real": _to_component,
    "imag": _to_component,
    "is-finite": _is_finite,
    "compare": _compare,
    "complex": _complex,
    "select": _ternary,
    "clamp": _ternary,
    "tuple": _tuple_of,
    "get-tuple-element": _get_tuple_element,
    "after-all": lambda _o, _a, _r: parse_shape("token[]"),
    "partition-id": _scalar("u32"),
    "replica-id": _scalar("u32"),
    "get-dimension-size": _scalar("s32"),
    "set-dimension-size": _set_dimension_size,
    "broadcast": _broadcast,
    "transpose": _transpose,
    "concatenate": _concatenate,
    "pad": _pad,
    "dot": _dot,
    "convolution": _convolution,
    "gather": _gather,
    "scatter": _scatter,
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "sort": _sort,
    "topk": _topk,
    "fft": _fft,
    "batch-norm-training": _batch_norm(True),
    "batch-norm-grad": _batch_norm(True),
    "batch-norm-inference": _batch_norm(False),
    "triangular-solve": _triangular_solve,
    "call": _called_root("to_apply"),
    "conditional": _called_root("true_computation", "branch_computations"),
    "map": _map,
}
