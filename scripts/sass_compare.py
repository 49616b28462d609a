#!/usr/bin/env python3
"""Checks that a compile-time change left the machine code of every sample alone, or made it no worse.

    scripts/sass_compare.py [--arch sm_80 ...] BEFORE/tilec AFTER/tilec [samples/x.py ...]

For each sample and target both binaries compile to a cubin (each into a fresh module cache of
its own, which then serves the PTX) and the script compares, per kernel:
  - the kernel's code (its .text section in the cubin): byte-identical code is identical SASS;
  - its instruction count (the section's size / 16: sm_70 and later encode every instruction in
    128 bits) and, where cuobjdump or nvdisasm is installed, the count per opcode class
    (HMMA, LDS, FFMA, ...);
  - registers, spill stores and loads, and stack from ptxas' report (`tilec compile --json`).
A pair is "identical" (same code), "same" (code differs, nothing counted got worse) or "WORSE"
(more instructions, registers, spills or stack); the script exits 1 when any pair is WORSE, so
it can gate a change. The PTX is compared too, without its `.loc` line records and `//` comments
(moving a generated CUDA line moves those and nothing else).
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

RESOURCES = ["registers", "spill_store_bytes", "spill_load_bytes", "stack_bytes"]


def compile_cubin(tilec, sample, arch, work, tag):
    """(resources dict, cubin path, ptx text) or None when the sample does not compile for arch."""
    cache = tempfile.mkdtemp(dir=work)
    env = dict(os.environ, TILEPLAY_NVRTC_CACHE=cache)
    cubin = os.path.join(work, f"{tag}.cubin")
    base = [tilec, "compile", sample, "--arch", arch]
    p = subprocess.run(base + ["--emit", "cubin", "--json", "-o", cubin], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return None
    res = json.loads(p.stdout)["resources"]
    p = subprocess.run(base + ["--emit", "ptx"], capture_output=True, text=True, env=env)
    return res, cubin, p.stdout


def text_sections(path):
    """{kernel name: code bytes} from an ELF64 cubin's .text.<kernel> sections."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    out = {}
    for h in headers:
        name_off, off, size = h[0], h[4], h[5]
        end = data.index(b"\0", strtab[4] + name_off)
        name = data[strtab[4] + name_off:end].decode()
        if name.startswith(".text."):
            out[name[len(".text."):]] = data[off:off + size]
    return out


def disassembler():
    for tool in ("cuobjdump", "nvdisasm"):
        for d in (os.environ.get("CUDA_HOME", "/usr/local/cuda") + "/bin", ""):
            path = os.path.join(d, tool) if d else shutil.which(tool)
            if path and os.path.exists(path):
                return tool, path
    return None


def opcode_classes(tool, path, cubin):
    """Counter of opcode classes (the mnemonic before its first '.'), or None without a tool."""
    args = [path, "-sass", cubin] if tool == "cuobjdump" else [path, cubin]
    p = subprocess.run(args, capture_output=True, text=True)
    counts = collections.Counter()
    for line in p.stdout.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", line)
        if m:
            counts[m.group(1)] += 1
    return counts


def strip_ptx(ptx):
    keep = []
    for line in ptx.splitlines():
        s = line.strip()
        if s.startswith(".loc") or s.startswith("//") or s.startswith(".file"):
            continue
        keep.append(line.split("//")[0].rstrip())
    return "\n".join(keep)


def compare(tilecs, sample, arch, work, dis):
    a = compile_cubin(tilecs[0], sample, arch, work, "a")
    b = compile_cubin(tilecs[1], sample, arch, work, "b")
    if a is None or b is None:
        return None if a is None and b is None else ("WORSE", "compiles with one binary only")
    ta, tb = text_sections(a[1]), text_sections(b[1])
    notes, worse = [], False
    if set(ta) != set(tb):
        return "WORSE", f"kernels differ: {sorted(ta)} vs {sorted(tb)}"
    identical = all(ta[k] == tb[k] for k in ta)
    for k in sorted(ta):
        na, nb = len(ta[k]) // 16, len(tb[k]) // 16
        notes.append(f"{na}->{nb} instr" if na != nb else f"{na} instr")
        worse |= nb > na
    for r in RESOURCES:
        va, vb = a[0].get(r, 0), b[0].get(r, 0)
        if va != vb:
            notes.append(f"{r} {va}->{vb}")
            worse |= vb > va
        elif r == "registers":
            notes.append(f"{va} regs")
    if not identical and dis:
        ca, cb = opcode_classes(*dis, a[1]), opcode_classes(*dis, b[1])
        moved = [f"{op} {ca[op]}->{cb[op]}" for op in sorted(set(ca) | set(cb)) if ca[op] != cb[op]]
        notes.append("classes: " + (", ".join(moved) if moved else "same counts"))
    notes.append("ptx same" if strip_ptx(a[2]) == strip_ptx(b[2]) else "ptx differs")
    verdict = "WORSE" if worse else ("identical" if identical else "same")
    return verdict, "; ".join(notes)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", action="append", help="repeatable; default sm_75 sm_80 sm_89 sm_90a")
    ap.add_argument("paths", nargs="+", help="two tilec binaries (before, after), then samples (default samples/*.py)")
    a = ap.parse_args()
    tilecs = [p for p in a.paths if not p.endswith(".py")]
    samples = [p for p in a.paths if p.endswith(".py")] or sorted(glob.glob("samples/*.py"))
    if len(tilecs) != 2:
        sys.exit("give two tilec binaries: before and after")
    dis = disassembler()
    print(f"opcode classes: {dis[1] if dis else 'no cuobjdump or nvdisasm found; code bytes, sizes and ptxas report only'}")
    print("| sample | arch | verdict | details |")
    print("| --- | --- | --- | --- |")
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        for s in samples:
            for arch in a.arch or ["sm_75", "sm_80", "sm_89", "sm_90a"]:
                r = compare(tilecs, s, arch, work, dis)
                if r is None:
                    continue
                bad += r[0] == "WORSE"
                print(f"| {os.path.basename(s)[:-3]} | {arch} | {r[0]} | {r[1]} |", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
