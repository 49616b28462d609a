"""Finds the kernel factories of a TileLang example and the arguments its own host code passes.

A factory is found the way tilec finds one (core/eval/factory_scan.cpp): a top-level function
decorated with tilelang.jit / autotune / T.prim_func, or one that returns an inner
@T.prim_func. Call sites are gathered by walking the module as Python would run it from
`if __name__ == "__main__":` (argparse defaults, main(), wrappers it calls), then every other
top-level function with its own defaults, so the first site found is the one the file runs.
"""
import ast
import os

from host_tensors import store
from kernel_results import EagerKernelRef, KernelRef, bind_dims, call_result, shape_env
from local_modules import bind_imports
from static_eval import MAX_DEPTH, MAX_ITERATIONS, NOT_MINE, UNKNOWN, ArgParser, EinopsFn, Evaluator, LIBRARY_FNS, LibraryFn, Namespace, TensorShape, bind_target, dotted


# `factory.compile(M=...)` and `factory.get_kernel_source(M=...)` name a factory's arguments (and
# an eager kernel's T.const symbols) as a call does.
_BOUND_CALLS = ("compile", "get_kernel_source", "get_tir")


def decorator_name(d):
    return dotted(d.func if isinstance(d, ast.Call) else d)


def _is_jit(n):
    return n == "jit" or n.endswith(".jit") or n.endswith("lazy_jit")


def _is_autotune(n):
    return n == "autotune" or n.endswith(".autotune")


def _is_prim(n):
    return n == "prim_func" or n.endswith(".prim_func")  # not simplify_prim_func, which wraps a factory


class Factory:
    """One kernel factory: its parameters, defaults, eager tensor parameters and T.const symbols."""

    def __init__(self, fn):
        decos = [decorator_name(d) for d in fn.decorator_list]
        self.node = fn
        self.name = fn.name
        self.autotune = any(_is_autotune(d) for d in decos)
        self.prim_only = any(_is_prim(d) for d in decos)
        self.params, self.default_nodes = [], {}
        self.tensor_dims = self._eager_tensors(fn)
        # `batch_count = len(batch_sizes_list)`: the factory's own simple assignments, replayed when
        # a tensor's shape is read so a shape written with them can bind its symbols.
        self.locals = [(s.targets[0].id, s.value) for s in fn.body
                       if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)]
        self.symbols, self.symbol_vars = self._const_symbols(fn)
        if self.prim_only:
            return  # a module-level @T.prim_func: tensors only, nothing to bind
        a = fn.args
        positional = a.posonlyargs + a.args
        first_default = len(positional) - len(a.defaults)
        for i, arg in enumerate(positional):
            self.params.append(arg.arg)
            if i >= first_default:
                self.default_nodes[arg.arg] = a.defaults[i - first_default]
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            self.params.append(arg.arg)
            if d is not None:
                self.default_nodes[arg.arg] = d

    def defaults(self, ev, module_env):
        """Default values, read in the module's globals once its top level has run."""
        return {k: ev.value(d, module_env) for k, d in self.default_nodes.items()}

    @staticmethod
    def _eager_tensors(fn):
        """`A: T.Tensor((M, K), dtype)` (or `T.Tensor[(M, K), dtype]`) declarations: name -> dim nodes."""
        out, assigned = {}, {}
        for s in fn.body:
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                assigned[s.targets[0].id] = s.value  # `q_shape = [batch, seq_len, heads, dim]`
            if not (isinstance(s, ast.AnnAssign) and s.value is None and isinstance(s.target, ast.Name)):
                continue
            ann = s.annotation
            if isinstance(ann, ast.Call) and ann.args:
                shape = ann.args[0]
            elif isinstance(ann, ast.Subscript):
                sl = ann.slice
                shape = sl.elts[0] if isinstance(sl, ast.Tuple) and sl.elts else sl
            else:
                continue
            if not dotted(ann.func if isinstance(ann, ast.Call) else ann.value).endswith(("Tensor", "Buffer")):
                continue
            if isinstance(shape, ast.Name) and shape.id in assigned:
                shape = assigned[shape.id]
            out[s.target.id] = shape  # evaluated at bind time: `(M, K) if not trans_A else (K, M)`
        return out

    @staticmethod
    def _const_symbols(fn):
        """T.const / T.dynamic symbols: their names, and the Python variable each is bound to
        (`M = T.dynamic("m")` names the symbol `m`; `M, N = T.const("M, N")` both `M`, `N`)."""
        out, variables = [], {}
        for s in fn.body:
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and s.value.args:
                name = dotted(s.value.func)
                text = s.value.args[0]
                if name.endswith((".const", ".dynamic", ".symbolic")) and isinstance(text, ast.Constant) and isinstance(text.value, str):
                    names = text.value.replace(",", " ").split()
                    out += [t for t in names if t not in out]
                    target = s.targets[0]
                    targets = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                    if len(targets) == len(names):
                        variables.update({t.id: n for t, n in zip(targets, names) if isinstance(t, ast.Name)})
        return out, variables

    def bind(self, call, ev, env):
        """Parameter values of one call site (positional, keywords, **dict, tensor shapes)."""
        bound, tensors = {}, []
        positional = [p for p in self.params]
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred) or i >= len(positional):
                break
            v = ev.value(a, env)
            if isinstance(v, TensorShape) and positional[i] in self.tensor_dims:
                tensors.append((positional[i], v))
            elif v is not UNKNOWN:
                bound[positional[i]] = v
        for k in call.keywords:
            v = ev.value(k.value, env)
            if k.arg is None:
                if isinstance(v, dict):
                    bound.update({kk: vv for kk, vv in v.items() if kk in self.params or kk in self.symbols})
            elif isinstance(v, TensorShape) and k.arg in self.tensor_dims:
                tensors.append((k.arg, v))
            elif v is not UNKNOWN and (k.arg in self.params or k.arg in self.symbols):
                bound[k.arg] = v
        for name, shape in tensors:  # after the scalars: a shape may depend on them (trans_A)
            self._bind_shape(name, shape, bound, ev)
        return bound

    def _bind_shape(self, tensor, shape, bound, ev):
        env, symbols = shape_env(self, bound, ev)
        bind_dims(self.tensor_dims[tensor], shape, env, symbols, ev, bound)


def find_factories(module):
    out = []
    for s in module.body:
        if not isinstance(s, ast.FunctionDef):
            continue
        decos = [decorator_name(d) for d in s.decorator_list]
        inner = any(isinstance(b, ast.FunctionDef) and any(_is_prim(decorator_name(d)) for d in b.decorator_list) for b in s.body)
        if any(d.startswith("triton.") for d in decos):
            continue  # Triton baselines some examples time against: not TileLang kernels
        if inner or any(_is_jit(d) or _is_autotune(d) or _is_prim(d) for d in decos):
            out.append(Factory(s))
    return out


def _same(a, b):
    try:
        return a is b or (type(a) is type(b) and not isinstance(a, TensorShape) and bool(a == b))
    except Exception:  # noqa: BLE001 -- a value whose == is not a plain bool (a list holding UNKNOWN)
        return False


def _assigned_names(node):
    """What a statement changes: the names it binds (assignment, loop and `with` targets) and the
    (name, attribute or None) of what it changes in place (`x[i] = ...`, `x.a = ...`,
    `x.append(...)`, `x.fill_(0)`)."""
    bound, changed = set(), set()
    for n in ast.walk(node):
        targets = []
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.NamedExpr)):
            targets = [n.target]
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            targets = [n.optional_vars]
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
            changed.add((n.func.value.id, None))  # `efficiency.append(eff)`, `x.fill_(0)`
        for t in targets:
            for e in ast.walk(t) if isinstance(t, (ast.Tuple, ast.List)) else [t]:
                if isinstance(e, ast.Name):
                    bound.add(e.id)
                elif isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name):
                    changed.add((e.value.id, e.attr))
                elif isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name):
                    changed.add((e.value.id, None))
    return bound, changed


def _merged(a, b):
    """A name after an `if` either arm may have run: its value when both arms agree; a tensor of
    the same shape in both keeps that shape (and what else both say of it); else UNKNOWN."""
    if _same(a, b):
        return a
    if isinstance(a, TensorShape) and isinstance(b, TensorShape) and a.shape == b.shape:
        same = lambda x, y: x if x == y else None  # noqa: E731
        return TensorShape(a.shape, same(a.dtype, b.dtype), same(a.data, b.data), same(a.bounds, b.bounds))
    return UNKNOWN


class Ctx(Namespace):
    """The ctx of a torch.autograd.Function: what forward saves, backward reads."""


class Closure:
    """A function defined inside a walked function, with the scope it closes over."""

    def __init__(self, fn, env):
        self.fn, self.env = fn, env


class Instance(Namespace):
    """An object of a class the file defines (`self.batch = batch` in __init__); its attributes
    are the namespace's items, its methods the class's functions."""

    def __init__(self, methods):
        super().__init__()
        self.methods = methods


class ApplyRef:
    """`attention = _attention.apply`: calling it runs the autograd Function's forward and backward
    (methods), in the globals of the module that defines it (env; a sibling's for its own)."""

    def __init__(self, methods, env):
        self.methods, self.env = methods, env


class Walker:
    """Runs the module's host code symbolically and records (factory, bound args, line) per call."""

    def __init__(self, module, factories, explore=False, directory=None, nesting=0, cache=None, search=None, filename=None):
        # explore: walk both arms of every `if`, for kernels only a flag the file leaves off reaches
        # (use_atomic=False paths); their sizes are still the file's own. directory: where sibling
        # modules the file imports from are read (local_modules.py).
        self.explore = explore
        self.directory, self.nesting = directory, nesting
        # sys.path as the file leaves it (`sys.path.append(os.path.join(os.path.dirname(__file__),
        # "../flash_attention"))`), shared with the modules it imports, as Python's is.
        self.search = search if search is not None else ([directory] if directory else [])
        self.filename = filename or (os.path.join(directory, "__main__.py") if directory else None)
        self.module_cache = {} if cache is None else cache
        self.ev = Evaluator(module, self.hook)
        self.factories = {f.name: f for f in factories}
        self.functions = {s.name: s for s in module.body if isinstance(s, ast.FunctionDef) and s.name not in self.factories}
        self.autograd = {s.name: {m.name: m for m in s.body if isinstance(m, ast.FunctionDef)}
                         for s in module.body if isinstance(s, ast.ClassDef)}
        self.sites = []  # (factory name, bound dict, line, origin)
        self.site_calls = []  # id of each site's call node, parallel to sites
        self.walked = set()
        self.depth, self.origin = 0, "__main__"
        self.approximating = 0  # inside a loop run once for its calls (_approximate)

    def run(self, module):
        env = {"__name__": "__main__", "__file__": self.filename or UNKNOWN}
        self.globals = env
        self.block(module.body, env)
        for name, fn in self.functions.items():
            if name not in self.walked:
                self.origin = name
                self.call_function(fn, [], {})
        return env

    def run_as_import(self, module, name):
        """The module's globals after `import name`: its top level without the __main__ block, its
        functions as closures, its factories and classes opaque."""
        env = {"__name__": name, "__file__": self.filename or UNKNOWN}
        self.globals = env
        self.block(module.body, env)
        for s in module.body:
            if isinstance(s, ast.FunctionDef):
                env[s.name] = UNKNOWN if s.name in self.factories else Closure(s, env)
            elif isinstance(s, ast.ClassDef):
                env[s.name] = UNKNOWN
        return env

    def instantiate(self, methods, args, kwargs):
        """An object of a class the file defines: its __init__ run on it, its methods callable."""
        inst = Instance(methods)
        if "__init__" in methods:
            self.call_function(methods["__init__"], [inst] + args, kwargs)
        return inst

    def _sibling_walker(self, module, nesting, path):
        return Walker(module, find_factories(module), directory=os.path.dirname(path), nesting=nesting, cache=self.module_cache,
                      search=self.search, filename=path)

    def hook(self, call, fname, args, kwargs, env):
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr in _BOUND_CALLS and isinstance(f.value, ast.Name):
            f = f.value
        if isinstance(f, ast.Name) and f.id in self.factories and f.id not in env:
            fac = self.factories[f.id]
            bound = self.record(call, fac, env)
            if f is call.func:
                return call_result(fac, bound, self.ev)
            if call.func.attr == "compile" and fac.tensor_dims:  # an eager factory's kernel, called with its tensors
                return EagerKernelRef(fac, bound, self.ev)
            return UNKNOWN  # another bound call (`.get_tir(...)`): its result not followed
        if isinstance(f, ast.Name) and isinstance(env.get(f.id), KernelRef):
            return env[f.id].call(args)  # `kernel(q, k, v, o)`: binds the kernel's dynamic sizes
        if isinstance(f, ast.Call):  # `factory(...)(q, k, v, o)`: the kernel made and called at once
            kernel = self.ev.value(f, env)
            return kernel.call(args) if isinstance(kernel, KernelRef) else NOT_MINE
        if self.depth >= MAX_DEPTH:
            return NOT_MINE
        if isinstance(f, ast.Name) and f.id in self.functions and f.id not in env:
            return self.call_function(self.functions[f.id], args, kwargs)
        bound = env.get(f.id) if isinstance(f, ast.Name) else None
        if isinstance(bound, Closure):
            return self.call_function(bound.fn, args, kwargs, bound.env)
        if isinstance(f, ast.Name) and f.id in self.autograd and f.id not in env:
            return self.instantiate(self.autograd[f.id], args, kwargs)  # `SparseFlashAttn(batch, heads, ...)`
        if isinstance(bound, Instance):  # a torch.nn.Module called runs its forward
            method = bound.methods.get("forward") or bound.methods.get("__call__")
            return self.call_function(method, [bound] + args, kwargs) if method else NOT_MINE
        base = self.ev.value(f.value, env) if isinstance(f, ast.Attribute) else None
        if isinstance(base, Instance) and f.attr in base.methods:
            return self.call_function(base.methods[f.attr], [base] + args, kwargs)
        parts = fname.split(".")
        methods, scope = (bound.methods, bound.env) if isinstance(bound, ApplyRef) else (None, None)
        if methods is None and len(parts) == 2 and parts[1] == "apply":
            methods = self.autograd.get(parts[0])
        if methods and "forward" in methods:
            ctx = Ctx()
            out = self.call_function(methods["forward"], [ctx] + args, kwargs, scope)
            if "backward" in methods:
                # torch calls backward with one gradient per output of forward, each of its shape.
                grads = list(out) if isinstance(out, tuple) else [out]
                self.call_function(methods["backward"], [ctx] + [g if isinstance(g, TensorShape) else UNKNOWN for g in grads], {},
                                   scope)
            return out
        return NOT_MINE

    def record(self, call, fac, env):
        bound = fac.bind(call, self.ev, env)
        self.sites.append((fac.name, bound, call.lineno, self.origin))
        self.site_calls.append(id(call))
        return bound

    def block(self, stmts, env):
        for s in stmts:
            if "__return__" in env:
                return
            self.stmt(s, env)

    def stmt(self, s, env):
        ev, mark = self.ev, len(self.sites)
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and s.value is not None:
            if isinstance(s, ast.AugAssign):
                v = ev.value(ast.BinOp(left=ast.Name(id=getattr(s.target, "id", ""), ctx=ast.Load()), op=s.op, right=s.value), env)
                targets = [s.target]
            else:
                v = self.value(s.value, env)
                if isinstance(s.value, ast.Attribute) and s.value.attr == "apply" and dotted(s.value.value) in self.autograd:
                    v = ApplyRef(self.autograd[dotted(s.value.value)], self.globals)
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            self.scan(s.value, env, mark)
            for t in targets:
                self.assign(t, v, env)
        elif isinstance(s, (ast.Expr, ast.Return)) and s.value is not None:
            call = s.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
                base = env.get(dotted(call.func.value))
                if call.func.attr == "add_argument" and isinstance(base, ArgParser):
                    return base.add_argument(call, env, ev)
                if dotted(call.func.value) == "sys.path" and call.func.attr in ("append", "insert") and call.args:
                    where = ev.value(call.args[-1], env)
                    if isinstance(where, str) and self.directory:
                        where = os.path.normpath(os.path.join(self.directory, where))
                        self.search.append(where) if call.func.attr == "append" else self.search.insert(0, where)
                    return
                if call.func.attr == "save_for_backward" and isinstance(base, Ctx):
                    base["saved_tensors"] = tuple(ev.value(a, env) for a in call.args)
                    return
                if call.func.attr in ("append", "extend") and isinstance(base, list) and len(call.args) == 1:
                    v = ev.value(call.args[0], env)
                    if v is UNKNOWN or (call.func.attr == "extend" and not isinstance(v, (list, tuple))):
                        env[dotted(call.func.value)] = UNKNOWN  # its contents are no longer known
                    else:
                        base.append(v) if call.func.attr == "append" else base.extend(v)
                    return
            v = self.value(s.value, env)
            self.scan(s.value, env, mark)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr.endswith("_"):
                self.written(call.func.value, env)  # an in-place method: `cu.fill_(0)`, `x.copy_(y)`
            if isinstance(s, ast.Return):
                env["__return__"] = UNKNOWN if self.approximating else v
        elif isinstance(s, ast.If):
            t = ev.value(s.test, env)
            if t is UNKNOWN or (self.explore and self.depth > 0):
                self._both_arms(s, env, t)
            else:
                self.block(s.body if t else s.orelse, env)
        elif isinstance(s, ast.For):
            it = ev.value(s.iter, env)
            it = list(it.items()) if isinstance(it, dict) else it
            if isinstance(it, (list, tuple)) and not it:
                self.block(s.orelse, env)  # an empty loop runs only its else
            elif isinstance(it, (list, tuple)) and len(it) <= MAX_ITERATIONS and not self._breaks(s):
                for x in it:  # as Python runs it, so lists built in the loop are right after it
                    self.assign(s.target, x, env)
                    self.block(s.body, env)
                    if "__return__" in env:
                        break
            else:
                self.assign(s.target, it[0] if isinstance(it, (list, tuple)) and it else UNKNOWN, env)
                self._approximate(s, env)
        elif isinstance(s, ast.While):
            self._approximate(s, env)
        elif isinstance(s, ast.With):
            self.block(s.body, env)
        elif isinstance(s, ast.Try):
            self.block(s.body, env)
        elif isinstance(s, ast.FunctionDef) and self.depth > 0:
            env[s.name] = Closure(s, env)
        elif isinstance(s, ast.ImportFrom) and s.module == "einops":
            env.update({a.asname or a.name: EinopsFn(a.name) for a in s.names if a.name in ("rearrange", "repeat")})
        elif isinstance(s, ast.ImportFrom):
            bind_imports(s, env, self.search, self._sibling_walker, self.module_cache, self.nesting)
            env.update({a.asname or a.name: LibraryFn(LIBRARY_FNS[(s.module, a.name)]) for a in s.names if (s.module, a.name) in LIBRARY_FNS})

    def value(self, node, env):
        """ev.value, except that a tuple with some unknown items keeps the known ones, as the
        targets of `q_unpad, ..., output_pad_fn = generate_qkv(...)` each get their own."""
        v = self.ev.value(node, env)
        if v is UNKNOWN and isinstance(node, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return tuple(self.ev.value(e, env) for e in node.elts)
        return v

    def _both_arms(self, s, env, test):
        """Both arms of an `if` run, for the calls in each (an unknown test, or the explorer looking
        behind flags). After it, names have the values of the arm the test takes; when the test is
        unknown, a name the arms leave with different values is unknown, as either arm may have run."""
        before = dict(env)
        self.block(s.body, env)
        after_body = dict(env)
        env.clear()
        env.update(before)
        self.block(s.orelse, env)
        if test is UNKNOWN:  # the else arm's return, if any, as before
            for k in set(after_body) | set(env):
                if k != "__return__":
                    env[k] = _merged(after_body.get(k, UNKNOWN), env.get(k, UNKNOWN))
        elif test:
            env.clear()
            env.update(after_body)

    def _approximate(self, loop, env):
        """A loop not run as Python runs it (longer than MAX_ITERATIONS, over unknown items, with
        break/continue, a while): its body runs once, for the calls in it, and then every name it
        assigns or grows is unknown, as is anything it returns; never the first pass's values."""
        self.approximating += 1
        try:
            self.block(loop.body, env)
        finally:
            self.approximating -= 1
        if any(isinstance(n, ast.Return) for n in ast.walk(loop)):
            env["__return__"] = UNKNOWN  # a later pass may have returned
        bound, changed = _assigned_names(loop)
        for name in bound:
            env[name] = UNKNOWN
        for name, attr in changed:
            v = env.get(name)
            if isinstance(v, TensorShape):
                self.written(ast.Name(id=name), env)  # a store or in-place op keeps the shape
            elif attr is not None and isinstance(v, Namespace):
                v[attr] = UNKNOWN
            elif v is not None and attr is None:
                env[name] = UNKNOWN

    @staticmethod
    def _breaks(loop):
        """A loop with break/continue runs once here: its exits depend on values we may not know."""
        return any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(loop))

    def assign(self, target, value, env):
        if isinstance(target, ast.Subscript):
            base = env.get(target.value.id) if isinstance(target.value, ast.Name) else None
            stored = store(base, self.ev.value(target.slice, env), value) if isinstance(base, TensorShape) else None
            if stored is not None:
                env[target.value.id] = stored  # `cu[1:] = torch.cumsum(lengths, 0)` with known values
            else:
                self.written(target.value, env)
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Attribute) and isinstance(env.get(dotted(target.value)), Namespace):
            env[dotted(target.value)][target.attr] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            vals = value if isinstance(value, (tuple, list)) and len(value) == len(target.elts) else [UNKNOWN] * len(target.elts)
            for t, v in zip(target.elts, vals):
                self.assign(t, v, env)

    @staticmethod
    def written(node, env):
        """`x[1:] = ...` or `x.fill_(v)` changed a tensor in place: its values (what the file wrote,
        the bounds it had) are no longer known; its shape stays."""
        t = env.get(node.id) if isinstance(node, ast.Name) else None
        if isinstance(t, TensorShape):
            env[node.id] = TensorShape(t.shape, t.dtype)

    def scan(self, node, env, mark):
        """Factory calls in node the evaluator did not reach (lambdas, f-strings, short-circuits)."""
        reached = set(self.site_calls[mark:])
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and id(n) not in reached:
                f = n.func
                if isinstance(f, ast.Attribute) and f.attr in _BOUND_CALLS and isinstance(f.value, ast.Name):
                    f = f.value
                if isinstance(f, ast.Name) and f.id in self.factories and f.id not in env:
                    self.record(n, self.factories[f.id], env)

    def call_function(self, fn, args, kwargs, closure=None):
        self.walked.add(fn.name)
        env = dict(self.globals)  # a function sees the module's globals as they are when it is called
        env.update(closure or {})
        env.pop("__return__", None)
        a = fn.args
        positional = a.posonlyargs + a.args
        first_default = len(positional) - len(a.defaults)
        for i, p in enumerate(positional):
            if i < len(args):
                env[p.arg] = args[i]
            elif p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            elif i >= first_default:
                env[p.arg] = self.ev.value(a.defaults[i - first_default], env)
            else:
                env[p.arg] = UNKNOWN
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            env[p.arg] = kwargs.get(p.arg, self.ev.value(d, env) if d is not None else UNKNOWN)
        self.depth += 1
        approximating, self.approximating = self.approximating, 0  # a call's own returns are its own
        try:
            self.block(fn.body, env)
        finally:
            self.depth -= 1
            self.approximating = approximating
        return env.get("__return__", UNKNOWN)
