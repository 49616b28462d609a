#!/usr/bin/env python3
"""Writes tests/conformance/manifest.json: every kernel factory in TileLang's examples/, with the
arguments the example itself uses (its own size) and a small size for the CPU interpreter.

usage: gen_manifest.py SOURCE [--tilec TILEC] [-o OUT]
SOURCE is a TileLang checkout or a bare git repository (HEAD:examples is read through a
temporary extraction; no TileLang file is copied anywhere). TILEC, when given, fills the
parameters an @autotune factory leaves to its search space with the first config
`tilec tune --dry-run` keeps. Standard library only.
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from call_sites import Walker, find_factories  # noqa: E402
from static_eval import UNKNOWN, DType  # noqa: E402
from host_tensors import draws_at_max  # noqa: E402
from small_size import small_args  # noqa: E402

# Instructions and memories that exist only on sm_100 / sm_120 (Blackwell): tensor memory,
# tcgen05 MMAs, block-scaled fp4 (T.mma_gemm_blockscaled is sm_120's mma.sync kind::mxf4nvf4).
# Kernels using them are counted apart, not as our failures.
SM100_MARKERS = re.compile(r"\b(alloc_tmem|tcgen05\w*|T\.tmem\w*|WSPipeline|nvfp4|sm_?1[02]0a?|T\.mma_gemm_blockscaled)\b")
# Kernels written for AMD GPUs: a jit target of HIP, or ROCm's MFMA intrinsic emitters (their
# layouts and instructions have no CUDA counterpart). Counted apart like the sm_100 ones.
AMD_MARKERS = re.compile(r"\btilelang\.rocm\b|\btarget\s*=\s*[\"'](hip|rocm)\b")
# A kernel whose own body carries a `# BUG: ...` comment is a deliberately broken program (autodd's
# input and its minimized form, which TileLang rejects): the entry expects tilec to refuse it with
# a located error (`expects: error`), and accepting it is the failure.
BUG_MARKER = re.compile(r"#[^\n]*\bbug\b", re.IGNORECASE)


def render(v):
    """A value as tilec's -D text (core/eval/factory.cpp parse_define reads it back), or None."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, DType):
        return v.name
    if isinstance(v, str):
        return v if v and not v[0] in "([{" else None
    if v is None:
        return "None"
    if isinstance(v, (tuple, list)):
        parts = [render(x) for x in v]
        if any(p is None for p in parts):
            return None
        parts = ["T." + x.name if isinstance(x, DType) else p for x, p in zip(v, parts)]
        inner = ", ".join(parts) + ("," if isinstance(v, tuple) and len(v) == 1 else "")
        return ("(%s)" if isinstance(v, tuple) else "[%s]") % inner
    return None


def examples_dir(source, tmp):
    if os.path.isdir(os.path.join(source, "examples")) and not source.endswith(".git"):
        return os.path.join(source, "examples")
    archive = subprocess.run(["git", "-C", source, "archive", "HEAD", "examples"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
    return os.path.join(tmp, "examples")


def autotune_first(tilec, path, kernel, args):
    """The first config tilec's own autotune-space evaluation keeps, as {name: -D text}."""
    cmd = [tilec, "tune", "--dry-run", "--json", path, "-k", kernel, "--arch", "sm_90a"]
    for k, v in args.items():
        cmd += ["-D", "%s=%s" % (k, v)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
        doc = json.loads(out[out.index("{"):])
    except (subprocess.TimeoutExpired, ValueError):
        return {}
    configs = [c for c in doc.get("configs", []) if isinstance(c.get("params"), list) or isinstance(c.get("config"), dict)]

    def as_args(c):
        if isinstance(c.get("config"), dict):
            return {k: str(v) for k, v in c["config"].items()}
        return {str(k): str(v) for k, v in c["params"]}

    # The first config we compile; when we compile none, the file's first one all the same, so the
    # entry counts as our failure (with the compiler's reason) rather than as an unresolved argument.
    kept = [c for c in configs if c.get("status") != "rejected" and c.get("kept", c.get("ok", True))]
    return as_args((kept or configs)[0]) if configs else {}


def trace_refused(tilec, path, kernel, args):
    """True when tracing the kernel with these arguments stops at one of the file's own
    trace-time assertions (`assert heads % 8 == 0`)."""
    cmd = [tilec, "compile", path, "-k", kernel, "--arch", "sm_90a", "--emit", "ir", "-o", os.devnull]
    for k, v in args.items():
        cmd += ["-D", "%s=%s" % (k, v)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return False
    return "[AssertionFailed]" in p.stdout + p.stderr


def fitting_small_args(tilec, path, kernel, args, small):
    """The small size, with shrunk values grown back (doubled, one parameter at a time, up to
    the file's own value) until the file's assertions accept it. Unchanged without tilec, or
    when the file's own size is refused too (then the entry fails for that reason anyway)."""
    if not tilec or small == args or not trace_refused(tilec, path, kernel, small) or trace_refused(tilec, path, kernel, args):
        return small
    small = dict(small)
    for name in sorted(k for k in small if small[k] != args[k]):
        orig, value = int(args[name]), int(small[name])
        while value < orig:
            value = value * 2 if orig % (value * 2) == 0 else orig
            small[name] = str(value)
            if not trace_refused(tilec, path, kernel, small):
                return small
    return small


def sibling_arguments(fac, sites, best, needed):
    """A factory the file never calls (nsa_bwd's dkv kernel, kept beside the dqkv one it calls)
    takes the values of a call to another factory of the same file for the parameters they share
    by name, when that call covers every parameter it still misses; of several such calls, the one
    sharing the most names (the sibling with the same signature). The site's origin says so."""
    known, missing = best
    choice = None
    for name, bound, line, origin in sites:
        if name == fac.name or not missing or any(p not in bound for p in missing):
            continue
        shared = {k: v for k, v in bound.items() if k in needed}
        if choice is None or len(shared) > len(choice[0]):
            choice = (shared, (line, origin), name)
    if choice is None:
        return best, None, None
    return ({**known, **choice[0]}, []), choice[1], choice[2]


def main_block_names(module):
    """Names the file's `if __name__ == "__main__":` block itself assigns (`M, N, blk_k = 8192,
    8192, 512`), not the module's other globals."""
    names = set()
    for s in module.body:
        t = s.test if isinstance(s, ast.If) else None
        if not (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"):
            continue
        for node in s.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
    return names


def main_block_arguments(best, module_env, main_names):
    """A factory the file never calls, with parameters no sibling's call binds (rms_norm_splitk
    beside the rms_norm the file runs), takes the values the __main__ block gives variables of
    the same names, when that block names every parameter it misses; else it stays unresolved."""
    known, missing = best
    values = {p: module_env.get(p, UNKNOWN) for p in missing if p in main_names}
    if not missing or len(values) < len(missing) or any(v is UNKNOWN for v in values.values()):
        return best, False
    return ({**known, **values}, []), True


def entry_for(fac, sites, ev, module_env, text, rel, tilec, path, main_names=frozenset()):
    defaults = fac.defaults(ev, module_env)
    sibling = None
    needed = [p for p in fac.params if p not in fac.tensor_dims] + fac.symbols
    best, best_site = None, None
    for name, bound, line, origin in sites:
        if name != fac.name:
            continue
        known = {**{k: v for k, v in defaults.items() if v is not UNKNOWN}, **bound}
        missing = [p for p in needed if p not in known and p not in fac.default_nodes]
        if best is None or len(missing) < len(best[1]):
            best, best_site = (known, missing), (line, origin)
        if not missing:
            break
    if best is None:
        known = {k: v for k, v in defaults.items() if v is not UNKNOWN}
        best = (known, [p for p in needed if p not in known and p not in fac.default_nodes])
        best, best_site, sibling = sibling_arguments(fac, sites, best, needed)
        best, from_main = main_block_arguments(best, module_env, main_names)
    else:
        from_main = False
    known, missing = best
    args = {k: render(v) for k, v in known.items() if k in needed}
    args = {k: v for k, v in args.items() if v is not None}
    src = "call at line %d (%s)" % best_site if best_site else "defaults"
    if from_main:
        src = "the __main__ block's own variables of these names (never called itself)"
    if best_site and sibling:
        src += " of %s (never called itself; they share these parameters)" % sibling
    # An @autotune factory's parameters left at None are the tuner's to fill (TileLang's
    # autotuner binds every config key the call does not pass).
    open_params = [k for k, v in args.items() if v == "None"] if fac.autotune else []
    if (missing or open_params) and fac.autotune and tilec:
        tuned = autotune_first(tilec, path, fac.name, {k: v for k, v in args.items() if k not in open_params})
        taken = {k: v for k, v in tuned.items() if k in missing or k in open_params}
        args.update(taken)
        missing = [m for m in missing if m not in tuned]
        if taken or not open_params:
            src += ", first autotune config"
    fn_src = ast.get_source_segment(text, fac.node) or ""
    sm100 = SM100_MARKERS.search(fn_src) or (SM100_MARKERS.search(text) and re.search(r"sm_?1[02]0|tcgen", rel))
    e = {"id": "%s:%s" % (rel, fac.name), "file": rel, "kernel": fac.name, "line": fac.node.lineno, "from": src,
         "args": args, "small": small_args(args, needed)}
    amd = AMD_MARKERS.search(text)
    if not missing and not sm100 and not amd:
        e["small"] = fitting_small_args(tilec, path, fac.name, args, e["small"])
    if BUG_MARKER.search(fn_src):
        e["expects"] = "error"
    if missing:
        e["unresolved"] = missing
    if sm100:
        e["needs"] = "sm_100a"
    elif amd:
        e["needs"] = "AMD gfx"
    return e


def manifest_entries(exdir, tilec, only=None):
    entries = []
    exdir = os.path.abspath(exdir)  # a module's __file__ is absolute, as Python's is
    for root, _, files in sorted(os.walk(exdir)):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, exdir)
            if only is not None and rel not in only:
                continue
            text = open(path, encoding="utf-8").read()
            try:
                module = ast.parse(text)
            except SyntaxError:
                continue
            factories = find_factories(module)
            if not factories:
                continue
            walker = Walker(module, factories, directory=root, filename=path)
            module_env = walker.run(module)
            ev = walker.ev
            explorer = Walker(module, factories, explore=True, directory=root, filename=path)
            explorer.run(module)
            sites = walker.sites + explorer.sites  # the file's own path first
            for fac in factories:
                entries.append(entry_for(fac, sites, ev, module_env, text, rel, tilec, path, main_block_names(module)))
    entries.sort(key=lambda e: (e["file"], e["line"]))
    return entries


def with_draws_at_max(entries, exdir, tilec):
    """Entries left unresolved are walked again with every random draw at its upper bound (a
    length from torch.randint(lo, hi) is hi-1, the largest the file allows: host_tensors.py). An
    entry that resolves more that way takes those arguments, and lists in `drawn` the ones that
    differ from the file-given pass, so nobody mistakes them for sizes the file states."""
    open_files = {e["file"] for e in entries if "unresolved" in e}
    draws_at_max(True)
    try:
        second = {e["id"]: e for e in manifest_entries(exdir, tilec, open_files)}
    finally:
        draws_at_max(False)
    out = []
    for e in entries:
        d = second.get(e["id"])
        if "unresolved" in e and d is not None and len(d.get("unresolved", [])) < len(e["unresolved"]):
            d["drawn"] = [k for k, v in d["args"].items() if e["args"].get(k) != v]
            d["from"] += ", random draws at their upper bound"
            e = d
        out.append(e)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("--tilec")
    ap.add_argument("-o", "--out", default="-")
    a = ap.parse_args()
    commit = subprocess.run(["git", "-C", a.source, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        exdir = examples_dir(a.source, tmp)
        entries = with_draws_at_max(manifest_entries(exdir, a.tilec), exdir, a.tilec)
    lines = ['{"tilelang_commit": %s,' % json.dumps(commit or "unknown"),
             ' "generated_by": "scripts/conformance/gen_manifest.py",',
             ' "entries": [']
    lines += ["  " + json.dumps(e, sort_keys=False) + ("," if i + 1 < len(entries) else "") for i, e in enumerate(entries)]
    lines += [" ]}"]
    out = "\n".join(lines) + "\n"
    if a.out == "-":
        sys.stdout.write(out)
    else:
        with open(a.out, "w", encoding="utf-8") as fh:
            fh.write(out)
    print("%d kernel factories, %d with every parameter resolved (%d of them sized by random draws at their upper bound)" %
          (len(entries), sum("unresolved" not in e for e in entries), sum("unresolved" not in e and "drawn" in e for e in entries)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
