"""`from utils import per_custom_dims_cast_to_fp8` where utils.py sits beside the example (or in
a folder the example adds to sys.path): the
sibling module's top level is run as Python runs an import (its `__main__` block not), and the
names imported are bound in the importer: constants as their values, functions as closures over
the sibling's globals (so the host code that makes tensors there is followed like the file's
own), kernel factories and classes of the sibling as opaque values (their kernels are the
sibling's own manifest entries, never recorded as the importer's).
"""
import ast
import os

from static_eval import UNKNOWN

_MAX_NESTING = 2  # a sibling importing a sibling is followed this deep


def sibling_globals(search, name, make_walker, cache, nesting=0):
    """The globals of name.py, the first found in the search folders (the file's own folder, then
    what it adds to sys.path), after its top level ran, or None when there is none."""
    found = [os.path.join(d, name + ".py") for d in search if os.path.isfile(os.path.join(d, name + ".py"))]
    if not found:
        return None
    key = found[0]
    if key in cache:
        return cache[key]
    cache[key] = None  # an import cycle reads None
    if nesting >= _MAX_NESTING or not os.path.isfile(key):
        return None
    try:
        module = ast.parse(open(key, encoding="utf-8").read())
    except (SyntaxError, UnicodeDecodeError):
        return None
    walker = make_walker(module, nesting + 1, key)
    env = walker.run_as_import(module, name)
    cache[key] = env
    return env


def bind_imports(node, env, search, make_walker, cache, nesting):
    """Binds the names of `from NAME import a, b as c` into env when NAME.py is a sibling."""
    if node.level != 0 or not node.module or "." in node.module or not search:
        return
    sibling = sibling_globals(search, node.module, make_walker, cache, nesting)
    if sibling is None:
        return
    for alias in node.names:
        if alias.name == "*":
            # Python's star import: the module's public names (__all__ when it lists them).
            public = sibling.get("__all__")
            names = public if isinstance(public, (list, tuple)) else [k for k in sibling if not k.startswith("_")]
            env.update({k: sibling.get(k, UNKNOWN) for k in names if isinstance(k, str)})
        else:
            env[alias.asname or alias.name] = sibling.get(alias.name, UNKNOWN)
