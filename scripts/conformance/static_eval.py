"""Static evaluation of the host code in a TileLang example (standard library only).

The conformance manifest needs each kernel factory's arguments as the example itself passes
them: literal call sites, main() defaults, argparse defaults, wrapper functions, torch tensor
shapes handed to eager factories. Nothing of the example is executed; this walks its AST with
a tiny evaluator for constant Python, and anything it cannot know is `UNKNOWN`, never guessed.
"""
import ast
import math
import operator

UNKNOWN = object()
NOT_MINE = object()  # a hook's answer for calls it does not handle
MAX_DEPTH = 4


class DType:
    """A dtype written as `T.float16`, `torch.float16` or `"float16"`."""

    NAMES = {"float16", "half", "bfloat16", "float32", "float", "float64", "int8", "int16", "int32", "int64", "uint8",
             "uint16", "uint32", "uint64", "bool", "float8_e4m3", "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz",
             "float8_e4m3fnuz", "int4", "uint4", "float4_e2m1fn", "tfloat32", "float8_e8m0fnu"}
    ALIAS = {"half": "float16", "float": "float32", "float8_e4m3fn": "float8_e4m3"}

    def __init__(self, name):
        self.name = self.ALIAS.get(name, name)

    def __eq__(self, other):
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class TensorShape:
    """A torch tensor made at host level (torch.randn(M, K, ...)): its shape and dtype."""

    def __init__(self, shape, dtype=None):
        self.shape = shape
        self.dtype = dtype

    def with_dtype(self, dtype):
        return TensorShape(self.shape, dtype)


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
         "tuple": tuple, "list": list, "range": lambda *a: list(range(*a)), "round": round}
_MATH = {"ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt, "log2": math.log2, "prod": math.prod,
         "gcd": math.gcd, "isqrt": math.isqrt}
_TENSOR_MAKERS = {"randn", "rand", "empty", "zeros", "ones", "randint", "full", "empty_like", "zeros_like", "randn_like"}
_PASSTHROUGH_METHODS = {"cuda", "half", "float", "bfloat16", "to", "contiguous", "clone", "normal_", "uniform_", "fill_",
                        "zero_", "requires_grad_", "detach", "abs", "mul", "mul_", "div", "add", "sub"}


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
            items = [self._eval(e, env) for e in n.elts]
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
                return UNKNOWN
            return base[idx]
        if isinstance(n, ast.Attribute):
            return self._attribute(n, env)
        if isinstance(n, ast.Call):
            return self._call(n, env)
        if isinstance(n, ast.ListComp) and len(n.generators) == 1 and not n.generators[0].ifs:
            g = n.generators[0]
            it = self._eval(g.iter, env)
            if not isinstance(it, (list, tuple)) or not isinstance(g.target, ast.Name):
                return UNKNOWN
            return [self._eval(n.elt, {**env, g.target.id: x}) for x in it]
        return UNKNOWN

    def _attribute(self, n, env):
        base = self._eval(n.value, env) if not isinstance(n.value, ast.Name) or n.value.id in env else UNKNOWN
        if isinstance(base, Namespace):
            return base.get(n.attr, UNKNOWN)
        if isinstance(base, TensorShape) and n.attr in ("shape", "dtype"):
            return getattr(base, n.attr) or UNKNOWN
        if isinstance(base, DType) and n.attr == "name":
            return base.name
        if n.attr in DType.NAMES and dotted(n.value) in ("T", "tl", "torch", "tilelang.language", "tvm", "tir"):
            return DType(n.attr)
        return UNKNOWN

    def _call(self, n, env):
        fname = dotted(n.func)
        args = [self._eval(a, env) for a in n.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: self._eval(k.value, env) for k in n.keywords if k.arg}
        leaf = fname.rsplit(".", 1)[-1]
        if fname in _PURE and all(a is not UNKNOWN for a in args):
            return _PURE[fname](*args)
        if fname.startswith("math.") and leaf in _MATH and all(a is not UNKNOWN for a in args):
            return _MATH[leaf](*args)
        if fname.startswith("torch.") and leaf in _TENSOR_MAKERS:
            return self._tensor(leaf, n, args, kwargs)
        if self.hook:
            v = self.hook(n, fname, args, kwargs, env)
            if v is not NOT_MINE:
                return v
        if isinstance(n.func, ast.Attribute) and isinstance(self._eval(n.func.value, env), TensorShape):
            return self._tensor_method(n.func.attr, self._eval(n.func.value, env), args, kwargs)
        if fname.endswith("ArgumentParser"):
            return ArgParser()
        if isinstance(n.func, ast.Attribute) and n.func.attr in ("parse_args", "parse_known_args"):
            p = self._eval(n.func.value, env)
            if isinstance(p, ArgParser):
                ns = Namespace(p.defaults)
                return ns if n.func.attr == "parse_args" else (ns, [])
        if fname in ("T.dtype", "tvm.DataType", "torch.dtype") and args and isinstance(args[0], str):
            return DType(args[0])
        return UNKNOWN

    @staticmethod
    def _tensor_method(name, t, args, kwargs):
        casts = {"half": "float16", "float": "float32", "bfloat16": "bfloat16"}
        if name in casts:
            return t.with_dtype(DType(casts[name]))
        if name == "to":
            d = kwargs.get("dtype", args[0] if args else None)
            return t.with_dtype(d) if isinstance(d, DType) else t
        if name == "size":
            return t.shape[args[0]] if args and isinstance(args[0], int) else t.shape
        if name == "dim":
            return len(t.shape)
        return t if name in _PASSTHROUGH_METHODS else UNKNOWN

    def _tensor(self, leaf, n, args, kwargs):
        if leaf.endswith("_like"):
            return args[0] if args and isinstance(args[0], TensorShape) else UNKNOWN
        if any(a is UNKNOWN for a in args):
            return UNKNOWN
        dims = args
        if leaf == "randint":
            dims = [kwargs.get("size", args[-1] if args else UNKNOWN)]
        elif leaf == "full":
            dims = args[:1]
        if "size" in kwargs and leaf != "randint":
            dims = [kwargs["size"]]
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = list(dims[0])
        if not dims or any(not isinstance(d, int) for d in dims):
            return UNKNOWN
        dtype = kwargs.get("dtype")
        return TensorShape(tuple(dims), dtype if isinstance(dtype, DType) else DType("float32"))
