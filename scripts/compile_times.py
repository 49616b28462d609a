#!/usr/bin/env python3
"""DSL -> cubin times of the samples, cold and warm, as a Markdown table (docs/compile-time.md).

    scripts/compile_times.py [--reps N] [--arch sm_80 ...] TILEC [TILEC_B] [samples/x.py ...]

Cold: TILEPLAY_NVRTC_CACHE=off, a new process each time, so NVRTC compiles from scratch.
Warm: a fresh disk cache filled by one compile, then new processes served from it.
Each figure is the `total` line of `tilec compile --time-passes` (parse to cubin, wall clock),
the minimum of N runs: the minimum is what the machine can do, the rest is other people's load.
"cpu" is the cold compile's CPU time (user + system of the process), which load inflates far
less than wall time. With two binaries their runs alternate, so both see the same load.
"""
import argparse
import glob
import os
import re
import resource
import subprocess
import sys
import tempfile


def compile_once(tilec, sample, arch, cache, out):
    env = dict(os.environ, TILEPLAY_NVRTC_CACHE=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([tilec, "compile", sample, "--arch", arch, "--emit", "cubin", "-o", out, "--time-passes"],
                       capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3
    m = re.search(r"([\d.]+) ms\s+total", p.stdout + p.stderr)
    if p.returncode != 0 or not m:
        return None
    return float(m.group(1)), cpu


def measure(tilecs, sample, arch, reps, work):
    """[(cold_ms, cold_cpu_ms, warm_ms)] per binary, or None where the sample does not compile."""
    out = os.path.join(work, "x.cubin")
    cold = [[] for _ in tilecs]
    for _ in range(reps):
        for i, t in enumerate(tilecs):
            r = compile_once(t, sample, arch, "off", out)
            if r is None:
                return None
            cold[i].append(r)
    caches = [tempfile.mkdtemp(dir=work) for _ in tilecs]
    for t, c in zip(tilecs, caches):
        compile_once(t, sample, arch, c, out)
    warm = [[] for _ in tilecs]
    for _ in range(reps):
        for i, (t, c) in enumerate(zip(tilecs, caches)):
            r = compile_once(t, sample, arch, c, out)
            warm[i].append(r[0] if r else float("nan"))
    return [(min(c[0] for c in cold[i]), min(c[1] for c in cold[i]), min(warm[i])) for i in range(len(tilecs))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--arch", action="append", help="repeatable; default sm_75 sm_80 sm_89 sm_90a")
    ap.add_argument("paths", nargs="+", help="one or two tilec binaries, then samples (default samples/*.py)")
    a = ap.parse_args()
    tilecs = [p for p in a.paths if not p.endswith(".py")]
    samples = [p for p in a.paths if p.endswith(".py")] or sorted(glob.glob("samples/*.py"))
    archs = a.arch or ["sm_75", "sm_80", "sm_89", "sm_90a"]
    if len(tilecs) not in (1, 2):
        sys.exit("give one or two tilec binaries")
    cols = ["cold ms", "cpu ms", "warm ms"]
    head = cols if len(tilecs) == 1 else [f"{c} {w}" for c in cols for w in ("before", "after")]
    print("| sample | arch | " + " | ".join(head) + " |")
    print("| --- | --- |" + " ---: |" * len(head))
    with tempfile.TemporaryDirectory() as work:
        for s in samples:
            for arch in archs:
                r = measure(tilecs, s, arch, a.reps, work)
                name = os.path.basename(s)[:-3]
                if r is None:
                    print(f"| {name} | {arch} |" + " n/a |" * len(head), flush=True)
                    continue
                cells = [f"{r[i][k]:.{1 if k == 2 else 0}f}" for k in range(3) for i in range(len(tilecs))]
                print(f"| {name} | {arch} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
