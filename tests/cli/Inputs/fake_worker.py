#!/usr/bin/env python3
# A stand-in for `tilec worker` on machines without a GPU: speaks the JSON-lines protocol of
# docs/worker-protocol.md with a made-up device, so tests drive the tuner's GPU path (parallel
# loads, one bench at a time, validation, ranking, failures). Run as `$TILEC worker`.
# A config's time follows block_N; block_N=512 is the fastest but computes a wrong answer;
# threads=96 makes the worker die in the middle of its bench; block_N=7 fails to compile.
# The tuner times with `bench` (check off) and validates with `run` (check on).
import json
import sys

TIMES = {"64": 3.0, "128": 1.0, "256": 2.0, "512": 0.5}
loaded = {}
for line in sys.stdin:
    req = json.loads(line)
    op = req.get("op")
    if op == "hello":
        reply = {"ok": True, "version": "fake", "pid": 0, "driver": "fake driver 1.0",
                 "device": {"name": "Fake GPU", "target": "sm_90a", "arch": "sm_90", "sm_count": 1}}
    elif op == "load":
        loaded = dict(req.get("fallback_defines", {}))
        loaded.update(req.get("defines", {}))
        target = req.get("target") or "auto"
        if loaded.get("block_N") == "7":
            reply = {"ok": False, "kind": "compile_error", "error": "fake: block_N=7 does not divide the tile"}
        else:
            reply = {"ok": True, "target": "sm_90a" if target == "auto" else target, "compile_ms": 1.0,
                     "kernel": {"name": "k", "bound_params": loaded, "registers": 16}}
    elif op in ("bench", "run"):
        if loaded.get("threads") == "96":
            sys.stderr.write("fake worker: simulated crash\n")
            sys.exit(3)
        block = loaded.get("block_N", "128")
        ok = block != "512"
        reply = {"ok": True}
        if op == "bench":
            reply["ours"] = {"n": req.get("iters", 1), "median_ms": TIMES.get(block, 9.0), "min_ms": TIMES.get(block, 9.0),
                             "spread_pct": 1.0, "gbps": 100.0}
            # Baselines as the real worker reports them: timed, torch compared with our output,
            # or unavailable with a reason.
            base = []
            for name in req.get("baselines", []):
                if name.startswith("torch"):
                    base.append({"name": name, "ok": True, "ratio": 2.0, "ratio_min": 1.9, "ratio_max": 2.1,
                                 "stats": {"median_ms": 2.0 * TIMES.get(block, 9.0)}, "method": "cuda graph replay",
                                 "vs_ours": {"rel_fro": 0.5 if "wrong" in name else 1e-4, "max_abs": 0.1, "tol": 1e-2,
                                             "agree": "wrong" not in name}})
                    if name.startswith("torch.compile"):
                        base[-1]["compile_ms"] = 4200.0
                elif name.startswith("cublas"):
                    base.append({"name": name, "ok": True, "ratio": 0.5, "ratio_min": 0.48, "ratio_max": 0.52,
                                 "stats": {"median_ms": 0.5 * TIMES.get(block, 9.0)},
                                 "vs_ours": {"rel_fro": 2e-4, "max_abs": 0.01, "tol": 1e-2, "agree": True}})
                else:
                    base.append({"name": name, "ok": False, "why": "unavailable: unknown baseline `" + name + "`"})
            reply["baselines"] = base
            timed = [b for b in base if b["ok"]]
            if timed:
                best = min(timed, key=lambda b: b["stats"]["median_ms"])
                reply["best_peer"] = {"name": best["name"], "ratio": best["ratio"], "ratio_min": best["ratio_min"],
                                      "ratio_max": best["ratio_max"], "median_ms": best["stats"]["median_ms"]}
            compared = [b for b in base if "vs_ours" in b]
            if compared:
                reply["semantics"] = {"checked": True, "ok": all(b["vs_ours"]["agree"] for b in compared),
                                      "against": [b["name"] for b in compared],
                                      "rel_fro": max(b["vs_ours"]["rel_fro"] for b in compared)}
            else:
                reply["semantics"] = {"checked": False, "why": "no peer's result to compare with"}
            reply["conditions"] = {"available": True, "samples": 12, "sm_clock_mhz": {"min": 1755, "median": 1980, "max": 1980},
                                   "power_w": {"mean": 512.0, "max": 601.0, "limit": 700.0}, "temperature_max_c": 48,
                                   "throttle": []}
            reply["timing"] = {"rounds": 10, "per_round": 5, "l2_flush": "read 120 MiB (2x L2) before each timed launch"}
        else:
            reply["wall_ms"] = TIMES.get(block, 9.0)
        # Like the real worker: the check only when asked for (the tuner asks in `run`).
        if req.get("check", True):
            reply["check"] = {"ok": ok, "outputs": [{"name": "C", "rel_fro": 0.0 if ok else 0.5, "tol": 1e-5, "pass": ok}]}
    elif op == "shutdown":
        print(json.dumps({"id": req.get("id"), "ok": True}), flush=True)
        break
    else:
        reply = {"ok": False, "kind": "bad_request", "error": "unknown op"}
    reply["id"] = req.get("id")
    print(json.dumps(reply), flush=True)
