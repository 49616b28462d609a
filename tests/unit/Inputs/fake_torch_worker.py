#!/usr/bin/env python3
# A stand-in for resources/baselines/torch_worker.py where there is no torch: speaks its JSON
# lines with made-up times, so the C++ client's handling of replies, noise on stdout, a worker
# that dies and one that goes silent is tested on any machine. FAKE_TORCH_MODE picks: "ok",
# "die" (exits at the first `time`), "silent" (never answers `time`).
import json
import os
import sys
import time

mode = os.environ.get("FAKE_TORCH_MODE", "ok")
for line in sys.stdin:
    req = json.loads(line)
    op, rid = req.get("op"), req.get("id")
    if op == "hello":
        out = {"ok": True, "torch": "9.9.9", "cuda": "13.0", "device": "Fake GPU"}
    elif op == "time":
        if mode == "die":
            sys.stderr.write("fake torch worker: simulated crash\n")
            sys.exit(7)
        if mode == "silent":
            time.sleep(30)
        print("some library printing on stdout", flush=True)
        out = {"ok": True, "times_ms": [1.0 + 0.1 * i for i in range(int(req.get("n", 1)))]}
    elif op == "shutdown":
        print(json.dumps({"id": rid, "ok": True}), flush=True)
        break
    else:
        out = {"ok": False, "why": f"unknown op `{op}`"}
    out["id"] = rid
    print(json.dumps(out), flush=True)
