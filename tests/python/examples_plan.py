"""Which TileLang example scripts the example runner runs, and how: each script is a unit; its
entry is TileLang CI's own where CI has one (the test_*.py functions of its folder that call
into it), else the script's `__main__` block with its argparse defaults. Scripts that need an
sm_100/sm_120 GPU or an AMD one are listed apart, with the reason, and never run."""

import ast
import json
import os
import re
from collections import namedtuple

# A unit: `script` (path relative to the examples dir), `entry` ("ci" or "main"), `tests`
# (the "test_file.py::function" names run for a ci entry), `excluded` (a reason, or None).
Unit = namedtuple("Unit", "script folder entry tests excluded")

# Folders whose kernels need hardware other than sm_80/sm_90 (the file-level rule below reads
# the conformance manifest, which says per kernel factory what it needs).
_FOLDER_EXCLUDED = {
    "amd": "amd-only",
    "flash_attention_sm100": "sm100-only",
    "gemm_tcgen05": "sm100-only",
    "blockscaled_gemm_sm100": "sm100-only",
    "gemm_sm120": "sm100-only",  # sm_120 (consumer Blackwell) block-scaled fp4
}
_AMD_NAME = re.compile(r"(^|[_/])(amd|cdna\d*|mfma|rocm|hip)([_./]|$)", re.I)
_SM100_NAME = re.compile(r"sm1[02]0|tcgen", re.I)


def _manifest_needs(manifest_path):
    """file -> set of what its kernels need ("sm_100a", None for plain sm_80/sm_90)."""
    if not manifest_path or not os.path.exists(manifest_path):
        return {}
    with open(manifest_path) as f:
        entries = json.load(f).get("entries", [])
    out = {}
    for e in entries:
        out.setdefault(e["file"], set()).add(e.get("needs"))
    return out


def exclusion(script, needs):
    """Why `script` cannot run on an sm_80/sm_90 GPU ("amd-only", "sm100-only"), or None."""
    folder = script.split("/")[0] if "/" in script else "."
    if folder in _FOLDER_EXCLUDED:
        return _FOLDER_EXCLUDED[folder]
    if "/amd/" in "/" + script or _AMD_NAME.search(os.path.basename(script)):
        return "amd-only"
    kinds = needs.get(script)
    if kinds and None not in kinds and all(k and k.startswith("sm_1") for k in kinds):
        return "sm100-only"
    if _SM100_NAME.search(os.path.basename(script)):
        return "sm100-only"
    return None


def _imported_siblings(tree, folder_abs):
    """Modules a test file imports that are files of its own folder (the examples it runs)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return {n for n in names if os.path.isfile(os.path.join(folder_abs, n.replace(".", "/") + ".py"))}


def _ci_tests(examples, test_rel):
    """{sibling module file (relative): [test_file::function, ...]} for one test_*.py: a test
    function belongs to each imported example module its body names."""
    folder_rel = os.path.dirname(test_rel)
    folder_abs = os.path.join(examples, folder_rel)
    with open(os.path.join(examples, test_rel), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    siblings = _imported_siblings(tree, folder_abs)
    out = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test"):
            continue
        used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        used |= {ast.unparse(n) for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
        # `from example_x import kernel, prepare_input` inside the test calls into example_x too
        used |= {n.module for n in ast.walk(fn) if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module}
        used |= {a.name for n in ast.walk(fn) if isinstance(n, ast.Import) for a in n.names}
        for mod in siblings:
            if mod in used or any(u.startswith(mod + ".") for u in used):
                script = os.path.join(folder_rel, mod.replace(".", "/") + ".py")
                out.setdefault(script, []).append("%s::%s" % (test_rel, fn.name))
    return out


def _has_main_block(source):
    return re.search(r"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", source, re.M) is not None


def plan(examples, manifest_path=None, entry="ci"):
    """Every example script of `examples` as a Unit, sorted by path. entry="ci": TileLang CI's
    test functions where a test_*.py calls into the script, else its __main__; entry="main":
    always the __main__ block. Helper modules (no __main__, no CI test) are not units."""
    needs = _manifest_needs(manifest_path)
    scripts, ci = [], {}
    for root, dirs, files in os.walk(examples):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(root, name), examples)
            if name.startswith("test_"):
                for script, tests in _ci_tests(examples, rel).items():
                    ci.setdefault(script, []).extend(tests)
            elif name != "conftest.py":
                scripts.append(rel)
    units = []
    for script in scripts:
        with open(os.path.join(examples, script), encoding="utf-8", errors="replace") as f:
            has_main = _has_main_block(f.read())
        tests = sorted(set(ci.get(script, [])))
        if not has_main and not tests:
            continue
        kind = "ci" if entry == "ci" and tests else "main"
        if kind == "main" and not has_main:
            continue
        folder = script.split("/")[0] if "/" in script else "."
        units.append(Unit(script, folder, kind, tests if kind == "ci" else [], exclusion(script, needs)))
    return units
