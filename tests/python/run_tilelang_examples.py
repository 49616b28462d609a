#!/usr/bin/env python3
"""Runs TileLang's example scripts, unmodified, on TilePlay: each one in a child python3 with
this repository's python/ first on PYTHONPATH, so `import tilelang` is TilePlay's compatibility
module and the scripts' own checks (assert_allclose, torch.testing) decide pass or fail.

Entry (see examples_plan.py): TileLang CI's test functions (examples/*/test_*.py, which call
each example's main() with CI's arguments) where a test file calls into the script; the
script's `__main__` block with its argparse defaults otherwise (`--entry main`: always that).
Scripts for sm_100/sm_120 or AMD GPUs are counted apart and never run.

  run_tilelang_examples.py EXAMPLES_DIR --out DIR [--jobs 16] [--timeout 90] [--deadline 460]
  run_tilelang_examples.py EXAMPLES_DIR --out DIR --dry     # no GPU, no torch: API coverage

Writes DIR/results.json, DIR/results.md (table by folder, totals, each failure's error line
and category) and DIR/logs/<script>.log. The global deadline always leaves time to write them:
scripts still running then are killed (timeout), ones not started are `not_run`."""

import argparse
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import examples_plan  # noqa: E402
import examples_report  # noqa: E402


def _child_env(opts):
    env = dict(os.environ)
    python_dir = os.path.join(REPO, "python")
    env["PYTHONPATH"] = os.pathsep.join([python_dir] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("PYTHONHASHSEED", "0")  # as TileLang's examples/conftest.py sets it
    if opts.lib:
        env["TILEPLAY_LIB"] = os.path.abspath(opts.lib)
    return env


def _command(opts, unit):
    if unit.entry == "ci":
        return [opts.python, os.path.join(HERE, "example_driver.py"), opts.examples] + unit.tests, opts.examples
    path = os.path.join(opts.examples, unit.script)
    return [opts.python, path], os.path.dirname(path)


def _log_path(opts, unit):
    return os.path.join(opts.out, "logs", unit.script.replace("/", "__") + ".log")


class _Running:
    def __init__(self, unit, proc, log, started):
        self.unit, self.proc, self.log, self.started = unit, proc, log, started


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the child's own session: it and what it started
    except ProcessLookupError:
        pass
    proc.wait()


def _result(unit, status, rc, wall, log_path, note="", examples=""):
    r = {"script": unit.script, "folder": unit.folder, "entry": unit.entry, "tests": unit.tests,
         "status": status, "rc": rc, "wall_s": round(wall, 1), "log": os.path.relpath(log_path, os.path.dirname(
             os.path.dirname(log_path))), "category": "", "error": note}
    if status in ("fail", "timeout"):
        try:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                output = f.read()
        except OSError:
            output = ""
        line = examples_report.error_line(output)
        r["error"] = note + (": " if note and line else "") + line
        source = _read(os.path.join(examples, unit.script)) if examples else ""
        r["category"] = "timeout" if status == "timeout" else examples_report.classify(line, output, source)
    return r


def _finish(opts, run, timed_out, deadline_hit=False):
    wall = time.monotonic() - run.started
    run.log.close()
    rc = run.proc.returncode
    if timed_out:
        note = "killed at the global deadline" if deadline_hit else "timed out after %ds" % opts.timeout
        return _result(run.unit, "timeout", rc, wall, run.log.name, note, opts.examples)
    status = "pass" if rc == 0 else "skipped" if rc == 3 and run.unit.entry == "ci" else "fail"
    return _result(run.unit, status, rc, wall, run.log.name, examples=opts.examples)


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def run_all(opts, units):
    env = _child_env(opts)
    t0 = time.monotonic()
    end = t0 + opts.deadline
    pending = [u for u in units if not u.excluded]
    results = [{"script": u.script, "folder": u.folder, "entry": u.entry, "tests": u.tests, "status": "excluded",
                "reason": u.excluded, "category": "", "error": ""} for u in units if u.excluded]
    running = []
    os.makedirs(os.path.join(opts.out, "logs"), exist_ok=True)
    while pending or running:
        now = time.monotonic()
        # A script is started only while it still has a useful share of the time left.
        while pending and len(running) < opts.jobs and end - now > min(opts.timeout, 20):
            unit = pending.pop(0)
            cmd, cwd = _command(opts, unit)
            log = open(_log_path(opts, unit), "w")
            log.write("$ cd %s && %s\n" % (cwd, " ".join(cmd)))
            log.flush()
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
            running.append(_Running(unit, proc, log, now))
        if not running and pending:  # too little time left to start anything
            break
        time.sleep(0.2)
        now = time.monotonic()
        for run in list(running):
            over = now - run.started > opts.timeout
            at_deadline = now > end
            if run.proc.poll() is None and not (over or at_deadline):
                continue
            if run.proc.poll() is None:
                _kill(run.proc)
                results.append(_finish(opts, run, True, at_deadline and not over))
            else:
                results.append(_finish(opts, run, False))
            running.remove(run)
            print("[%4.0fs] %-8s %s" % (now - t0, results[-1]["status"], run.unit.script), flush=True)
    for unit in pending:
        results.append({"script": unit.script, "folder": unit.folder, "entry": unit.entry, "tests": unit.tests,
                        "status": "not_run", "category": "", "error": "not started before the global deadline"})
    results.sort(key=lambda r: r["script"])
    return results, time.monotonic() - t0


def _target():
    try:
        import tileplay
        return tileplay.device_target(0) or "none (no CUDA device)"
    except Exception as e:  # noqa: BLE001 - the report says why, the run goes on
        return "unknown (%s)" % e


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("examples", help="TileLang's examples/ folder")
    ap.add_argument("--out", required=True, help="results folder")
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--timeout", type=int, default=90, help="seconds per script")
    ap.add_argument("--deadline", type=int, default=460, help="seconds for the whole run")
    ap.add_argument("--entry", choices=("ci", "main"), default="ci")
    ap.add_argument("--only", default="", help="regex: run only scripts whose path matches")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--lib", default=os.environ.get("TILEPLAY_LIB", ""), help="libtileplay.so (TILEPLAY_LIB)")
    ap.add_argument("--manifest", default=os.path.join(REPO, "tests", "conformance", "manifest.json"))
    ap.add_argument("--dry", action="store_true", help="no runs: the tilelang/tvm names each script reaches "
                    "that the compatibility module lacks (AST scan)")
    opts = ap.parse_args()
    opts.examples = os.path.abspath(opts.examples)
    if not os.path.isdir(opts.examples):
        sys.exit("no examples folder at %s" % opts.examples)
    units = examples_plan.plan(opts.examples, opts.manifest, opts.entry)
    if opts.only:
        import re
        units = [u for u in units if re.search(opts.only, u.script)]
    if opts.dry:
        import examples_scan
        examples_scan.report(opts, units)
        return 0
    if opts.lib:
        os.environ["TILEPLAY_LIB"] = os.path.abspath(opts.lib)
    sys.path.insert(0, os.path.join(REPO, "python"))
    meta = {"examples": opts.examples, "entry": opts.entry, "jobs": opts.jobs, "timeout": opts.timeout,
            "deadline": opts.deadline, "python": opts.python, "target": _target()}
    results, wall = run_all(opts, units)
    meta["wall_s"] = round(wall, 1)
    examples_report.write(opts.out, results, meta)
    print(examples_report.markdown(results, meta).split("\n## Failures")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
