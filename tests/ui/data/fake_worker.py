#!/usr/bin/env python3
"""A stand-in for `tilec worker` with a GPU behind it, for the UI tests on a machine with no GPU.

It speaks the same JSON-lines protocol (docs/worker-protocol.md): `hello` names the device,
`load` describes the kernel, `run` answers with one launch's wall time and the check against
the reference, `bench` with our kernel's statistics, TFLOP/s and GB/s from the request's
FLOP and byte counts, and each requested baseline timed or "unavailable: ...". Times come
from a small roofline model of the device, so bigger tiles are faster and every number is
consistent with the FLOPs and bytes the client sent.

Misbehaviour on request, by a define or a `# fake-worker: ...` line in the kernel's source:
  die=load   exit 3 with a CUDA error on stderr while loading (no reply)
  die=run    reply to run/bench with a fatal `cuda_error`, then exit 3 (an illegal address)
  crash=run  kill itself with SIGSEGV during run/bench (no reply at all)
  hang=1     stop answering run/bench (the client's watchdog must act)
  wrong=1    the output differs from the reference (the check fails)
  assert=run the kernel's T.device_assert fails: its message is printed, then the kernel traps
             (a fatal `cuda_error` reply carrying `printed`, then exit 3)
A kernel whose source calls T.print(..., msg="...") prints one line per msg, as device printf
does from block 0, thread 0; run and bench replies carry them in `printed`.
Environment: FAKE_GPU_NAME (default "NVIDIA H200"), FAKE_TORCH=0 (PyTorch unavailable).
"""
import json
import os
import re
import signal
import sys
import time

DEVICE = {"name": os.environ.get("FAKE_GPU_NAME", "NVIDIA H200"), "target": "sm_90", "sm_count": 132,
          "total_bytes": 150 * 2**30, "l2_bytes": 60 * 2**20, "max_smem_optin": 232448}
PEAK_TFLOPS, PEAK_GBPS, LAUNCH_MS = 989.0, 4800.0, 0.004


def emit(obj):
    print(json.dumps(obj), flush=True)


def pairs(value):
    # {NAME: VALUE} only: the real worker rejects anything else, so a client that sends
    # another shape must fail here too.
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("must be an object of NAME: VALUE")
    return dict(value)


def simulated_ms(defines, flops, bytes_, efficiency):
    # Larger tiles reuse more data: a crude efficiency curve in the block size.
    block = int(defines.get("block_M", defines.get("block", "64")))
    eff = efficiency * min(1.0, block / 256.0)
    return LAUNCH_MS + 1e3 * (flops / (PEAK_TFLOPS * 1e12 * eff) + bytes_ / (PEAK_GBPS * 1e9 * 0.8))


def stats(ms, flops, bytes_):
    s = {"n": 50, "median_ms": ms, "min_ms": ms * 0.97, "max_ms": ms * 1.06, "mean_ms": ms * 1.01,
         "spread_pct": 2.4}
    if flops > 0:
        s["tflops"] = flops / (ms * 1e-3) / 1e12
    if bytes_ > 0:
        s["gbps"] = bytes_ / (ms * 1e-3) / 1e9
    return s


def check(defines, req):
    # As the real worker: the request's check_blocks (default 64) of the grid's 1024 blocks.
    wrong = defines.get("wrong") == "1"
    rel = 0.41 if wrong else 3.1e-4
    blocks = min(int(req.get("check_blocks", 64)), 1024)
    return {"ok": not wrong, "blocks_checked": blocks, "total_blocks": 1024, "sampled": blocks < 1024,
            "interp_ms": 12.7 * blocks,
            "outputs": [{"name": "C", "rel_fro": rel, "max_abs": 7.5 if wrong else 0.0039, "tol": 1e-2,
                         "compared": 65536, "nonfinite": 0, "worst_index": 17, "pass": not wrong}]}


def printed_lines(source):
    # One line per T.print message, in source order, in the format device printf gives.
    msgs = re.findall(r'T\.print\([^\n]*?msg\s*=\s*["\']([^"\']*)["\']', source)
    return "".join("msg='%s' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=float value=%d.500000\n" % (m, i)
                   for i, m in enumerate(msgs))


def assert_line(source):
    # The first T.device_assert's line number and message, as the generated printf writes them.
    for n, text in enumerate(source.splitlines(), 1):
        m = re.search(r'T\.device_assert\(.*,\s*["\']([^"\']*)["\']\s*\)', text)
        if m:
            return "device assertion failed at line %d: %s block=(0,0,0) thread=(0,0,0)\n" % (n, m.group(1))
    return "device assertion failed at line 0: assertion failed block=(0,0,0) thread=(0,0,0)\n"


def misbehave(defines, rid, source):
    if defines.get("hang") == "1":
        time.sleep(60)
    if defines.get("crash") == "run":
        os.kill(os.getpid(), signal.SIGSEGV)
    if defines.get("die") == "run":
        what = "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered (kernel `k`)"
        emit({"id": rid, "ok": False, "kind": "cuda_error", "error": what, "cuda_error": 700, "fatal": True})
        sys.stderr.write("tilec worker: %s; exiting\n" % what)
        sys.stderr.flush()
        sys.exit(3)
    if defines.get("assert") == "run":
        what = "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure (kernel `k`)"
        emit({"id": rid, "ok": False, "kind": "cuda_error", "error": what, "cuda_error": 719, "fatal": True,
              "printed": assert_line(source)})
        sys.stderr.write("tilec worker: %s; exiting\n" % what)
        sys.stderr.flush()
        sys.exit(3)


def main():
    defines, kernel, source = {}, {}, ""
    for line in sys.stdin:
        req = json.loads(line)
        rid, op = req.get("id"), req.get("op")
        if op == "hello":
            emit({"id": rid, "ok": True, "version": "fake", "pid": os.getpid(), "device": DEVICE, "driver": "12.8"})
        elif op == "load":
            try:
                defines = pairs(req.get("fallback_defines"))
                defines.update(pairs(req.get("defines")))
            except ValueError as e:
                emit({"id": rid, "ok": False, "kind": "bad_request", "error": "`defines` %s" % e})
                continue
            source = req.get("source") or ""
            if not source and req.get("path") and os.path.exists(req["path"]):
                with open(req["path"]) as f:
                    source = f.read()
            # `# fake-worker: die=run` in the source acts like a define (the GUI tests edit text).
            for k, v in re.findall(r"#\s*fake-worker:\s*(\w+)=(\w+)", source):
                defines[k] = v
            if defines.get("die") == "load":
                sys.stderr.write("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\n")
                sys.stderr.flush()
                sys.exit(3)
            bound = {k: v for k, v in defines.items() if v.isdigit()}  # strings, as tilec worker sends
            kernel = {"name": (req.get("kernel") or "k") + "_kernel", "factory": req.get("kernel") or "k",
                      "params": ["A", "B", "C"], "grid": [32, 32, 1], "threads": 128, "dynamic_shared_bytes": 0,
                      "bound_params": bound, "registers": 128, "static_shared_bytes": 32768, "local_bytes": 0}
            emit({"id": rid, "ok": True, "kernel": kernel, "target": DEVICE["target"], "compile_ms": 180.0})
        elif op == "run":
            emit({"event": "progress", "id": rid, "stage": "inputs", "heartbeat": True})
            misbehave(defines, rid, source)
            ms = simulated_ms(defines, 0, 0, 0.7)
            reply = {"id": rid, "ok": True, "launch": "grid (32, 32, 1) x 128 threads", "wall_ms": ms + 0.05,
                     "check": check(defines, req) if req.get("check", True) else None}
            if printed_lines(source):
                reply["printed"] = printed_lines(source)
            emit(reply)
        elif op == "bench":
            misbehave(defines, rid, source)
            flops, bytes_ = float(req.get("flops", 0)), float(req.get("bytes", 0))
            iters = int(req.get("iters", 50))
            for done in range(10, iters + 1, 10):
                emit({"event": "progress", "id": rid, "stage": "bench", "done": done, "total": iters})
            ours = simulated_ms(defines, flops, bytes_, 0.7)
            base = []
            wrong = defines.get("wrong") == "1" or "# fake-worker: wrong=1" in source
            for spec in req.get("baselines", []):
                # Peers as the real worker reports them: a per-round ratio with its range, and
                # their own result compared with ours (a wrong kernel differs from every peer).
                vs = {"rel_fro": 0.35 if wrong else 2e-4, "max_abs": 0.1, "tol": 1e-2, "agree": not wrong}
                if spec.startswith("cublas"):
                    ms = simulated_ms({"block": "256"}, flops, bytes_, 0.75)
                elif spec.startswith("torch") and os.environ.get("FAKE_TORCH", "1") != "0":
                    ms = simulated_ms({"block": "256"}, flops, bytes_, 0.72) + 0.01
                elif spec.startswith("torch"):
                    base.append({"name": spec, "ok": False, "why": "unavailable: No module named 'torch'"})
                    continue
                else:
                    base.append({"name": spec, "ok": False, "why": "unavailable: unknown baseline `%s`" % spec})
                    continue
                r = ms / ours
                base.append({"name": spec, "ok": True, "stats": stats(ms, flops, bytes_), "ratio": r, "ratio_min": r * 0.98,
                             "ratio_max": r * 1.02, "vs_ours": vs})
            reply = {"id": rid, "ok": True, "launch": "grid (32, 32, 1) x 128 threads", "device": DEVICE["name"],
                     "ours": stats(ours, flops, bytes_), "baselines": base, "flops": flops, "bytes": bytes_,
                     "warmup": req.get("warmup", 10), "iters": iters, "flush_l2": req.get("flush_l2", True),
                     "conditions": {"available": True, "samples": 40, "sm_clock_mhz": {"min": 1755, "median": 1980, "max": 1980},
                                    "power_w": {"mean": 512.0, "max": 640.0, "limit": 700.0}, "temperature_max_c": 51,
                                    "throttle": []}}
            timed = [b for b in base if b["ok"]]
            if timed:
                best = min(timed, key=lambda b: b["stats"]["median_ms"])
                reply["best_peer"] = {"name": best["name"], "ratio": best["ratio"], "ratio_min": best["ratio_min"],
                                      "ratio_max": best["ratio_max"], "median_ms": best["stats"]["median_ms"]}
                reply["semantics"] = {"checked": True, "ok": not wrong, "against": [b["name"] for b in timed],
                                      "rel_fro": 0.35 if wrong else 2e-4}
            if req.get("check", True):
                reply["check"] = check(defines, req)
            if printed_lines(source):
                reply["printed"] = printed_lines(source)  # the checked launch's copy only
            emit(reply)
        elif op == "shutdown":
            emit({"id": rid, "ok": True})
            break
        else:
            emit({"id": rid, "ok": False, "kind": "bad_request", "error": "unknown op `%s`" % op})


if __name__ == "__main__":
    main()
