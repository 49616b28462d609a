"""The GPU step of the conformance run (run_conformance.py --device gpu): each manifest kernel
runs on the GPU at the file's own size (`tilec bench --iters 1 --check-blocks N`: one checked
launch, its output compared with the CPU interpreter on N sampled thread blocks), under a
per-kernel time limit, and the results are tabled by folder. The interpreter is the reference
here, so a kernel passes only when the GPU computed what the Tile IR says on every sampled block.
"""
import json
import os

from conformance_report import _fmt, count_resolved, folder_rows

COLUMNS = ("kernels", "sm100", "unresolved", "compiled", "ran", "match", "mismatch", "failed")


def bench_command(e, path, opts):
    """`tilec bench` for one entry at its own size: one checked launch, no timing to speak of."""
    cmd = [opts.tilec, "bench", path, "-k", e["kernel"], "--arch", opts.gpu_arch, "--iters", "1", "--warmup", "0",
           "--no-flush", "--check-blocks", str(opts.check_blocks), "--timeout", str(opts.watchdog), "--json"]
    for k, v in e["args"].items():
        cmd += ["-D", "%s=%s" % (k, v)]
    return cmd


def _report(out):
    """The JSON document tilec bench --json prints (after any stray line), or None."""
    start = out.find("{")
    if start < 0:
        return None
    try:
        return json.loads(out[start:])
    except ValueError:
        return None


def classify(rc, out):
    """One bench run's outcome: (gpu status, detail). Statuses: no_device, compile, failed,
    timeout, match, mismatch."""
    if rc == "timeout":
        return "timeout", "no answer within the per-kernel limit"
    doc = _report(out)
    if doc is None:
        return "failed", "tilec bench printed no report (exit %s): %s" % (rc, out.strip()[-300:])
    if doc.get("ok") is False and "results" not in doc:
        return "no_device", doc.get("error", "no CUDA device")
    results = doc.get("results") or [{}]
    rec = results[0]
    if "error" in rec:
        # Before `kernel` is set the load (compile at the file's size) failed; after, the launch.
        stage = "failed" if "kernel" in rec else "compile"
        return stage, "%s: %s" % (rec.get("kind", "error"), rec["error"])
    check = rec.get("check") or {}
    if check.get("error"):
        return "failed", check["error"]
    if check.get("ok"):
        return "match", "%s of %s blocks" % (check.get("blocks_checked", "?"), check.get("total_blocks", "?"))
    bad = [o for o in check.get("outputs", []) if not o.get("pass")]

    def reason(o):
        # An output fails on non-finite values that differ even where its rel_fro is in tolerance.
        if o.get("compared") and o.get("both_nan") == o.get("compared"):
            return "%s: NaN in every element on both sides, so nothing was compared" % o.get("name")
        if o.get("nonfinite"):
            return "%s: %s non-finite element(s) differ (first at %s)" % (o.get("name"), o.get("nonfinite"), o.get("worst_index"))
        return "%s rel_fro %s > tol %s" % (o.get("name"), o.get("rel_fro"), o.get("tol"))

    why = ", ".join(reason(o) for o in bad)
    if check.get("reference_warning"):
        why += " (the reference: %s)" % check["reference_warning"]
    return "mismatch", why or "the check did not pass"


def check_entry_gpu(e, exdir, opts, run):
    res = {"id": e["id"], "folder": e["file"].split("/")[0] if "/" in e["file"] else ".", "needs": e.get("needs")}
    path = os.path.join(exdir, e["file"])
    if not os.path.isfile(path):
        res.update(status="missing", error="file not in this TileLang copy")
    elif e.get("unresolved"):
        res.update(status="unresolved", error="arguments not found in the file: " + ", ".join(e["unresolved"]))
    elif e.get("needs"):
        res.update(status="needs", error="needs " + e["needs"])
    elif e.get("expects") == "error":
        res.update(status="expects_error")  # buggy by its file's word: refused by the CPU step, nothing to run
    else:
        rc, out = run(bench_command(e, path, opts), opts.gpu_timeout)
        res["gpu"], detail = classify(rc, out)
        res["status"] = "checked"
        if res["gpu"] != "match":
            res["gpu_error"] = detail
    return res


def row(results):
    c = dict.fromkeys(COLUMNS, 0)
    for r in results:
        if not count_resolved(c, r) or r.get("status") == "expects_error":
            continue
        g = r.get("gpu")
        c["compiled"] += g not in ("compile", "no_device")
        c["ran"] += g in ("match", "mismatch")
        c["match"] += g == "match"
        c["mismatch"] += g == "mismatch"
        c["failed"] += g in ("failed", "timeout")
    return c


def totals(results):
    c = row(results)
    return {"gpu_compiled": c["compiled"], "gpu_ran": c["ran"], "gpu_match": c["match"], "gpu_mismatch": c["mismatch"],
            "gpu_failed": c["failed"]}


def folder_table(results, markdown=False):
    rows, c = folder_rows(results, row, COLUMNS)
    note = ("\ncompiled: loaded on the GPU at the file's own size; ran: launched and checked; match: equal to the CPU "
            "interpreter on every sampled block; failed: a fault, a watchdog or a timeout.\n"
            "of %d compiled kernels: %d match the interpreter, %d differ, %d failed to run"
            % (c["compiled"], c["match"], c["mismatch"], c["failed"]))
    return _fmt(rows, markdown) + note


def failures(results, markdown=False):
    """Every kernel that did not match, with its reason (these are few and each one matters)."""
    rows = [("kernel", "gpu", "why")]
    rows += [(r["id"], r["gpu"], r.get("gpu_error", "")[:200].replace("|", "/")) for r in results if r.get("gpu") not in (None, "match")]
    return "kernels that did not match on the GPU:\n" + _fmt(rows, markdown)
