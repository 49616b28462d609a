#!/usr/bin/env python3
"""Runs the conformance manifest: every kernel factory of TileLang's examples/ compiled for sm_80
and sm_90a (tilec compile --emit ptx, then ptxas), and run at its small size on the CPU
interpreter. Prints a table by folder, the totals and the most common blockers, and enforces
the ratchet (the counts that pass may only go up). Standard library only.

usage: run_conformance.py --source TILELANG --tilec TILEC [--cuda CUDA_HOME] [--manifest M]
                          [--ratchet R] [--subset every:N | shard:K/N | folders:a,b | kernels:a,b] [--jobs 2] [--update-ratchet]
                          [--device cpu|gpu] [--summary FILE] [--json FILE] [--dry-run] [--check-races]
TILELANG is a checkout, a bare git repository, or a folder holding TileLang's examples/ (what a
GPU machine without the mirror is given); its examples are extracted to a temporary directory
for the run (never into this tree). Without it the run prints [SKIP].
--device gpu is the GPU step (gpu_conformance.py): each kernel at the file's own size on the
GPU, checked against the interpreter on sampled blocks; [SKIP] without a CUDA device.
--check-races runs only the CPU step, with the interpreter's race checker, and reports how many
kernels ran clean and every finding.
"""
import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import shlex
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_conformance  # noqa: E402
from conformance_report import blockers, folder_table, totals  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHS = ("sm_80", "sm_90a")
CPU_ARCH = "sm_90"  # the interpreter runs the traced Tile IR; sm_90 admits fp8 and keeps mma.sync lowering
PRINT_ONLY = False  # --dry-run: print each command instead of running it
PRINT_LOCK = threading.Lock()


def examples_dir(source, tmp):
    if os.path.isdir(os.path.join(source, "examples")):
        return os.path.join(source, "examples")
    if not os.path.isdir(source):
        return None
    archive = subprocess.run(["git", "-C", source, "archive", "HEAD", "examples"], capture_output=True)
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
    return os.path.join(tmp, "examples")


def run(cmd, timeout):
    if PRINT_ONLY:
        with PRINT_LOCK:  # one whole line per command, whatever the jobs
            print(" ".join(shlex.quote(c) for c in cmd), flush=True)
        return "dry-run", ""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def first_error(log):
    """The first diagnostic line (`file:line:col: error: message [Kind]`) without its location."""
    for line in log.splitlines():
        if ": error: " in line:
            return line.split(": error: ", 1)[1].strip()
        if line.startswith(("error:", "internal compiler error", "ptxas")):
            return line.strip()
    tail = [ln for ln in log.splitlines() if ln.strip()]
    return tail[-1].strip() if tail else "no output"


def defines(args):
    out = []
    for k, v in args.items():
        out += ["-D", "%s=%s" % (k, v)]
    return out


def check_entry(e, exdir, opts, tmp):
    res = {"id": e["id"], "folder": e["file"].split("/")[0] if "/" in e["file"] else ".", "needs": e.get("needs")}
    if e.get("drawn") and not e.get("unresolved"):
        res["drawn"] = e["drawn"]  # sized by random draws at their upper bound (gen_manifest.py), counted apart
    path = os.path.join(exdir, e["file"])
    if not os.path.isfile(path):
        res.update(status="missing", error="file not in this TileLang copy")
        return res
    if e.get("unresolved"):
        res.update(status="unresolved", error="arguments not found in the file: " + ", ".join(e["unresolved"]))
        return res
    base = [opts.tilec, "compile", path, "-k", e["kernel"]] + defines(e["args"])
    if e.get("needs"):
        rc, log = run(base + ["--arch", "sm_90a", "--emit", "ptx", "-o", os.devnull], opts.timeout)
        clear = rc == 1 and e["needs"] in log
        res.update(status="diagnosed" if clear else "undiagnosed", error=None if clear else first_error(log))
        return res
    if opts.check_races:
        return check_races(e, path, opts, res)
    if e.get("expects") == "error":
        return check_refused(e, path, base, opts, res)
    stem = os.path.join(tmp, e["id"].replace("/", "_").replace(":", "_"))
    for arch in ARCHS:
        rc, log = run(base + ["--arch", arch, "--emit", "ptx", "-o", stem + arch + ".ptx"], opts.timeout)
        if rc == 0:
            prc, plog = run([opts.ptxas, "-arch=" + arch, stem + arch + ".ptx", "-o", stem + arch + ".cubin"], opts.timeout * 2)
            res[arch] = "ok" if prc == 0 else "ptxas"
            if prc != 0:
                res.setdefault("error", "ptxas " + arch + ": " + first_error(plog))
        elif rc == 1 and arch == "sm_80" and ("[FeatureNeedsTarget]" in log or "[SharedMemoryExceeded]" in log):
            # fp8 needs sm_89, or the file's own sizes need more shared memory than an A100
            # block has (164 KiB): the honest answer for this target, not a gap
            res[arch] = "n/a"
            res["sm_80_why"] = first_error(log)
        else:
            res[arch] = "timeout" if rc == "timeout" else ("internal" if rc == 3 else "fail")
            res.setdefault("error", first_error(log) if rc != "timeout" else "compile timed out")
        for ext in (".ptx", ".cubin"):
            if os.path.exists(stem + arch + ext):
                os.remove(stem + arch + ext)
    cmd = [opts.tilec, "run", "--device", "cpu", "--arch", CPU_ARCH, "--threads", "1", "--timeout", str(opts.cpu_timeout),
           path, "-k", e["kernel"]] + defines(e["small"])
    rc, log = run(cmd, opts.cpu_timeout + 30)
    res["cpu"] = "ok" if rc == 0 else ("timeout" if rc == "timeout" else "fail")
    if rc != 0:
        res["cpu_error"] = first_error(log) if rc != "timeout" else "CPU run timed out"
    res["status"] = "checked"
    return res


def refused(rc, log, path):
    """`refused` when tilec stopped with a user error located in the kernel's own file (exit 1, a
    `file:line:col: error:` line), `accepted` when it went through, else what went wrong."""
    if rc == 0:
        return "accepted"
    if rc == 1 and any(ln.startswith(path + ":") and ": error: " in ln for ln in log.splitlines()):
        return "refused"
    return "timeout" if rc == "timeout" else ("internal" if rc == 3 else "fail")


def check_refused(e, path, base, opts, res):
    """An entry whose file marks the kernel as buggy (`expects: error`, gen_manifest.py): each step
    passes when tilec refuses it with a located error, as TileLang itself stops on it."""
    res["expects"] = "error"
    for arch in ARCHS:
        rc, log = run(base + ["--arch", arch, "--emit", "ptx", "-o", os.devnull], opts.timeout)
        res[arch] = refused(rc, log, path)
        if res[arch] == "accepted":
            log = "tilec accepted a kernel its file marks as buggy"
        key = "refused_with" if res[arch] == "refused" else "error"
        res.setdefault(key, first_error(log) if rc != "timeout" else "compile timed out")
    cmd = [opts.tilec, "run", "--device", "cpu", "--arch", CPU_ARCH, "--threads", "1", "--timeout", str(opts.cpu_timeout),
           path, "-k", e["kernel"]] + defines(e["small"])
    rc, log = run(cmd, opts.cpu_timeout + 30)
    res["cpu"] = refused(rc, log, path)
    if res["cpu"] != "refused":
        res["cpu_error"] = first_error(log) if res["cpu"] != "accepted" else "the CPU run accepted a kernel its file marks as buggy"
    res["status"] = "checked"
    return res


RACE_KINDS = ("[SharedMemoryRace]", "[AsyncReadBeforeWait]", "[BarrierPhaseIncomplete]")


def check_races(e, path, opts, res):
    """--check-races: only the CPU run, with the race checker; `races` is clean, found or
    not_run (the run failed for another reason), with the findings and what was checked."""
    cmd = [opts.tilec, "run", "--device", "cpu", "--arch", CPU_ARCH, "--threads", "1", "--timeout", str(opts.cpu_timeout),
           "--check-races", path, "-k", e["kernel"]] + defines(e["small"])
    rc, log = run(cmd, opts.cpu_timeout + 30)
    # `file:line:col: error: message`: the line kept, the temporary directory dropped.
    findings = [os.path.basename(ln.split(": error: ", 1)[0]) + ": " + ln.split(": error: ", 1)[1] for ln in log.splitlines()
                if ": error: " in ln and ln.rstrip().endswith(RACE_KINDS)]
    scope = [ln.split("; checked ", 1)[1] for ln in log.splitlines() if ln.startswith("race check: ") and "; checked " in ln]
    res["status"] = "checked"
    res["cpu"] = "ok" if rc == 0 or (rc == 1 and findings) else ("timeout" if rc == "timeout" else "fail")
    res["race_scope"] = scope[0] if scope else ""
    res["race_findings"] = findings
    if findings:
        res["races"] = "found"
    elif rc == 0:
        res["races"] = "clean"
    else:
        res["races"] = "not_run"
        res["cpu_error"] = first_error(log) if rc != "timeout" else "CPU run timed out"
    if PRINT_ONLY:
        res["races"] = "dry-run"
    return res


def race_report(results):
    """Counts of --check-races and every finding, one line each."""
    counts = {}
    for r in results:
        if r.get("status") == "checked":
            key = r["races"]
            if key == "clean" and not r["race_scope"].startswith("shared-memory races"):
                key = "clean_async_only"  # warp roles or thread-index branches: element races not followed
            counts[key] = counts.get(key, 0) + 1
        else:
            counts[r.get("status", "other")] = counts.get(r.get("status", "other"), 0) + 1
    for r in results:
        for f in r.get("race_findings", []):
            print("race: %s: %s" % (r["id"], f[:400]))
        if r.get("races") == "not_run":
            print("not run: %s: %s" % (r["id"], r.get("cpu_error", "")[:200]))
    print("race check: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    return counts


def select(entries, subset):
    if not subset:
        return entries
    kind, _, arg = subset.partition(":")
    if kind == "every":
        n = int(arg)
        return entries[::n]
    if kind == "shard":  # shard:K/N, the K-th of N interleaved parts (a long GPU run split over calls)
        k, _, n = arg.partition("/")
        return entries[int(k)::int(n)]
    if kind == "kernels":  # kernels:a,b: the entries whose id (file:kernel) contains one of them
        wanted = arg.split(",")
        return [e for e in entries if any(w in e["file"] + ":" + e["kernel"] for w in wanted)]
    if kind == "folders":
        wanted = set(arg.split(","))
        return [e for e in entries if e["file"].split("/")[0] in wanted]
    raise SystemExit("unknown --subset " + subset)


def enforce_ratchet(path, key, counts, update):
    """counts may only go up; returns the failures. The ratchet is kept per subset key."""
    counts = {k: v for k, v in counts.items() if k not in ("kernels", "ours")}  # sizes, not passes
    doc = json.load(open(path)) if os.path.exists(path) else {}
    floor = doc.get(key, {})
    fails = ["%s: %d pass now, the ratchet says at least %d" % (k, counts[k], v) for k, v in floor.items() if counts.get(k, 0) < v]
    if update and not fails:
        doc[key] = {k: max(counts[k], floor.get(k, 0)) for k in counts}
        with open(path, "w") as fh:
            json.dump(doc, fh, indent=2, sort_keys=True)
            fh.write("\n")
        print("ratchet %s updated: %s" % (key, doc[key]))
    return fails


def parse_options():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default="")
    ap.add_argument("--tilec", required=True)
    ap.add_argument("--cuda", default="/usr/local/cuda")
    ap.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    ap.add_argument("--ratchet", default=os.path.join(HERE, "ratchet.json"))
    ap.add_argument("--subset", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per compile (ptxas gets twice that)")
    ap.add_argument("--cpu-timeout", type=int, default=60, help="seconds per CPU interpreter run")
    ap.add_argument("--update-ratchet", action="store_true")
    ap.add_argument("--json", help="also write every entry's result here")
    ap.add_argument("--summary", help="also write the tables (Markdown) here")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    ap.add_argument("--dry-run", action="store_true", help="print the commands the run would start, run none")
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu",
                    help="cpu: compile for sm_80/sm_90a + ptxas + the interpreter at the small size; "
                         "gpu: each kernel on the GPU at its own size, checked against the interpreter")
    ap.add_argument("--gpu-arch", default="auto", help="--device gpu: the target (auto: the GPU's)")
    ap.add_argument("--check-blocks", type=int, default=8, help="--device gpu: thread blocks the interpreter checks")
    ap.add_argument("--gpu-timeout", type=int, default=240,
                    help="--device gpu: seconds per kernel (compile, launch and the interpreter's check)")
    ap.add_argument("--watchdog", type=float, default=20, help="--device gpu: seconds one launch may run")
    ap.add_argument("--check-races", action="store_true",
                    help="only the CPU runs, with `tilec run --check-races`: how many run clean and every finding (no ratchet)")
    return ap.parse_args()


def gpu_probe(entries, exdir, opts):
    """The first runnable entry's result, or None: `no_device` there stops the run as [SKIP]."""
    for e in entries:
        if not (e.get("unresolved") or e.get("needs")) and os.path.isfile(os.path.join(exdir, e["file"])):
            return gpu_conformance.check_entry_gpu(e, exdir, opts, run)
    return None


def check_all(entries, exdir, opts, tmp):
    """Every entry's result (GPU: after a probe that stops a run without a device); None to skip."""
    if opts.device == "cpu":
        with cf.ThreadPoolExecutor(opts.jobs) as pool:
            return list(pool.map(lambda e: check_entry(e, exdir, opts, tmp), entries))
    first = gpu_probe(entries, exdir, opts)
    if first is not None and first.get("gpu") == "no_device":
        print("[SKIP] " + first["gpu_error"])
        return None
    rest = [e for e in entries if first is None or e["id"] != first["id"]]
    results = [first] if first else []
    # One line per kernel as it finishes, so a run cut short by an outer limit still says what it
    # found (the tables come at the end).
    with cf.ThreadPoolExecutor(opts.jobs) as pool:
        for f in cf.as_completed([pool.submit(gpu_conformance.check_entry_gpu, e, exdir, opts, run) for e in rest]):
            r = f.result()
            results.append(r)
            if r.get("status") == "checked":
                print("gpu: %s %s %s" % (r["id"], r["gpu"], r.get("gpu_error", "")[:200]), flush=True)
    order = {e["id"]: i for i, e in enumerate(entries)}
    return sorted(results, key=lambda r: order[r["id"]])


def report(results, opts, commit, seconds):
    """Prints the tables (and writes them as Markdown to --summary); returns the totals."""
    gpu = opts.device == "gpu"

    def tables(md):
        table = gpu_conformance.folder_table if gpu else folder_table
        return [table(results, md), gpu_conformance.failures(results, md) if gpu else blockers(results, md)]

    print("\n".join(tables(opts.markdown)))
    counts = gpu_conformance.totals(results) if gpu else totals(results)
    line = "totals: " + ", ".join("%s %d" % kv for kv in counts.items()) + " (%.0f s)" % seconds
    print(line)
    if opts.summary:
        head = "conformance (%s): TileLang %s, %d kernels" % (opts.device, commit[:12], len(results))
        with open(opts.summary, "w") as fh:
            fh.write("\n\n".join([head] + tables(True) + [line]) + "\n")
    return counts


def main():
    global PRINT_ONLY
    opts = parse_options()
    PRINT_ONLY = opts.dry_run
    opts.ptxas = os.path.join(opts.cuda, "bin", "ptxas")
    if opts.device == "cpu" and not os.access(opts.ptxas, os.X_OK) and not PRINT_ONLY:
        print("[SKIP] no ptxas at " + opts.ptxas)
        return 0
    manifest = json.load(open(opts.manifest))
    with tempfile.TemporaryDirectory() as tmp:
        exdir = examples_dir(opts.source, tmp) if opts.source else None
        if not exdir:
            print("[SKIP] no TileLang examples at " + (opts.source or "<unset>"))
            return 0
        entries = select(manifest["entries"], opts.subset)
        print("conformance: %d of %d manifest entries (TileLang %s), %d jobs, %s" %
              (len(entries), len(manifest["entries"]), manifest["tilelang_commit"][:12], opts.jobs, opts.device), flush=True)
        start = time.time()
        results = check_all(entries, exdir, opts, tmp)
    if results is None or PRINT_ONLY:
        return 0
    if opts.check_races:
        race_report(results)
        if opts.json:
            with open(opts.json, "w") as fh:
                json.dump(results, fh, indent=1)
        return 0
    counts = report(results, opts, manifest["tilelang_commit"], time.time() - start)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(results, fh, indent=1)
    if opts.device == "gpu":
        # The bar: every kernel that compiles on the GPU matches the interpreter.
        return 1 if counts["gpu_mismatch"] or counts["gpu_failed"] else 0
    fails = enforce_ratchet(opts.ratchet, opts.subset or "all", counts, opts.update_ratchet)
    for f in fails:
        print("FAIL ratchet " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
