"""The torch tensors an example's host code makes, as the manifest generator sees them: a shape,
a dtype and, for small 1-D integer tensors written out in the file (`torch.tensor([0, 2048])`,
`batch_sizes.max()`), their values. What torch itself defines (a sort keeps the shape, a slice
shortens it, `t[-1].item()` reads a written value) is followed; anything random or computed by
another library stays UNKNOWN (static_eval.py's rule: never guessed). Standard library only.

A tensor may also carry bounds on its values (`torch.arange(n)` is in [0, n-1], a bool mask is
in [False, True]), which is how a mask's `nonzero()` or a `sum()` of it gets a size. A value the
file draws at random (`torch.randint(lo, hi, ...)`) is in [lo, hi-1]; only when draws_at_max()
is on (the generator's second pass, see gen_manifest.py) is every such draw taken at its upper
bound, hi-1, the largest size the file allows; entries sized that way are marked `drawn`.
"""
import itertools
import math
import operator
import re

UNKNOWN = object()

TENSOR_MAKERS = {"randn", "rand", "empty", "zeros", "ones", "randint", "full", "empty_like", "zeros_like", "randn_like",
                 "ones_like", "rand_like", "randperm"}
_PASSTHROUGH_METHODS = {"cuda", "half", "float", "bfloat16", "to", "contiguous", "clone", "normal_", "uniform_", "fill_",
                        "zero_", "requires_grad_", "detach", "abs", "mul", "mul_", "div", "add", "sub", "cpu", "clamp",
                        "clamp_", "relu", "exp", "neg"}
_MAX_DATA = 4096  # values kept for a literal tensor; a longer one keeps its shape only
_DRAWS_AT_MAX = [False]


def draws_at_max(on=None):
    """Whether a random draw is taken at its upper bound (set by the generator's second pass)."""
    if on is not None:
        _DRAWS_AT_MAX[0] = on
    return _DRAWS_AT_MAX[0]


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
    """A torch tensor made at host level (torch.randn(M, K, ...)): its shape and dtype, the flat
    values of a small 1-D or 0-d tensor whose values the file writes, else None, and the (lo, hi)
    bounds of its values where they are known, else None."""

    def __init__(self, shape, dtype=None, data=None, bounds=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.data = data
        if bounds is None and data:
            bounds = (min(data), max(data)) if all(isinstance(x, (int, float)) for x in data) else None
        self.bounds = bounds

    def with_dtype(self, dtype):
        return TensorShape(self.shape, dtype, self.data, self.bounds)

    def __len__(self):
        """`len(t)` is the first dimension, as torch defines it (a 0-d tensor has none)."""
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]


def scalar_of(v):
    """A 0-d (or one-element) tensor with a known value as that value; anything else unchanged.
    Python does the same when `int(t)`, `math.ceil(t / 128)` or `range(t)` meet such a tensor."""
    if isinstance(v, TensorShape) and v.data is not None and len(v.data) == 1 and math.prod(v.shape) == 1:
        return v.data[0]
    if isinstance(v, TensorShape) and v.bounds and v.bounds[0] == v.bounds[1] and math.prod(v.shape) == 1:
        return v.bounds[0]
    return v


def flat_values(t):
    """The flat values of a 1-D tensor: what the file wrote, or every element when its bounds say
    they are all one value (torch.zeros(n), a draw taken at its upper bound); else None."""
    if len(t.shape) != 1:
        return None
    if t.data is not None:
        return t.data
    if t.bounds and t.bounds[0] == t.bounds[1] and t.shape[0] <= _MAX_DATA:
        return [t.bounds[0]] * t.shape[0]
    return None


def store(t, idx, value):
    """`t[idx] = value` on a 1-D tensor: the tensor with those values, or None when they are not
    known (then the caller forgets t's values)."""
    old = flat_values(t)
    if old is None or not isinstance(idx, (int, slice)):
        return None
    new = list(old)
    if isinstance(idx, int):
        v = scalar_of(value)
        if not isinstance(v, (int, float)) or not -len(new) <= idx < len(new):
            return None
        new[idx] = v
    else:
        span = range(*idx.indices(len(new)))
        vals = flat_values(value) if isinstance(value, TensorShape) else [value] * len(span) if isinstance(value, (int, float)) else None
        if vals is None or len(vals) != len(span):
            return None
        for i, v in zip(span, vals):
            new[i] = v
    return TensorShape(t.shape, t.dtype, new)


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
    tb = t.bounds
    ob = other.bounds if isinstance(other, TensorShape) else (other, other)
    bounds = _bounds_op(op, tb, ob) if ta else _bounds_op(op, ob, tb)
    dtype = DType("bool") if op in _COMPARISONS else t.dtype
    return TensorShape(shape, dtype, data, bounds)


_COMPARISONS = {operator.lt: (lambda a, b: a[1] < b[0], lambda a, b: a[0] >= b[1]),
                operator.le: (lambda a, b: a[1] <= b[0], lambda a, b: a[0] > b[1]),
                operator.gt: (lambda a, b: a[0] > b[1], lambda a, b: a[1] <= b[0]),
                operator.ge: (lambda a, b: a[0] >= b[1], lambda a, b: a[1] < b[0])}


def _bounds_op(op, a, b):
    """Bounds of `a op b` from the operands' bounds (interval arithmetic), or None. A comparison
    whose bounds decide it holds for every element (all True or all False); else [False, True]."""
    if a is None or b is None:
        return (False, True) if op in _COMPARISONS else None
    if op in _COMPARISONS:
        always, never = _COMPARISONS[op]
        return (True, True) if always(a, b) else (False, False) if never(a, b) else (False, True)
    if op in (operator.add, operator.sub, operator.mul):
        corners = [op(x, y) for x in a for y in b]
        return (min(corners), max(corners))
    return None


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
    if isinstance(idx, TensorShape) and idx.dtype is not None and idx.dtype.name.startswith(("int", "uint")) and t.shape:
        # `t[perm]`: one element (row) per index, in the index's shape, values gathered when known
        data = None
        if t.data is not None and idx.data is not None and len(t.shape) == 1 and all(-len(t.data) <= i < len(t.data) for i in idx.data):
            data = [t.data[i] for i in idx.data]
        return TensorShape(idx.shape + t.shape[1:], t.dtype, data, t.bounds)
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
    return TensorShape(tuple(shape), t.dtype, data, t.bounds)


def concat(parts, dim):
    """torch.cat(parts, dim): the parts' shapes joined along dim (values of 1-D parts when all are
    known, bounds when all have them), or UNKNOWN."""
    if not parts or not all(isinstance(p, TensorShape) for p in parts) or not isinstance(dim, int):
        return UNKNOWN
    rank = len(parts[0].shape)
    if rank == 0 or not -rank <= dim < rank or any(len(p.shape) != rank for p in parts):
        return UNKNOWN
    dim %= rank
    if any(p.shape[:dim] + p.shape[dim + 1:] != parts[0].shape[:dim] + parts[0].shape[dim + 1:] for p in parts):
        return UNKNOWN
    shape = parts[0].shape[:dim] + (sum(p.shape[dim] for p in parts),) + parts[0].shape[dim + 1:]
    data = [x for p in parts for x in p.data] if rank == 1 and all(p.data is not None for p in parts) else None
    bounds = None
    if all(p.bounds is not None for p in parts):
        bounds = (min(p.bounds[0] for p in parts), max(p.bounds[1] for p in parts))
    return TensorShape(shape, parts[0].dtype, data, bounds)


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
    return TensorShape(tuple(dims), dtype if isinstance(dtype, DType) else default, None, _made_bounds(leaf, args, kwargs, dims))


def _made_bounds(leaf, args, kwargs, dims):
    """What torch guarantees about a new tensor's values: a fill's value, randperm's range, and
    randint(lo, hi)'s [lo, hi-1] (at hi-1 alone when draws are taken at their upper bound)."""
    if leaf in ("zeros", "ones"):
        return (int(leaf == "ones"),) * 2
    if leaf == "full" and len(args) > 1 and isinstance(args[1], (int, float)):
        return (args[1], args[1])
    if leaf == "randperm":
        return (0, dims[0] - 1)
    if leaf == "randint":
        ends = [scalar_of(a) for a in (args if "size" in kwargs else args[:-1])]
        lo, hi = (0, ends[0]) if len(ends) == 1 else tuple(ends[:2]) if len(ends) >= 2 else (None, None)
        if isinstance(lo, int) and isinstance(hi, int) and hi > lo:
            return (hi - 1, hi - 1) if draws_at_max() else (lo, hi - 1)
    return None


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
        return TensorShape(tuple(dims), t.dtype, None, t.bounds) if -1 not in dims and math.prod(dims) == total else UNKNOWN
    reducers = {"max": max, "min": min, "sum": sum}
    if name in reducers and not args and not kwargs and t.data:
        return TensorShape((), t.dtype, [reducers[name](t.data)])
    if name in ("max", "min") and not args and not kwargs and t.bounds:
        return TensorShape((), t.dtype, None, t.bounds)
    if name in ("amax", "amin", "sum", "mean") and (args or kwargs or (name == "sum" and t.bounds)):
        shape = _reduce_dims(t, args, kwargs)
        if shape is UNKNOWN:
            return UNKNOWN
        bounds = t.bounds
        if name == "sum" and bounds is not None:  # each result adds up this many elements
            count = math.prod(t.shape) // max(1, math.prod(shape))
            bounds = (count * bounds[0], count * bounds[1])
        dtype = kwargs.get("dtype") if isinstance(kwargs.get("dtype"), DType) else t.dtype
        return TensorShape(shape, dtype, None, bounds)
    if name == "nonzero" and kwargs.get("as_tuple") is not True and t.bounds and t.bounds[0]:
        # every element is nonzero: one row of indices per element
        return TensorShape((math.prod(t.shape), len(t.shape)), DType("int64"), None, (0, max(t.shape) - 1))
    if name == "flatten" and not args:
        return TensorShape((math.prod(t.shape),), t.dtype, t.data if len(t.shape) <= 1 else None, t.bounds)
    if name == "squeeze" and not args:
        return TensorShape(tuple(n for n in t.shape if n != 1), t.dtype, t.data, t.bounds)
    if name == "unsqueeze" and len(args) == 1 and isinstance(args[0], int) and -len(t.shape) - 1 <= args[0] <= len(t.shape):
        at = args[0] % (len(t.shape) + 1)
        return TensorShape(t.shape[:at] + (1,) + t.shape[at:], t.dtype, None, t.bounds)
    if name in ("sort", "argsort"):
        # torch.sort keeps the shape, along any dim: (values, int64 indices); values followed for a
        # 1-D tensor with known values.
        order = sorted(range(len(t.data)), key=t.data.__getitem__, reverse=kwargs.get("descending") is True) \
            if t.data is not None and len(t.shape) == 1 else None
        values = TensorShape(t.shape, t.dtype, [t.data[i] for i in order] if order is not None else None)
        indices = TensorShape(t.shape, DType("int64"), order)
        return (values, indices) if name == "sort" else indices
    if name == "cumsum" and flat_values(t) is not None:
        return TensorShape(t.shape, t.dtype, list(itertools.accumulate(flat_values(t))))
    if name == "cumsum" and t.bounds is not None and t.bounds[0] >= 0:
        return TensorShape(t.shape, kwargs.get("dtype") if isinstance(kwargs.get("dtype"), DType) else t.dtype, None,
                           (t.bounds[0], t.bounds[1] * max(t.shape, default=1)))
    if name == "item" and t.data and len(t.data) == 1:
        return t.data[0]
    if name == "item" and t.bounds and t.bounds[0] == t.bounds[1] and math.prod(t.shape) == 1:
        return t.bounds[0]
    if name == "tolist" and t.data is not None and len(t.shape) == 1:
        return list(t.data)
    if name == "expand" and args:
        # `t.expand(1, n, h, d)`: the sizes given, -1 keeping the dim; values no longer 1-D.
        dims = list(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else list(args)
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in dims) or len(dims) < len(t.shape):
            return UNKNOWN
        lead = len(dims) - len(t.shape)
        out = tuple(t.shape[i - lead] if d == -1 and i >= lead else d for i, d in enumerate(dims))
        ok = all(d > 0 for d in out) and all(t.shape[i] in (1, out[i + lead]) for i in range(len(t.shape)))
        return TensorShape(out, t.dtype, None, t.bounds) if ok else UNKNOWN
    if name == "numel":
        return math.prod(t.shape)
    if name == "size":
        return t.shape[args[0]] if args and isinstance(args[0], int) else t.shape
    if name == "dim":
        return len(t.shape)
    return t if name in _PASSTHROUGH_METHODS else UNKNOWN



def _einops_items(side):
    """`b (h d) ...` as ["b", ["h", "d"], "..."]; None when the text is not a pattern."""
    items, group = [], None
    for tok in re.findall(r"\(|\)|\.\.\.|\w+|\S", side):
        if tok == "(":
            if group is not None:
                return None
            group = []
        elif tok == ")":
            if group is None:
                return None
            items.append(group)
            group = None
        elif tok == "..." or re.fullmatch(r"\w+", tok):
            (items if group is None else group).append(tok)
        else:
            return None
    return items if group is None else None


def einops_shape(t, pattern, sizes):
    """The shape of einops' rearrange / repeat of t by pattern (`"b s ... -> (b s) ..."`), the
    new axes' sizes given by name; values and bounds are kept (both only move or copy elements)."""
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        return UNKNOWN
    left, right = (_einops_items(p) for p in pattern.split("->"))
    if left is None or right is None or sum(i == "..." for i in left) > 1:
        return UNKNOWN
    extra = len(t.shape) - (len(left) - ("..." in left))
    if extra < 0 or ("..." not in left and extra):
        return UNKNOWN
    axes, dims, ellipsis = dict(sizes), list(t.shape), ()
    for item in left:
        if item == "...":
            ellipsis, dims = tuple(dims[:extra]), dims[extra:]
            continue
        d = dims.pop(0)
        names = item if isinstance(item, list) else [item]
        unknown = [n for n in names if not n.isdigit() and n not in axes]
        known = math.prod(int(n) if n.isdigit() else axes[n] for n in names if n not in unknown)
        if len(unknown) > 1 or "..." in names or (not unknown and known != d) or (unknown and d % known):
            return UNKNOWN
        if unknown:
            axes[unknown[0]] = d // known

    def size(name):
        return math.prod(ellipsis) if name == "..." else int(name) if name.isdigit() else axes.get(name, UNKNOWN)

    out = []
    for item in right:
        if item == "...":
            out += list(ellipsis)
        else:
            parts = [size(n) for n in (item if isinstance(item, list) else [item])]
            if UNKNOWN in parts or not all(isinstance(p, int) for p in parts):
                return UNKNOWN
            out.append(math.prod(parts))
    return TensorShape(tuple(out), t.dtype, t.data if len(out) == 1 and len(t.shape) == 1 else None, t.bounds)


def pad(t, widths):
    """torch.nn.functional.pad(t, (left, right, ...)): the last dims grow; the pad value 0 joins the bounds."""
    if not isinstance(widths, (tuple, list)) or len(widths) % 2 or len(widths) // 2 > len(t.shape) or \
            not all(isinstance(w, int) for w in widths):
        return UNKNOWN
    shape = list(t.shape)
    for i in range(len(widths) // 2):
        shape[-1 - i] += widths[2 * i] + widths[2 * i + 1]
    bounds = (min(0, t.bounds[0]), max(0, t.bounds[1])) if t.bounds else None
    return TensorShape(tuple(shape), t.dtype, None, bounds)
