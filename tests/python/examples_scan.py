"""The example runner's dry mode: without a GPU or torch, which tilelang / tvm names each example
script reaches on the host that TilePlay's compatibility module lacks. It reads the AST of the
script, of the CI test files that enter it and of the sibling modules they import, collects
  - imports and attribute chains rooted at tilelang / tvm (tilelang.testing.requires_cuda,
    from tilelang.carver.arch import driver, ...), resolved against python/ by importing it;
  - methods of TileLang's kernel, profiler and autotuner objects (.get_profiler,
    .assert_allclose, .set_compile_args, ...) that ours do not define;
  - T.<name>(...) calls in code Python executes (module level, undecorated factories), which
    our tilelang.language only has as kernel-side placeholders.
Kernel bodies (@T.prim_func, @T.macro, @tilelang.jit, @autotune) are skipped: TilePlay's C++
front end reads them, Python never runs them."""

import ast
import importlib
import json
import os
import sys
from collections import Counter

# Distinctive members of TileLang's JITKernel, Profiler, AutoTuner and AutotuneResult (from
# tilelang/jit/kernel.py, profiler/__init__.py, autotuner/tuner.py, autotuner/param.py),
# mapped to the class of ours that must have them.
_METHODS = {
    "JITKernel": ("get_profiler", "get_kernel_source", "get_host_source", "run_once", "show_source",
                  "export_sources", "print_source_code", "kernel_source", "export_library", "show_ptx", "export_ptx",
                  "show_sass", "export_sass", "get_tuner_result", "update_tuner_result"),
    "Profiler": ("assert_allclose", "manual_assert_close", "assert_consistent", "do_bench", "with_default_adapter"),
    "AutoTuner": ("from_kernel", "set_compile_args", "set_profile_args", "set_kernel_parameters", "generate_cache_key"),
    "JITFactory": ("par_compile", "get_tir"),
}
_OURS = {"JITKernel": "tilelang.jit.JITKernel", "Profiler": "tilelang.profiler.Profiler",
         "AutoTuner": "tilelang.autotuner.AutoTuner", "JITFactory": "tilelang.jit.JITFactory"}
_ROOTS = ("tilelang", "tvm")
_KERNEL_DECORATORS = ("prim_func", "macro", "jit", "autotune")


def _decorator_name(d):
    d = d.func if isinstance(d, ast.Call) else d
    return d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""


class _Collector(ast.NodeVisitor):
    def __init__(self):
        self.aliases = {}  # local name -> dotted tilelang/tvm path
        self.names = set()  # dotted names reached
        self.t_calls = set()  # T.<name> called on the host
        self.methods = set()
        self.local_imports = set()
        # Whether T.<name>() calls here run in Python: at module level and in a factory body
        # around its @T.prim_func (what tilelang.compile(factory(...)) runs), not in helpers
        # that only kernel bodies call.
        self.host_t = [True]

    def visit_Import(self, node):
        for a in node.names:
            root = a.name.split(".")[0]
            if root in _ROOTS:
                self.names.add(a.name)
                if a.asname:
                    self.aliases[a.asname] = a.name
                else:
                    self.aliases[root] = root
            else:
                self.local_imports.add(a.name)

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level == 0 and mod.split(".")[0] in _ROOTS:
            for a in node.names:
                if a.name == "*":
                    self.names.add(mod)
                    continue
                full = mod + "." + a.name
                self.names.add(full)
                self.aliases[a.asname or a.name] = "tvm" if full == "tilelang.tvm" else full
        elif node.level == 0 and mod:
            self.local_imports.add(mod)

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)
        if node.returns:
            self.visit(node.returns)
        if any(_decorator_name(d) in _KERNEL_DECORATORS for d in node.decorator_list):
            return  # the kernel body: TilePlay's front end reads it, Python never runs it
        nested_prim = any(isinstance(n, ast.FunctionDef) and any(_decorator_name(d) == "prim_func"
                                                                  for d in n.decorator_list) for n in ast.walk(node))
        self.host_t.append(nested_prim)
        for stmt in node.body:
            self.visit(stmt)
        self.host_t.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def _chain(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ".".join([self.aliases[node.id]] + parts[::-1])
        return None

    def visit_Attribute(self, node):
        chain = self._chain(node)
        if chain:
            self.names.add(chain)
            return  # the outermost chain only: its prefixes resolve if it does
        if any(node.attr in ms for ms in _METHODS.values()):
            self.methods.add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node):
        chain = self._chain(node.func)
        if chain and chain.startswith("tilelang.language.") and self.host_t[-1]:
            self.t_calls.add(chain)
        self.generic_visit(node)


def _resolve(dotted):
    """The object dotted names in our python/ package, or None when it is missing."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            try:
                obj = getattr(obj, attr)
            except AttributeError:
                return None
        return obj
    return None


def _file_collect(path, cache):
    if path not in cache:
        c = _Collector()
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                c.visit(ast.parse(f.read()))
        except SyntaxError:
            pass
        cache[path] = c
    return cache[path]


def _reached_files(examples, unit, cache):
    """The script, its CI test files, and the sibling modules they import (transitively)."""
    start = [os.path.join(examples, unit.script)] + [os.path.join(examples, t.split("::")[0]) for t in unit.tests]
    seen, todo = [], list(dict.fromkeys(start))
    while todo:
        path = todo.pop()
        if path in seen or not os.path.isfile(path):
            continue
        seen.append(path)
        for mod in _file_collect(path, cache).local_imports:
            rel = mod.replace(".", "/") + ".py"
            for base in (os.path.dirname(path), examples):
                if os.path.isfile(os.path.join(base, rel)):
                    todo.append(os.path.join(base, rel))
    return seen


def missing_names(examples, unit, cache):
    from tilelang.language import Placeholder
    missing = set()
    for path in _reached_files(examples, unit, cache):
        c = _file_collect(path, cache)
        for name in c.names:
            # A placeholder counts as present: it stands for a kernel-side name that the C++
            # front end evaluates (tvm.tirx.const, tilelang.cuda.intrinsics...).
            if _resolve(name) is None:
                missing.add(name)
        for name in c.t_calls:
            if isinstance(_resolve(name), Placeholder):
                missing.add(name.replace("tilelang.language.", "T.") + "() on the host")
        for m in c.methods:
            for cls, members in _METHODS.items():
                ours = _resolve(_OURS[cls])
                if m in members and (ours is None or not hasattr(ours, m)):
                    missing.add("%s.%s" % (cls, m))
    return sorted(missing)


def report(opts, units):
    repo_python = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python")
    sys.path.insert(0, repo_python)
    cache, per_script, rank = {}, {}, Counter()
    folders = {}
    for u in units:
        if u.excluded:
            continue
        miss = missing_names(opts.examples, u, cache)
        per_script[u.script] = miss
        rank.update(miss)
        row = folders.setdefault(u.folder, [0, 0])
        row[0] += 1
        row[1] += not miss
    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "dry.json"), "w") as f:
        json.dump({"scripts": per_script, "rank": rank.most_common(), "folders": folders}, f, indent=1)
    total = sum(r[0] for r in folders.values())
    clean = sum(r[1] for r in folders.values())
    lines = ["# Dry run: tilelang/tvm names the compatibility module lacks", "",
             "%d of %d sm_80/sm_90-capable scripts reach no missing name" % (clean, total), "",
             "| folder | scripts | reach no missing name |", "| --- | ---: | ---: |"]
    lines += ["| %s | %d | %d |" % (f, r[0], r[1]) for f, r in sorted(folders.items())]
    lines += ["", "| missing name | scripts |", "| --- | ---: |"]
    lines += ["| `%s` | %d |" % (n, c) for n, c in rank.most_common()]
    lines += ["", "## Per script", ""]
    lines += ["- %s: %s" % (s, ", ".join("`%s`" % n for n in m)) for s, m in sorted(per_script.items()) if m]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(opts.out, "dry.md"), "w") as f:
        f.write(text)
    print(text.split("\n## Per script")[0])
