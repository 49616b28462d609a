"""Which T.const symbol each dimension of an eager-style kernel's tensor is, read from the
factory's source (parsed, never run): `M, N = T.const("M, N")` then `logits: T.Tensor([M, N],
dtype)` gives {"logits": ["M", "N"]}. Knowing them before compiling lets a call on tensors
compile once, for their shapes; a kernel that sizes a fragment by a symbol (T.alloc_fragment(
[blk_m, N])) cannot be compiled without its value at all."""

import ast
import inspect
import textwrap


def _parsed_def(func):
    """The factory's `def` parsed from its source, or None where the source cannot be read."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return None
    return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def tensor_symbols(func):
    """({tensor parameter: [symbol or None per dimension]}, {every T.const symbol}), or None
    where the source cannot be read or names no T.const symbols."""
    fn = _parsed_def(func)
    if fn is None:
        return None
    consts = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and _is_t_const(node.value):
            target = node.targets[0]
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            consts.update(e.id for e in elts if isinstance(e, ast.Name))
    if not consts:
        return None
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    shapes = _shape_variables(fn)
    dims = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in params:
            shape = _tensor_shape(node.annotation, consts, shapes)
            if shape is not None:
                dims[node.target.id] = [e.id if isinstance(e, ast.Name) and e.id in consts else None for e in shape]
    return dims, consts


def _shape_variables(fn):
    """{name: its elements} for the factory's top-level `name = [a, b]` / `name = (a, b)`
    (`q_shape = [seq_len * heads, dim]`), so `T.Tensor(q_shape, dtype)` reads as the list; a
    name bound anywhere else too is left out (its value would depend on the path)."""
    bindings = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bindings[node.id] = bindings.get(node.id, 0) + 1
    shapes = {}
    for node in fn.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, (ast.Tuple, ast.List)) and bindings.get(node.targets[0].id) == 1:
            shapes[node.targets[0].id] = node.value.elts
    return shapes


def is_builder_style(func):
    """Whether the factory builds its kernel itself (TileLang's eager mode: `with T.Kernel(...)`
    or `T.empty(...)` in its own body) rather than returning a @T.prim_func (lazy mode); TileLang
    runs an eager factory when it is called. False where the source cannot be read."""
    fn = _parsed_def(func)
    if fn is None:
        return False
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                (d.func if isinstance(d, ast.Call) else d).__class__ is ast.Attribute
                and (d.func if isinstance(d, ast.Call) else d).attr == "prim_func" for d in node.decorator_list):
            return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("Kernel", "empty")
               for n in ast.walk(fn))


def _is_t_const(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "const"


def _tensor_shape(ann, consts, shapes):
    """The shape elements of `T.Tensor((M, N), dtype)` or `T.Tensor[[M, N], dtype]`, else None,
    also where the shape is a variable (`T.Tensor(mask_shape, "bool")`): its rank is unknown
    here, so the caller asks the compiler."""
    if isinstance(ann, ast.Call) and _names_tensor(ann.func) and ann.args:
        first = ann.args[0]
    elif isinstance(ann, ast.Subscript) and _names_tensor(ann.value):
        first = ann.slice.elts[0] if isinstance(ann.slice, ast.Tuple) and ann.slice.elts else ann.slice
    else:
        return None
    if isinstance(first, (ast.Tuple, ast.List)):
        return first.elts
    if isinstance(first, ast.Name) and first.id in shapes:
        return shapes[first.id]
    return None if isinstance(first, ast.Name) and first.id not in consts else [first]


def _names_tensor(node):
    return isinstance(node, ast.Attribute) and node.attr in ("Tensor", "Buffer", "StridedTensor")
