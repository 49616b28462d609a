#!/usr/bin/env python3
"""Layering: core/ never includes Qt; only core/jit (libtileplay_jit, loaded with dlopen) includes
LLVM; ui/ includes only core's public headers (tileplay/*.h)."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
bad = []
inc = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
for f in (root / "core").rglob("*"):
    if f.suffix not in {".h", ".cpp", ".cuh", ".def"}:
        continue
    for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
        m = inc.match(line)
        if m and (m.group(1).startswith("Q") or m.group(1).startswith("Qsci/")):
            bad.append(f"{f.relative_to(root)}:{n}: core includes Qt header <{m.group(1)}>")
        if m and m.group(1).startswith(("llvm/", "llvm-c/")) and f.relative_to(root).parts[:2] != ("core", "jit"):
            bad.append(f"{f.relative_to(root)}:{n}: core includes LLVM header <{m.group(1)}> outside core/jit")
for top in ("ui", "app/gui"):
    for f in (root / top).rglob("*"):
        if f.suffix not in {".h", ".cpp"}:
            continue
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = inc.match(line)
            if not m:
                continue
            name = m.group(1)
            if re.match(r"(frontend|ir|eval|transform|codegen|runtime|interp|diag|ops|baselines|tune)/", name):
                bad.append(f"{f.relative_to(root)}:{n}: {top} includes core internal <{name}>; use tileplay/*.h")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("layering ok")
