#!/usr/bin/env python3
"""Every DIAG kind in core/diag/diagnostic_kinds.def has a test under tests/errors/ that checks
for its `[Kind]` tag."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
kinds = re.findall(r"^DIAG\((\w+),", (root / "core/diag/diagnostic_kinds.def").read_text(), re.M)
texts = "\n".join(p.read_text(errors="replace") for p in (root / "tests/errors").rglob("*") if p.is_file())
missing = [k for k in kinds if f"[{k}]" not in texts]
if missing:
    print("diagnostic kinds without a test in tests/errors/:", ", ".join(missing))
    sys.exit(1)
print(f"all {len(kinds)} diagnostic kinds are tested")
