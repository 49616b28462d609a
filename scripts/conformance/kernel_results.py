"""What a kernel factory's call gives the host code that walks on (call_sites.Walker), so the
sizes of later kernels follow from earlier ones the way they do when the example runs:

- an eager factory (`dQ = T.empty(q_shape, dtype)` ... `return dQ, dKV`) returns tensors of the
  shapes it declares, evaluated with the arguments of that call;
- a factory that returns a @T.prim_func returns a kernel; calling it with host tensors binds the
  T.dynamic / T.const symbols of its tensor parameters' shapes (`total_tokens` in
  `Q: T.Tensor([total_tokens, heads, dim], dtype)`) from those tensors, into the arguments
  recorded for the factory's call, and returns the tensors its `out_idx` parameters declare.
Only what the file declares is used; a shape that does not evaluate stays UNKNOWN.
"""
import ast

from host_tensors import UNKNOWN, DType, TensorShape
from static_eval import dotted


class Symbol:
    """A T.const / T.dynamic symbol inside a tensor's shape, bound from the host tensor's shape."""

    def __init__(self, name):
        self.name = name


def tensor_annotation(ann):
    """The shape node of `T.Tensor(shape, dtype)` / `T.Tensor[shape, dtype]` / `T.Buffer(...)`, else None."""
    if isinstance(ann, ast.Call) and ann.args:
        shape, base = ann.args[0], ann.func
    elif isinstance(ann, ast.Subscript):
        sl = ann.slice
        shape, base = (sl.elts[0] if isinstance(sl, ast.Tuple) and sl.elts else sl), ann.value
    else:
        return None
    return shape if dotted(base).endswith(("Tensor", "Buffer")) else None


def shape_env(fac, bound, ev):
    """The factory's scope for evaluating a shape: the call's arguments, its symbols, and its own
    simple assignments (`shape = [total_tokens, heads, dim]`) replayed in order."""
    symbols = {s: Symbol(s) for s in fac.symbols}
    symbols.update({var: Symbol(sym) for var, sym in fac.symbol_vars.items()})
    env = {**bound, **symbols}
    env.update({var: bound[sym.name] for var, sym in symbols.items() if sym.name in bound})  # already bound: a number
    for name, value in fac.locals:
        if name not in symbols:
            v = ev.value(value, env)
            if v is not UNKNOWN:
                env[name] = v
    return env, symbols


def bind_dims(node, shape, env, symbols, ev, bound):
    """Binds the symbols of one declared shape from a host tensor's shape, into bound."""
    dims = ev.value(node, env)
    if dims is UNKNOWN and isinstance(node, (ast.Tuple, ast.List)):
        dims = [symbols.get(e.id) if isinstance(e, ast.Name) else None for e in node.elts]
    if not isinstance(dims, (tuple, list)) or len(dims) != len(shape.shape):
        return
    for d, n in zip(dims, shape.shape):
        if isinstance(d, Symbol) and isinstance(n, int):
            bound.setdefault(d.name, n)


def _inner_prim_func(fac):
    for s in fac.node.body:
        if isinstance(s, ast.FunctionDef) and any(dotted(d.func if isinstance(d, ast.Call) else d).endswith("prim_func")
                                                  for d in s.decorator_list):
            return s
    return None


def _declared(fac, name):
    """The `(shape node, dtype node)` of `name = T.empty(shape, dtype)` in the factory's body."""
    for target, value in fac.locals:
        if target == name and isinstance(value, ast.Call) and dotted(value.func).endswith(".empty") and value.args:
            return value.args[0], (value.args[1] if len(value.args) > 1 else None)
    return None


def _result_node(fac):
    """The value of the factory's last top-level `return`, or None."""
    returns = [s for s in fac.node.body if isinstance(s, ast.Return) and s.value is not None]
    return returns[-1].value if returns else None


class KernelRef:
    """The kernel a factory call returned; calling it binds symbols into that call's arguments."""

    def __init__(self, fac, bound, ev):
        self.fac, self.bound, self.ev = fac, bound, ev

    def call(self, args):
        prim = _inner_prim_func(self.fac)
        if prim is None:
            return UNKNOWN
        params = prim.args.posonlyargs + prim.args.args
        env, symbols = shape_env(self.fac, self.bound, self.ev)
        for p, a in zip(params, args):
            node = tensor_annotation(p.annotation) if p.annotation is not None else None
            if node is not None and isinstance(a, TensorShape):
                bind_dims(node, a, env, symbols, self.ev, self.bound)
        return self._outputs(params, args)

    def _outputs(self, params, args):
        """The tensors `@tilelang.jit(out_idx=...)` makes the call return: the parameters at those
        positions, with the shapes and dtypes they declare (UNKNOWN where one does not evaluate).
        Only when the call passes exactly the other parameters, as TileLang requires."""
        out_idx = _out_idx(self.fac)
        if out_idx is None:
            return UNKNOWN
        picked = [i % len(params) for i in out_idx if -len(params) <= i < len(params)]
        if len(picked) != len(out_idx) or len(args) != len(params) - len(set(picked)):
            return UNKNOWN
        env, _ = shape_env(self.fac, self.bound, self.ev)
        outs = []
        for i in picked:
            ann = params[i].annotation
            node = tensor_annotation(ann) if ann is not None else None
            dims = self.ev.value(node, env) if node is not None else UNKNOWN
            dtype_node = ann.args[1] if isinstance(ann, ast.Call) and len(ann.args) > 1 else None
            dtype = self.ev.value(dtype_node, env) if dtype_node is not None else None
            ok = isinstance(dims, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in dims)
            outs.append(TensorShape(tuple(dims), dtype if isinstance(dtype, DType) else None) if ok else UNKNOWN)
        return outs[0] if len(outs) == 1 else tuple(outs)


class EagerKernelRef(KernelRef):
    """`factory.compile(n=...)` of an eager factory (its tensors are parameters): the kernel, whose
    call with tensors binds their shapes' symbols into the compile call's arguments, as calling
    the factory with them would, and returns the tensors it declares with T.empty."""

    def call(self, args):
        for name, a in zip(self.fac.params, args):
            if isinstance(a, TensorShape) and name in self.fac.tensor_dims:
                self.fac._bind_shape(name, a, self.bound, self.ev)
        return call_result(self.fac, self.bound, self.ev)


def _out_idx(fac):
    """`@tilelang.jit(out_idx=[-1])` / `out_idx=-1`: the output positions as a list, else None."""
    for d in fac.node.decorator_list:
        if isinstance(d, ast.Call) and dotted(d.func).endswith("jit"):
            for k in d.keywords:
                if k.arg == "out_idx":
                    v = k.value
                    items = v.elts if isinstance(v, (ast.List, ast.Tuple)) else [v]
                    vals = [e.value if isinstance(e, ast.Constant) else (-e.operand.value if isinstance(e, ast.UnaryOp) and
                            isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) else None) for e in items]
                    return vals if all(isinstance(x, int) for x in vals) else None
    return None


def call_result(fac, bound, ev):
    """What the host code gets back from calling fac with these arguments."""
    node = _result_node(fac)
    if node is None:
        return UNKNOWN
    if isinstance(node, ast.Name) and _inner_prim_func(fac) is not None and node.id == _inner_prim_func(fac).name:
        return KernelRef(fac, bound, ev)
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    env, _ = shape_env(fac, bound, ev)
    outs = []
    for n in names:
        decl = _declared(fac, n.id) if isinstance(n, ast.Name) else None
        if decl is None:
            return UNKNOWN
        dims = ev.value(decl[0], env)
        dtype = ev.value(decl[1], env) if decl[1] is not None else None
        if not isinstance(dims, (tuple, list)) or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
            outs.append(UNKNOWN)
            continue
        outs.append(TensorShape(tuple(dims), dtype if isinstance(dtype, DType) else None))
    return tuple(outs) if isinstance(node, ast.Tuple) else outs[0]
