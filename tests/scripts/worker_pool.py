#!/usr/bin/env python3
"""A pool of two local CPU workers where one dies mid-sweep (and mid-tune).

TILEPLAY_WORKER_EXIT_AFTER=K:CLAIM makes the one worker that creates CLAIM exit at its (K+1)-th
configuration. K is 1: the worker that claims must get a second configuration to die at it,
and on a loaded machine the other worker took all but two of the eight (a flaky K=2 seen in a
fresh-clone run). The sweep and the tune must still finish with every configuration checked, the
same verdicts as without a pool, and a note naming the worker that died.
Usage: worker_pool.py TILEC SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

from worker_test_util import fail

AXES = ["block_N=64,128,256,512", "threads=64,128"]  # 8 configs


def run(tilec, args, env=None):
    p = subprocess.run([tilec, *args], capture_output=True, text=True, env=env, timeout=240)
    return p


def check_note(notes, what):
    died = [n for n in notes if "died after 1 jobs" in n and "exit code 7" in n and "went to another worker" in n]
    if len(died) != 1:
        fail(f"{what}: expected one note naming the dead worker, got {notes}")
    print(f"PASS {what}: {died[0]}")


def main():
    tilec, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    sample = os.path.join(root, "samples", "vector_add.py")
    with tempfile.TemporaryDirectory(prefix="tileplay_pool_") as tmp:
        env = dict(os.environ, TILEPLAY_WORKER_EXIT_AFTER=f"1:{tmp}/claim_sweep", TILEPLAY_CACHE_DIR=f"{tmp}/cache")

        # The sweep in this process (no pool) is the reference verdict for every config.
        alone = run(tilec, ["sweep", sample, "--device", "cpu", "--json", *sum((["-D", a] for a in AXES), [])])
        pooled = run(tilec, ["sweep", sample, "--device", "cpu", "--workers", "2", "--json", *sum((["-D", a] for a in AXES), [])], env)
        if alone.returncode != 0 or pooled.returncode != 0:
            fail(f"sweep exit codes {alone.returncode} / {pooled.returncode}: {pooled.stderr[-500:]}")
        a, p = json.loads(alone.stdout), json.loads(pooled.stdout)
        verdict = lambda rows: {r["config"]: (r.get("check", {}).get("ok"), r.get("check", {}).get("rel_fro"), r.get("error")) for r in rows}
        if len(p["configs"]) != 8 or verdict(a["configs"]) != verdict(p["configs"]):
            fail(f"pooled sweep differs:\n{verdict(a['configs'])}\n{verdict(p['configs'])}")
        workers = {r["worker"] for r in p["configs"]}
        if workers != {"local #1", "local #2"}:
            fail(f"configs ran on {workers}, expected both workers")
        check_note(p["pool_notes"], "sweep")

        env["TILEPLAY_WORKER_EXIT_AFTER"] = f"1:{tmp}/claim_tune"
        tune = run(tilec, ["tune", sample, "--device", "cpu", "--workers", "2", "--no-cache", "--json", *sum((["-T", a] for a in AXES), [])], env)
        if tune.returncode != 0:
            fail(f"tune exit code {tune.returncode}: {tune.stderr[-500:]}")
        t = json.loads(tune.stdout)
        statuses = [r["status"] for r in t["configs"]]
        if len(statuses) != 8 or any(s != "passed" for s in statuses):
            fail(f"pooled tune statuses: {statuses}")
        check_note(t["notes"], "tune")
    print("PASS")


if __name__ == "__main__":
    main()
