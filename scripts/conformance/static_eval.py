"""Static evaluation of the host code in a TileLang example (standard library only).

The conformance manifest needs each kernel factory's arguments as the example itself passes
them: literal call sites, main() defaults, argparse defaults, wrapper functions, torch tensor
shapes handed to eager factories. Nothing of the example is executed; this walks its AST with
a tiny evaluator for constant Python, and anything it cannot know is `UNKNOWN`, never guessed.
"""
import ast
import itertools
import math
import operator
import os

from host_tensors import UNKNOWN, DType, TensorShape, einops_shape, elementwise, literal, make, method, pad, scalar_of, subscript
from host_tensors import TENSOR_MAKERS, concat

NOT_MINE = object()  # a hook's answer for calls it does not handle
MAX_DEPTH = 8
MAX_ITERATIONS = 128  # a longer host loop runs once, for its calls, and what it sets is unknown after it


class DTypeMethod:
    """`T.dtype(x).as_torch`: calling it gives the same dtype back."""

    def __init__(self, dtype):
        self.dtype = dtype


class EinopsFn:
    """`rearrange` / `repeat` bound by `from einops import ...`: shapes from the pattern."""

    def __init__(self, name):
        self.name = name


class LibraryFn:
    """A function of a library the examples compare against (FLA), bound by `from M import f`:
    only its result's shapes, as its documentation gives them, so a tensor it returns keeps
    feeding the kernel's call sites. Its values are not followed."""

    def __init__(self, shapes):
        self.shapes = shapes


def _l2norm_fwd(x):
    # fla.modules.l2norm.l2norm_fwd(x) -> (y, rstd): y is x normalised along its last dim (x's
    # shape and dtype), rstd one float32 per row.
    return (TensorShape(x.shape, x.dtype), TensorShape(x.shape[:-1], DType("float32")))


LIBRARY_FNS = {("fla.modules.l2norm", "l2norm_fwd"): _l2norm_fwd}


class Namespace(dict):
    """argparse's parse_args() result: attribute access to the declared defaults."""


class ArgParser:
    def __init__(self):
        self.defaults = Namespace()

    def add_argument(self, call, env, ev):
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        long = [n for n in names if n.startswith("--")] or names
        if not long:
            return
        dest = long[0].lstrip("-").replace("-", "_")
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        if "dest" in kw:
            dest = ev.value(kw["dest"], env)
        action = ev.value(kw["action"], env) if "action" in kw else None
        if "default" in kw:
            value = ev.value(kw["default"], env)
        elif action == "store_true":
            value = False
        elif action == "store_false":
            value = True
        else:
            value = None
        self.defaults[dest] = value


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Div: operator.truediv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_}
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
           ast.Is: operator.is_, ast.IsNot: operator.is_not}
_PURE = {"int": int, "float": float, "bool": bool, "min": min, "max": max, "abs": abs, "len": len, "str": str,
         "tuple": tuple, "list": list, "range": lambda *a: list(range(*a)), "round": round, "sum": sum, "any": any,
         "all": all, "sorted": sorted, "set": set, "enumerate": lambda *a: list(enumerate(*a)), "zip": lambda *a: list(zip(*a))}
# Path arithmetic for `sys.path.append(os.path.join(os.path.dirname(__file__), "../x"))`.
_PATHS = {"os.path.join": os.path.join, "os.path.dirname": os.path.dirname, "os.path.abspath": os.path.abspath,
          "os.path.realpath": os.path.realpath}
_MATH = {"ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt, "log2": math.log2, "prod": math.prod,
         "gcd": math.gcd, "isqrt": math.isqrt}
# The device the examples' own sizes are for: an H100/H200 has 132 SMs. Host code that sizes a
# grid from `torch.cuda.get_device_properties(0).multi_processor_count` or carver's get_num_sms()
# gets this answer, the same one the kernel would get on the GPU the suite runs on.
DEVICE_SMS = 132


def _str_method(name, s, args):
    """`"64, 128".split(",")`, `.strip()`...: str methods on a string the file writes."""
    if name in ("split", "strip", "lower", "upper", "replace", "startswith", "endswith", "join") and \
            all(isinstance(a, (str, list, tuple)) for a in args):
        return getattr(s, name)(*args)
    return UNKNOWN


_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "tuple": tuple, "dict": dict,
          "torch.Tensor": TensorShape, "torch.LongTensor": TensorShape}


class Distribution:
    """A torch.distributions object: what its `sample(shape)` draws has that shape, values unknown."""


def _isinstance(value, node):
    """`isinstance(block_counts, int)` on a value whose kind is known (a host tensor is a torch.Tensor)."""
    names = [dotted(e) for e in node.elts] if isinstance(node, ast.Tuple) else [dotted(node)]
    if not all(n in _TYPES for n in names):
        return UNKNOWN
    if isinstance(value, bool) and "bool" not in names and "int" in names:
        return True
    return isinstance(value, tuple(_TYPES[n] for n in names))


def bind_target(target, value, env):
    """Binds a for / comprehension target (a name or a tuple of names); False when it cannot."""
    if isinstance(target, ast.Name):
        env[target.id] = value
        return True
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (tuple, list)) and len(value) == len(target.elts):
        return all(bind_target(t, v, env) for t, v in zip(target.elts, value))
    return False


def dotted(node):
    """`a.b.c` as a string, or "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


class Evaluator:
    """Evaluates expressions of one module; env is a dict of names to known values."""

    def __init__(self, module, hook=None):
        self.module = module
        # hook(call node, callee name, args, kwargs, env) -> value: the caller's user functions.
        self.hook = hook

    def value(self, node, env):
        try:
            return self._eval(node, env)
        except (ArithmeticError, TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError):
            return UNKNOWN

    def _eval(self, n, env):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            return env.get(n.id, UNKNOWN)
        if isinstance(n, (ast.Tuple, ast.List)):
            items = []
            for e in n.elts:
                if isinstance(e, ast.Starred):  # `(*q.shape, k)`
                    inner = self._eval(e.value, env)
                    if not isinstance(inner, (tuple, list)):
                        return UNKNOWN
                    items += list(inner)
                else:
                    items.append(self._eval(e, env))
            if any(i is UNKNOWN for i in items):
                return UNKNOWN
            return tuple(items) if isinstance(n, ast.Tuple) else items
        if isinstance(n, ast.Dict):
            if any(k is None for k in n.keys):
                return UNKNOWN
            out = {}
            for k, v in zip(n.keys, n.values):
                kv, vv = self._eval(k, env), self._eval(v, env)
                if kv is UNKNOWN:
                    return UNKNOWN
                out[kv] = vv
            return out
        if isinstance(n, ast.BinOp):
            a, b = self._eval(n.left, env), self._eval(n.right, env)
            if a is UNKNOWN or b is UNKNOWN or type(n.op) not in _BINOPS:
                return UNKNOWN
            if isinstance(a, TensorShape) or isinstance(b, TensorShape):
                return elementwise(_BINOPS[type(n.op)], a, b)
            return _BINOPS[type(n.op)](a, b)
        if isinstance(n, ast.UnaryOp):
            a = self._eval(n.operand, env)
            if a is UNKNOWN:
                return UNKNOWN
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}.get(type(n.op), lambda _: UNKNOWN)(a)
        if isinstance(n, ast.BoolOp):
            vals = [self._eval(v, env) for v in n.values]
            if any(v is UNKNOWN for v in vals):
                return UNKNOWN
            out = vals[0]
            for v in vals[1:]:
                out = (out and v) if isinstance(n.op, ast.And) else (out or v)
            return out
        if isinstance(n, ast.Compare):
            left = self._eval(n.left, env)
            for op, right_node in zip(n.ops, n.comparators):
                right = self._eval(right_node, env)
                if left is UNKNOWN or right is UNKNOWN:
                    return UNKNOWN
                if (isinstance(left, TensorShape) or isinstance(right, TensorShape)) and len(n.ops) == 1 and \
                        isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)):
                    return elementwise(_CMPOPS[type(op)], left, right)  # a mask, element by element
                if not _CMPOPS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(n, ast.IfExp):
            t = self._eval(n.test, env)
            if t is UNKNOWN:
                return UNKNOWN
            return self._eval(n.body if t else n.orelse, env)
        if isinstance(n, ast.Subscript):
            base, idx = self._eval(n.value, env), self._eval(n.slice, env)
            if base is UNKNOWN or idx is UNKNOWN:
                return UNKNOWN
            if isinstance(base, TensorShape):
                return subscript(base, idx)
            return base[scalar_of(idx)]
        if isinstance(n, ast.Slice):
            parts = [self._eval(p, env) if p is not None else None for p in (n.lower, n.upper, n.step)]
            return UNKNOWN if UNKNOWN in parts else slice(*(scalar_of(p) for p in parts))
        if isinstance(n, ast.Attribute):
            return self._attribute(n, env)
        if isinstance(n, ast.Call):
            return self._call(n, env)
        if isinstance(n, (ast.ListComp, ast.GeneratorExp)) and len(n.generators) == 1:
            return self._comprehension(n, env)
        return UNKNOWN

    def _torch_function(self, n, fname, leaf, args, kwargs, env):
        """einops' rearrange / repeat, F.pad, torch.gather, `torch.f(t, ...)` as `t.f(...)`, and
        `shape.numel()` on a torch.Size (a tuple here), or NOT_MINE."""
        f = env.get(fname) if isinstance(n.func, ast.Name) else None
        einops = f.name if isinstance(f, EinopsFn) else leaf if fname in ("einops.rearrange", "einops.repeat") else None
        first = args[0] if args else None
        if isinstance(f, LibraryFn):
            return f.shapes(first) if isinstance(first, TensorShape) and first.shape else UNKNOWN
        if einops and isinstance(first, TensorShape) and len(args) >= 2:
            sizes = {k: scalar_of(v) for k, v in kwargs.items()}
            return einops_shape(first, args[1], sizes) if all(isinstance(v, int) for v in sizes.values()) else UNKNOWN
        if fname in ("F.pad", "torch.nn.functional.pad") and isinstance(first, TensorShape) and len(args) >= 2:
            return pad(first, args[1])
        if fname == "torch.gather" and len(args) == 3 and isinstance(args[2], TensorShape) and isinstance(first, TensorShape):
            return TensorShape(args[2].shape, first.dtype, None, first.bounds)  # the index's shape, the input's values
        if fname.startswith("torch.") and fname.count(".") == 1 and isinstance(first, TensorShape) and \
                leaf in ("nonzero", "cumsum", "sum", "flatten", "amax", "amin", "mean", "unsqueeze", "squeeze", "reshape", "exp", "abs",
                         "neg", "relu", "clamp"):
            return method(leaf, first, args[1:], kwargs)
        if fname == "torch.linspace" and len(args) >= 3 and isinstance(args[2], int) and not isinstance(args[2], bool):
            dtype = kwargs.get("dtype") if isinstance(kwargs.get("dtype"), DType) else DType("float32")
            return TensorShape((args[2],), dtype)  # `steps` points; their values are not followed
        if fname == "torch.linspace" and len(args) == 2 and isinstance(kwargs.get("steps"), int):
            dtype = kwargs.get("dtype") if isinstance(kwargs.get("dtype"), DType) else DType("float32")
            return TensorShape((kwargs["steps"],), dtype)
        if fname in ("torch.cat", "torch.concat") and args and isinstance(first, (list, tuple)):
            return concat(list(first), args[1] if len(args) > 1 else kwargs.get("dim", 0))
        if fname.startswith("torch.distributions."):
            return Distribution()
        if isinstance(n.func, ast.Attribute) and n.func.attr in ("sample", "rsample") and isinstance(self.value(n.func.value, env), Distribution):
            shape = args[0] if args else ()  # `dist.sample((M, N))`: random values of that shape
            if isinstance(shape, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
                return TensorShape(tuple(shape), DType("float32"))
            return UNKNOWN
        if isinstance(n.func, ast.Attribute) and n.func.attr == "numel" and not args:
            base = self.value(n.func.value, env)
            if isinstance(base, tuple) and all(isinstance(d, int) for d in base):
                return math.prod(base)
        return NOT_MINE

    def _comprehension(self, n, env):
        """`[f(x) for x in xs if c]` and its generator form (unpacked as a tuple by the caller)."""
        g = n.generators[0]
        it = self._eval(g.iter, env)
        if not isinstance(it, (list, tuple)):
            return UNKNOWN
        out = []
        for x in it:
            inner = dict(env)
            if not bind_target(g.target, x, inner):
                return UNKNOWN
            tests = [self._eval(c, inner) for c in g.ifs]
            if UNKNOWN in tests:
                return UNKNOWN  # which items stay is not known
            if not all(tests):
                continue
            out.append(self.value(n.elt, inner))
        return out

    def _attribute(self, n, env):
        base = self._eval(n.value, env) if not isinstance(n.value, ast.Name) or n.value.id in env else UNKNOWN
        if isinstance(base, Namespace):
            return base.get(n.attr, UNKNOWN)
        if isinstance(base, TensorShape) and n.attr in ("shape", "dtype"):
            return getattr(base, n.attr) or UNKNOWN
        if isinstance(base, TensorShape) and n.attr == "ndim":
            return len(base.shape)
        if isinstance(base, DType) and n.attr == "name":
            return base.name
        if isinstance(base, DType) and n.attr == "as_torch":
            return DTypeMethod(base)
        if n.attr in DType.NAMES and dotted(n.value) in ("T", "tl", "torch", "tilelang.language", "tvm", "tir"):
            return DType(n.attr)
        return UNKNOWN

    def _call(self, n, env):
        fname = dotted(n.func)
        args = []
        for a in n.args:
            v = self._eval(a.value if isinstance(a, ast.Starred) else a, env)
            if not isinstance(a, ast.Starred):
                args.append(v)
            elif isinstance(v, (tuple, list)):
                args += list(v)  # `reshape(-1, *other_shape)`
            else:
                args.append(UNKNOWN)
        kwargs = {}
        for k in n.keywords:
            v = self._eval(k.value, env)
            if k.arg:
                kwargs[k.arg] = v
            elif isinstance(v, dict):
                kwargs.update({kk: vv for kk, vv in v.items() if isinstance(kk, str)})  # `f(**config)`
        leaf = fname.rsplit(".", 1)[-1]
        torch_fn = self._torch_function(n, fname, leaf, args, kwargs, env)
        if torch_fn is not NOT_MINE:
            return torch_fn
        if fname in _PURE and all(a is not UNKNOWN for a in args):
            return _PURE[fname](*[scalar_of(a) for a in args])
        if fname in _PATHS and args and all(isinstance(a, str) for a in args):
            return _PATHS[fname](*args)
        if fname.startswith("math.") and leaf in _MATH and all(a is not UNKNOWN for a in args):
            return _MATH[leaf](*[scalar_of(a) for a in args])
        if fname == "isinstance" and len(n.args) == 2 and args[0] is not UNKNOWN:
            return _isinstance(args[0], n.args[1])
        if fname == "itertools.accumulate" and len(args) == 1 and isinstance(args[0], (list, tuple)):
            return list(itertools.accumulate(scalar_of(a) for a in args[0]))
        if isinstance(n.func, ast.Attribute) and isinstance(self._eval(n.func.value, env), str):
            return _str_method(n.func.attr, self._eval(n.func.value, env), args)
        if fname in ("torch.tensor", "torch.as_tensor") and args and isinstance(args[0], (list, tuple)):
            return literal(args[0], kwargs.get("dtype"))
        if fname == "torch.arange" and args and all(isinstance(a, int) for a in args + [kwargs.get("step", 1)]):
            values = list(range(*(args + [kwargs["step"]] if "step" in kwargs and len(args) == 2 else args)))
            dtype = kwargs.get("dtype") if isinstance(kwargs.get("dtype"), DType) else DType("int64")
            bounds = (min(values), max(values)) if values else None
            return TensorShape((len(values),), dtype, values if len(values) <= 4096 else None, bounds)
        if leaf in ("cdiv", "ceildiv", "ceil_div") and "." in fname and len(args) == 2 and all(isinstance(a, int) for a in args):
            return -(-args[0] // args[1])
        if fname == "getattr" and len(args) >= 2 and isinstance(args[1], str) and args[1] in DType.NAMES:
            return DType(args[1])  # getattr(torch, in_dtype)
        if leaf in ("determine_fp8_type", "determine_torch_fp8_type"):  # tilelang.language.fp8, on CUDA
            fmt = args[0] if args else kwargs.get("fp8_format", "e4m3")
            return DType("float8_e4m3" if fmt == "e4m3" else "float8_e5m2") if fmt in ("e4m3", "e5m2") else UNKNOWN
        if leaf == "next_power_of_2" and len(args) == 1 and isinstance(args[0], int):  # tilelang.math's: 1 << (x - 1).bit_length()
            return 1 << (args[0] - 1).bit_length()
        if leaf == "get_num_sms":
            return DEVICE_SMS
        if leaf == "get_device_properties":
            return Namespace(multi_processor_count=DEVICE_SMS)
        if fname.startswith("torch.") and leaf in TENSOR_MAKERS:
            return make(leaf, args, kwargs)
        if self.hook:
            v = self.hook(n, fname, args, kwargs, env)
            if v is not NOT_MINE:
                return v
        if isinstance(n.func, ast.Attribute) and n.func.attr == "as_torch":
            m = self._eval(n.func, env)
            return m.dtype if isinstance(m, DTypeMethod) else UNKNOWN
        if isinstance(n.func, ast.Attribute) and isinstance(self._eval(n.func.value, env), TensorShape):
            return method(n.func.attr, self._eval(n.func.value, env), args, kwargs)
        if fname.endswith("ArgumentParser"):
            return ArgParser()
        if isinstance(n.func, ast.Attribute) and n.func.attr in ("parse_args", "parse_known_args"):
            p = self._eval(n.func.value, env)
            if isinstance(p, ArgParser):
                ns = Namespace(p.defaults)
                return ns if n.func.attr == "parse_args" else (ns, [])
        if fname in ("T.dtype", "tvm.DataType", "torch.dtype") and args and isinstance(args[0], (str, DType)):
            return DType(args[0]) if isinstance(args[0], str) else args[0]
        return UNKNOWN
