#!/usr/bin/env python3
"""A stand-in for `tilec worker` in the run-service tests: answers load/run/bench with fixed
numbers, exits hard (like a faulting kernel) when a define says die=1, and stops answering
when one says hang=1."""
import json
import sys
import time

defines = {}
for line in sys.stdin:
    req = json.loads(line)
    rid, op = req.get("id"), req.get("op")
    if op == "load":
        defines = dict(req.get("defines", []))
        if defines.get("die") == "1":
            sys.stderr.write("illegal memory access was encountered\n")
            sys.stderr.flush()
            sys.exit(3)
        print(json.dumps({"id": rid, "ok": True, "kernel": {"name": "k", "bound_params": {"M": 64}}}), flush=True)
    elif op in ("run", "bench"):
        if defines.get("hang") == "1":
            time.sleep(60)
        print(json.dumps({"event": "progress", "message": "timing"}), flush=True)
        block = int(defines.get("block", "64"))
        ms = 1.0 / block * 64
        print(json.dumps({"id": rid, "ok": True, "timing": {"median_ms": ms, "min_ms": ms * 0.9},
                          "flops": req.get("flops", 0), "bytes": req.get("bytes", 0),
                          "check": {"rel_error": 1e-3, "passed": True},
                          "baselines": [{"name": "cuBLAS", "median_ms": 0.5}] if req.get("baselines") else []}),
              flush=True)
    elif op == "shutdown":
        break
