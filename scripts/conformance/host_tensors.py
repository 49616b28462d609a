"""The torch tensors an example's host code makes, as the manifest generator sees them: a shape,
a dtype and, for small 1-D integer tensors written out in the file (`torch.tensor([0, 2048])`,
`batch_sizes.max()`), their values. What torch itself defines (a sort keeps the shape, a slice
shortens it, `t[-1].item()` reads a written value) is followed; anything random or computed by
another library stays UNKNOWN (static_eval.py's rule: never guessed). Standard library only.
"""
import itertools
import math
import operator

UNKNOWN = object()

TENSOR_MAKERS = {"randn", "rand", "empty", "zeros", "ones", "randint", "full", "empty_like", "zeros_like", "randn_like",
                 "ones_like", "rand_like", "randperm"}
_PASSTHROUGH_METHODS = {"cuda", "half", "float", "bfloat16", "to", "contiguous", "clone", "normal_", "uniform_", "fill_",
                        "zero_", "requires_grad_", "detach", "abs", "mul", "mul_", "div", "add", "sub", "cpu", "clamp",
                        "clamp_", "relu", "exp", "neg"}
_MAX_DATA = 4096  # values kept for a literal tensor; a longer one keeps its shape only


class DType:
    """A dtype written as `T.float16`, `torch.float16` or `"float16"`."""

    NAMES = {"float16", "half", "bfloat16", "float32", "float", "float64", "int8", "int16", "int32", "int64", "uint8",
             "uint16", "uint32", "uint64", "bool", "float8_e4m3", "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz",
             "float8_e4m3fnuz", "int4", "uint4", "float4_e2m1fn", "tfloat32", "float8_e8m0fnu", "long"}
    ALIAS = {"half": "float16", "float": "float32", "float8_e4m3fn": "float8_e4m3", "long": "int64"}

    def __init__(self, name):
        self.name = self.ALIAS.get(name, name)

    def __eq__(self, other):
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class TensorShape:
    """A torch tensor made at host level (torch.randn(M, K, ...)): its shape and dtype, and the
    flat values of a small 1-D or 0-d tensor whose values the file writes, else None."""

    def __init__(self, shape, dtype=None, data=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.data = data

    def with_dtype(self, dtype):
        return TensorShape(self.shape, dtype, self.data)


def scalar_of(v):
    """A 0-d (or one-element) tensor with a known value as that value; anything else unchanged.
    Python does the same when `int(t)`, `math.ceil(t / 128)` or `range(t)` meet such a tensor."""
    if isinstance(v, TensorShape) and v.data is not None and len(v.data) == 1 and math.prod(v.shape) == 1:
        return v.data[0]
    return v


def broadcast(a, b):
    """torch's broadcasting of two shapes (trailing dims equal or 1), or None."""
    out = []
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def elementwise(op, a, b):
    """`A * 2 - 1` keeps A's shape, `x * (1.0 / sf)` broadcasts; values are followed where both
    sides have them and the shapes are equal."""
    ta = isinstance(a, TensorShape)
    t = a if ta else b
    other = b if ta else a
    if not isinstance(other, (TensorShape, int, float)) or isinstance(other, bool):
        return UNKNOWN
    shape = broadcast(t.shape, other.shape) if isinstance(other, TensorShape) else t.shape
    if shape is None:
        return UNKNOWN
    data = None
    if t.data is not None and (not isinstance(other, TensorShape) or (other.data is not None and other.shape == t.shape)):
        xs = t.data
        ys = other.data if isinstance(other, TensorShape) else [other] * len(xs)
        data = [op(x, y) if ta else op(y, x) for x, y in zip(xs, ys)]
    return TensorShape(shape, t.dtype, data)


def _reduce_dims(t, args, kwargs):
    """The shape after `amax(dim=..., keepdim=...)` and friends, or UNKNOWN."""
    dims = kwargs.get("dim", args[0] if args else None)
    if dims is None:
        return () if not kwargs.get("keepdim") else (1,) * len(t.shape)
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    if not all(isinstance(d, int) and -len(t.shape) <= d < len(t.shape) for d in dims):
        return UNKNOWN
    gone = {d % len(t.shape) for d in dims}
    keep = kwargs.get("keepdim", args[1] if len(args) > 1 else False) is True
    return tuple(1 if i in gone else n for i, n in enumerate(t.shape) if keep or i not in gone)


def _slice_len(n, s):
    return len(range(*s.indices(n)))


def subscript(t, idx):
    """`t[i]`, `t[1:]`, `t[:, :, :k]`, `t[None, :]`: the shape torch gives, and the values of a
    1-D tensor with known values."""
    items = list(idx) if isinstance(idx, tuple) else [idx]
    if any(not (isinstance(i, (int, slice)) or i is None or i is Ellipsis) for i in items) or items.count(Ellipsis) > 1:
        return UNKNOWN
    if Ellipsis in items:
        at = items.index(Ellipsis)
        fill = len(t.shape) - (len(items) - 1 - items.count(None))
        items = items[:at] + [slice(None)] * fill + items[at + 1:]
    shape, dim, data = [], 0, t.data
    for i in items:
        if i is None:
            shape.append(1)
            continue
        if dim >= len(t.shape):
            return UNKNOWN
        n = t.shape[dim]
        if isinstance(i, int):
            if not -n <= i < n:
                return UNKNOWN
            data = [data[i]] if data is not None and len(t.shape) == 1 else None
        else:
            shape.append(_slice_len(n, i))
            data = data[i] if data is not None and len(t.shape) == 1 else None
        dim += 1
    shape += list(t.shape[dim:])
    return TensorShape(tuple(shape), t.dtype, data)


def literal(data, dtype):
    """torch.tensor([...]): its shape is the nesting of the list (and a 1-D list's values)."""
    data_list, shape = data, []
    while isinstance(data, (list, tuple)):
        shape.append(len(data))
        data = data[0] if data else None
    values = [scalar_of(x) for x in data_list] if len(shape) == 1 else None
    flat = values if values is not None and len(values) <= _MAX_DATA and all(isinstance(x, (int, float)) for x in values) else None
    default = DType("int64" if isinstance(scalar_of(data), int) else "float32")
    return TensorShape(tuple(shape), dtype if isinstance(dtype, DType) else default, flat)


def make(leaf, args, kwargs):
    """torch.randn(M, K), torch.full((M,), v), torch.randint(lo, hi, (n,)), torch.empty_like(x), ..."""
    dtype = kwargs.get("dtype")
    if leaf.endswith("_like"):
        if not args or not isinstance(args[0], TensorShape):
            return UNKNOWN
        return TensorShape(args[0].shape, dtype if isinstance(dtype, DType) else args[0].dtype)
    if any(a is UNKNOWN for a in args):
        return UNKNOWN
    dims = args
    if leaf == "randint":
        dims = [kwargs.get("size", args[-1] if args else UNKNOWN)]
    elif leaf in ("full", "randperm"):
        dims = args[:1]
    if "size" in kwargs and leaf != "randint":
        dims = [kwargs["size"]]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = list(dims[0])
    dims = [scalar_of(d) for d in dims]
    if not dims or any(not isinstance(d, int) for d in dims):
        return UNKNOWN
    default = DType("int64" if leaf in ("randperm", "randint") else "float32")
    return TensorShape(tuple(dims), dtype if isinstance(dtype, DType) else default)


def method(name, t, args, kwargs):
    """A tensor method's result, where torch defines it from the shape (and known values)."""
    casts = {"half": "float16", "float": "float32", "bfloat16": "bfloat16", "int": "int32", "long": "int64"}
    if name in casts:
        return t.with_dtype(DType(casts[name]))
    if name == "to":
        d = kwargs.get("dtype", args[0] if args else None)
        return t.with_dtype(d) if isinstance(d, DType) else t
    if name in ("view", "reshape") and args and all(isinstance(a, (int, tuple, list)) for a in args):
        dims = list(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else list(args)
        total, known = math.prod(t.shape), math.prod(d for d in dims if d != -1)
        if dims.count(-1) == 1 and known and total % known == 0:
            dims[dims.index(-1)] = total // known
        return TensorShape(tuple(dims), t.dtype) if -1 not in dims and math.prod(dims) == total else UNKNOWN
    reducers = {"max": max, "min": min, "sum": sum}
    if name in reducers and not args and not kwargs and t.data:
        return TensorShape((), t.dtype, [reducers[name](t.data)])
    if name in ("amax", "amin", "sum", "mean") and (args or kwargs):
        shape = _reduce_dims(t, args, kwargs)
        return UNKNOWN if shape is UNKNOWN else TensorShape(shape, t.dtype)
    if name == "squeeze" and not args:
        return TensorShape(tuple(n for n in t.shape if n != 1), t.dtype, t.data)
    if name == "unsqueeze" and len(args) == 1 and isinstance(args[0], int) and -len(t.shape) - 1 <= args[0] <= len(t.shape):
        at = args[0] % (len(t.shape) + 1)
        return TensorShape(t.shape[:at] + (1,) + t.shape[at:], t.dtype)
    if name in ("sort", "argsort"):
        # torch.sort keeps the shape, along any dim: (values, int64 indices); values followed for a
        # 1-D tensor with known values.
        order = sorted(range(len(t.data)), key=t.data.__getitem__, reverse=kwargs.get("descending") is True) \
            if t.data is not None and len(t.shape) == 1 else None
        values = TensorShape(t.shape, t.dtype, [t.data[i] for i in order] if order is not None else None)
        indices = TensorShape(t.shape, DType("int64"), order)
        return (values, indices) if name == "sort" else indices
    if name == "cumsum" and t.data is not None:
        return TensorShape(t.shape, t.dtype, list(itertools.accumulate(t.data)))
    if name == "item" and t.data and len(t.data) == 1:
        return t.data[0]
    if name == "tolist" and t.data is not None and len(t.shape) == 1:
        return list(t.data)
    if name == "numel":
        return math.prod(t.shape)
    if name == "size":
        return t.shape[args[0]] if args and isinstance(args[0], int) else t.shape
    if name == "dim":
        return len(t.shape)
    return t if name in _PASSTHROUGH_METHODS else UNKNOWN

