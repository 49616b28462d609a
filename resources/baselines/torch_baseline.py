#!/usr/bin/env python3
"""PyTorch baseline for `tilec bench`: loads the kernel's inputs (.npy), evaluates a torch
expression over them on the GPU and times it with CUDA events the way TilePlay times its own
kernels (warm-up, L2 flushed before each timed launch, N samples).

Prints one JSON line: {"ok": true, "times_ms": [...], "torch": "2.11.0", "cuda": "13.0"} or
{"ok": false, "why": "..."}. Never raises: every failure becomes a reason.

The expression sees each input by its parameter name, the kernel factory's parameters
(`--params`, e.g. is_causal) and the functions listed in `names()`:
  A @ B, A + B, gelu(A @ B + bias), softmax(X, -1),
  scaled_dot_product_attention(Q, K, V, is_causal=True)
"""
import argparse
import json
import math
import os
import sys


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def load_inputs(torch, np, inputs_dir, dtypes):
    out = {}
    for fname in sorted(os.listdir(inputs_dir)):
        if not fname.endswith(".npy"):
            continue
        name = fname[:-4]
        arr = np.load(os.path.join(inputs_dir, fname))
        want = dtypes.get(name, str(arr.dtype))
        if want == "bfloat16":
            # Saved as raw uint16 bits (numpy has no bfloat16).
            t = torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
        else:
            t = torch.from_numpy(arr)
        out[name] = t.cuda()
    return out


def parse_param(text):
    """Factory parameters arrive as text ("4096", "1", "0.5", "bshd"): numbers become numbers."""
    for conv in (int, float):
        try:
            return conv(text)
        except (TypeError, ValueError):
            pass
    return text


def compare_with_ours(torch, np, result, path, dtype):
    """Relative Frobenius and max abs error of our output against torch's result, in fp32."""
    if not isinstance(result, torch.Tensor):
        return {"ok": False, "why": "the expression did not give a tensor"}
    arr = np.load(path)
    ours = torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16) if dtype == "bfloat16" else torch.from_numpy(arr)
    ours = ours.cuda().float()
    ref = result.float()
    if tuple(ours.shape) != tuple(ref.shape):
        return {"ok": False, "why": f"shapes differ: ours {tuple(ours.shape)}, torch {tuple(ref.shape)}"}
    norm = torch.linalg.vector_norm(ref).item()
    diff = torch.linalg.vector_norm(ours - ref).item()
    return {"ok": True, "rel_fro": diff / norm if norm > 0 else diff,
            "max_abs": (ours - ref).abs().max().item() if ref.numel() else 0.0}


def names(torch):
    F = torch.nn.functional
    env = {
        "torch": torch, "F": F, "math": math,
        "gelu": F.gelu, "relu": F.relu, "silu": F.silu,
        "softmax": torch.softmax, "log_softmax": torch.log_softmax,
        "matmul": torch.matmul, "addmm": torch.addmm, "exp": torch.exp,
        "scaled_dot_product_attention": F.scaled_dot_product_attention,
        "layer_norm": F.layer_norm, "rms_norm": getattr(F, "rms_norm", None),
    }
    return {k: v for k, v in env.items() if v is not None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--expr", required=True)
    ap.add_argument("--dtypes", default="{}")
    ap.add_argument("--params", default="{}")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--flush-l2", type=int, default=1)
    ap.add_argument("--ours", default="", help="our kernel's output (.npy) to compare the result with")
    ap.add_argument("--ours-dtype", default="")
    args = ap.parse_args()
    try:
        import numpy as np
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure is a reason, not a crash
        emit({"ok": False, "why": f"python3 cannot import torch/numpy: {e}"})
        return
    if not torch.cuda.is_available():
        emit({"ok": False, "why": f"torch {torch.__version__} sees no CUDA device"})
        return
    try:
        env = names(torch)
        params = {k: parse_param(v) for k, v in json.loads(args.params).items()}
        env.update(params)
        if params.get("layout") == "bshd":
            # SDPA wants (batch, heads, seq, dim); a BSHD kernel's tensors are (batch, seq, heads, dim).
            sdpa = env["scaled_dot_product_attention"]
            env["scaled_dot_product_attention"] = lambda q, k, v, **kw: sdpa(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), **kw).transpose(1, 2)
        env.update(load_inputs(torch, np, args.inputs, json.loads(args.dtypes)))
        code = compile(args.expr, "<baseline>", "eval")
        fn = lambda: eval(code, env)  # noqa: E731
        with torch.no_grad():
            result = fn()
            torch.cuda.synchronize()
            vs_ours = compare_with_ours(torch, np, result, args.ours, args.ours_dtype) if args.ours else None
            props = torch.cuda.get_device_properties(0)
            l2 = getattr(props, "L2_cache_size", 50 * 1024 * 1024) or 50 * 1024 * 1024
            # Read (not zero) a clean buffer of twice the L2 size, like TilePlay's own timing: a
            # memset leaves dirty lines whose write-back would land inside the timed call.
            flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device="cuda") if args.flush_l2 else None
            for _ in range(args.warmup):
                fn()
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            times = []
            for _ in range(args.iters):
                if flush is not None:
                    flush.sum()
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
    except Exception as e:  # noqa: BLE001
        emit({"ok": False, "why": f"`{args.expr}` failed in torch: {type(e).__name__}: {e}".replace("\n", " ")})
        return
    out = {"ok": True, "times_ms": times, "torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0)}
    if vs_ours is not None:
        out["vs_ours"] = vs_ours
    emit(out)


if __name__ == "__main__":
    main()
