#!/usr/bin/env python3
"""The PyTorch peer of `tilec bench`: a long-lived process speaking JSON lines on stdin/stdout,
like `tilec worker`. The worker starts it once and keeps it for every bench, sweep or tune.

Requests (one JSON object a line; every reply carries the request's "id"):
  {"op": "hello"}
      -> {"ok": true, "torch": "2.11.0", "cuda": "13.0", "device": "NVIDIA H200", "python": "3.12.3"}
  {"op": "setup", "inputs_dir": DIR, "dtypes": {NAME: DTYPE}, "params": {NAME: TEXT},
   "ours": PATH, "ours_dtype": DTYPE, "warmup": 10, "flush_l2": true,
   "baselines": [{"key": "1", "expr": EXPR, "compile": "" | "default" | "max-autotune-no-cudagraphs",
                  "sdpa": "" | "cudnn" | "flash" | "efficient" | "math"}]}
      Loads the inputs (DIR/NAME.npy), builds each baseline, compiles it (torch.compile), checks
      its result against our output (PATH), captures it in a CUDA graph and warms it up.
      -> {"ok": true, "baselines": [{"key", "ok", "why", "method", "compile_ms", "vs_ours"}]}
  {"op": "time", "key": "1", "n": 5}
      Times n replays, each after an L2 flush, between two CUDA events with no host code in the
      window (a graph replay is one launch). -> {"ok": true, "times_ms": [...]}
  {"op": "release"}  drops every tensor and graph.     {"op": "shutdown"}  exits.

A failure is {"ok": false, "why": "..."}: nothing here raises past the request loop.
"""
import json
import math
import os
import platform
import sys
import time
import traceback

torch = None
np = None
STATE = {"baselines": {}, "inputs": {}, "flush": None}


def reply(obj):
    # NaN and infinities are not JSON: they travel as null (the caller reads "not a number").
    sys.stdout.write(json.dumps(obj, allow_nan=False, default=str) + "\n")
    sys.stdout.flush()


def finite(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


def load_npy(path, dtype):
    arr = np.load(path)
    if dtype == "bfloat16":  # saved as raw 16-bit words: numpy has no bfloat16
        return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    if dtype.startswith("float8"):
        kind = torch.float8_e4m3fn if "e4m3" in dtype else torch.float8_e5m2
        return torch.from_numpy(arr.view(np.uint8)).view(kind)
    return torch.from_numpy(arr)


def parse_param(text):
    """Factory parameters arrive as text ("4096", "1", "0.5", "bshd"): numbers become numbers."""
    for conv in (int, float):
        try:
            return conv(text)
        except (TypeError, ValueError):
            pass
    return text


def names(params):
    F = torch.nn.functional
    env = {
        "torch": torch, "F": F, "math": math,
        "gelu": F.gelu, "relu": F.relu, "silu": F.silu,
        "softmax": torch.softmax, "log_softmax": torch.log_softmax,
        "matmul": torch.matmul, "addmm": torch.addmm, "exp": torch.exp,
        "scaled_dot_product_attention": F.scaled_dot_product_attention,
        "layer_norm": F.layer_norm, "rms_norm": getattr(F, "rms_norm", None),
    }
    env = {k: v for k, v in env.items() if v is not None}
    env.update(params)
    if params.get("layout") == "bshd":
        # SDPA wants (batch, heads, seq, dim); a BSHD kernel's tensors are (batch, seq, heads, dim).
        sdpa = env["scaled_dot_product_attention"]
        env["scaled_dot_product_attention"] = lambda q, k, v, **kw: sdpa(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), **kw).transpose(1, 2)
    return env


def sdpa_context(backend):
    if not backend:
        import contextlib
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    table = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
             "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}
    if backend not in table:
        raise ValueError(f"unknown SDPA backend `{backend}`; use cudnn, flash, efficient or math")
    return sdpa_kernel([table[backend]])


def compare(result, ours):
    """Relative Frobenius and max abs error of our output against torch's result, in fp32."""
    if not isinstance(result, torch.Tensor):
        return {"ok": False, "why": "the expression did not give a tensor"}
    if ours is None:
        return {"ok": False, "why": "no output of ours to compare"}
    if tuple(ours.shape) != tuple(result.shape):
        return {"ok": False, "why": f"shapes differ: ours {tuple(ours.shape)}, torch {tuple(result.shape)}"}
    ref, got = result.float(), ours.float()
    nonfinite = int((~torch.isfinite(got)).sum().item()) - int((~torch.isfinite(ref)).sum().item())
    diff = torch.nan_to_num(got - ref, nan=float("inf"))
    norm = torch.linalg.vector_norm(torch.nan_to_num(ref)).item()
    d = torch.linalg.vector_norm(diff).item()
    rel = d / norm if norm > 0 else d
    return {"ok": True, "rel_fro": finite(rel), "max_abs": finite(diff.abs().max().item() if ref.numel() else 0.0),
            "nonfinite": max(0, nonfinite)}


def build(spec, env, inputs, warmup):
    """Makes one baseline: compiled where asked, checked, captured in a graph, warmed up."""
    expr = spec["expr"]
    arg_names = sorted(inputs)
    fn = eval(compile(f"lambda {', '.join(arg_names)}: ({expr})", "<baseline>", "eval"), env)
    mode = spec.get("compile", "")
    out = {"key": spec["key"], "ok": False}
    if mode:
        fn = torch.compile(fn) if mode == "default" else torch.compile(fn, mode=mode)
    args = [inputs[n] for n in arg_names]
    backend = spec.get("sdpa", "")
    run = lambda: fn(*args)  # noqa: E731
    t0 = time.perf_counter()
    with torch.no_grad(), sdpa_context(backend):
        result = run()  # compiles when torch.compile'd
        torch.cuda.synchronize()
        out["compile_ms"] = (time.perf_counter() - t0) * 1e3 if mode else 0.0
        out["vs_ours"] = compare(result, STATE.get("ours"))
        del result
        # Warm on a side stream first (what graph capture asks), then capture one call.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(max(1, warmup)):
                run()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = None
        try:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                run()
            graph.replay()
            torch.cuda.synchronize()
            out["method"] = "cuda graph replay"
        except Exception as e:  # noqa: BLE001 - some expressions cannot be captured
            graph = None
            torch.cuda.synchronize()
            out["method"] = "cuda events around the call (graph capture failed: " + type(e).__name__ + ")"
    STATE["baselines"][spec["key"]] = {"graph": graph, "run": run, "sdpa": backend}
    out["ok"] = True
    return out


def setup(req):
    release()
    params = {k: parse_param(v) for k, v in req.get("params", {}).items()}
    dtypes = req.get("dtypes", {})
    inputs = {}
    for name, dt in dtypes.items():
        inputs[name] = load_npy(os.path.join(req["inputs_dir"], name + ".npy"), dt).cuda()
    STATE["inputs"] = inputs
    if req.get("ours"):
        STATE["ours"] = load_npy(req["ours"], req.get("ours_dtype", "")).cuda()
    if req.get("flush_l2", True):
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 0) or 64 * 1024 * 1024
        # Read (not zero) a clean buffer of twice the L2 size, like tilec: a memset would leave
        # dirty lines whose write-back lands inside the timed call.
        STATE["flush"] = torch.ones(2 * l2 // 4, dtype=torch.int32, device="cuda")
    env = names(params)
    results = []
    for spec in req.get("baselines", []):
        try:
            results.append(build(spec, env, inputs, int(req.get("warmup", 10))))
        except Exception as e:  # noqa: BLE001
            torch.cuda.synchronize()
            text = f"`{spec.get('expr', '')}` failed in torch: {type(e).__name__}: {e}".replace("\n", " ")
            results.append({"key": spec.get("key"), "ok": False, "why": text[:600]})
    return {"ok": True, "baselines": results}


def time_one(req):
    b = STATE["baselines"].get(req.get("key"))
    if b is None:
        return {"ok": False, "why": f"no baseline `{req.get('key')}` is set up"}
    n = max(1, int(req.get("n", 1)))
    flush = STATE["flush"]
    start = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    stop = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    with torch.no_grad(), sdpa_context(b["sdpa"]):
        for i in range(n):
            if flush is not None:
                flush.sum()
            start[i].record()
            if b["graph"] is not None:
                b["graph"].replay()
            else:
                b["run"]()
            stop[i].record()
        stop[-1].synchronize()
    return {"ok": True, "times_ms": [s.elapsed_time(e) for s, e in zip(start, stop)]}


def release():
    STATE["baselines"].clear()
    STATE["inputs"] = {}
    STATE["ours"] = None
    STATE["flush"] = None
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()
    return {"ok": True}


def hello():
    return {"ok": True, "torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0), "python": platform.python_version()}


def main():
    global torch, np
    try:
        import numpy as np  # noqa: F811
        import torch  # noqa: F811
    except Exception as e:  # noqa: BLE001 - any import failure is a reason, not a crash
        why = f"python3 cannot import torch/numpy: {e}"
        for line in sys.stdin:
            reply({"id": None, "ok": False, "why": why})
        return
    ready = torch.cuda.is_available()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError:
            reply({"id": None, "ok": False, "why": "request is not JSON"})
            continue
        op, rid = req.get("op"), req.get("id")
        try:
            if op == "shutdown":
                reply({"id": rid, "ok": True})
                return
            if not ready:
                out = {"ok": False, "why": f"torch {torch.__version__} sees no CUDA device"}
            elif op == "hello":
                out = hello()
            elif op == "setup":
                out = setup(req)
            elif op == "time":
                out = time_one(req)
            elif op == "release":
                out = release()
            else:
                out = {"ok": False, "why": f"unknown op `{op}`"}
        except Exception as e:  # noqa: BLE001
            out = {"ok": False, "why": f"{type(e).__name__}: {e}".replace("\n", " ")[:600],
                   "trace": traceback.format_exc()[-2000:]}
        out["id"] = rid
        reply(out)


if __name__ == "__main__":
    main()
