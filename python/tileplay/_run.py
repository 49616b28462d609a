"""Kernel calls: arguments matched to the signature the way TileLang's out_idx does it (the
caller passes the inputs and gets the outputs back, or passes every parameter), then a CPU
interpreter run on numpy arrays or a launch on torch CUDA tensors."""

import ctypes

from . import _lib
from .kernel import TilePlayError

# TilePlay's dtype names that torch spells differently.
_TORCH_DTYPES = {"float8_e4m3": "float8_e4m3fn"}
# numpy has no bfloat16 or fp8: their bits travel in unsigned integers of the same width.
_NUMPY_DTYPES = {"bfloat16": "uint16", "float8_e4m3": "uint8", "float8_e5m2": "uint8", "float8_e4m3fn": "uint8"}


def is_torch_cuda(a):
    return type(a).__module__.startswith("torch") and getattr(a, "is_cuda", False)


# Stands for a dimension parameter (T.dynamic) in a call's plan: libtileplay binds it from the
# tensors' shapes, so the caller never passes it.
_DIM = object()


def torch_cuda_available():
    """Whether torch is installed and sees a CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def _plan(kernel, args):
    """The argument for each parameter in signature order: the caller's, None for an output to
    allocate, _DIM for a dimension. Callers pass the inputs, or every non-dimension parameter."""
    params = [p for p in kernel.params if not p.is_dimension and not p.is_workspace]
    inputs = [p for p in params if not p.is_output]
    every = len(args) == len(params)
    if not every and len(args) != len(inputs):
        raise TypeError("%s takes %d input(s) (%s), or all %d parameters; got %d argument(s)"
                        % (kernel.name, len(inputs), ", ".join(p.name for p in inputs), len(params), len(args)))
    it = iter(args)
    return [_DIM if p.is_dimension else None if p.is_workspace or (p.is_output and not every) else next(it) for p in kernel.params]


def _output_shape(kernel, p, given):
    """An output's shape: its declared dims, symbolic ones bound from the arguments' shapes."""
    symbols = {}
    for q, a in zip(kernel.params, given):
        if a is None or a is _DIM or q.is_scalar:
            continue
        for d, text in enumerate(q.shape_text):
            if q.shape[d] is None and d < len(a.shape):
                symbols[text] = int(a.shape[d])
    shape = []
    for d, text in zip(p.shape, p.shape_text):
        if d is None and text not in symbols:
            raise TypeError("cannot size output `%s`: dimension `%s` is not the dimension of any input" % (p.name, text))
        shape.append(d if d is not None else symbols[text])
    return tuple(shape)


def _tensor_arg(ptr, dtype, shape):
    dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    return _lib.TensorArg(ptr, dtype.encode(), len(shape), dims), dims


def _results(kernel, given, made):
    outs = [made[i] for i, a in enumerate(given) if a is None and not kernel.params[i].is_workspace]
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else outs


def _invoke(kernel, stage, tensors, scalars, run):
    n = len(tensors)
    arr = (_lib.TensorArg * max(1, n))(*[t for t, _ in tensors])
    vals = (ctypes.c_double * max(1, len(scalars)))(*scalars)
    h = kernel._compile(stage)
    if run(h.ptr, arr, n, vals, len(scalars)) != 0:
        raise TilePlayError(_lib.text(_lib.lib().tp_kernel_error(h.ptr)))


def call_numpy(kernel, args):
    import numpy as np
    given = _plan(kernel, args)
    made, tensors, scalars, copy_back = [], [], [], []
    for p, a in zip(kernel.params, given):
        if p.is_scalar:
            if not p.is_dimension:
                scalars.append(float(a))
            made.append(a)
            continue
        np_dtype = _NUMPY_DTYPES.get(p.dtype, p.dtype)
        if a is None:
            arr = np.zeros(_output_shape(kernel, p, given), dtype=np_dtype)
        else:
            if not isinstance(a, np.ndarray):
                raise TypeError("argument `%s` must be a numpy array, got %s" % (p.name, type(a).__name__))
            arr = np.ascontiguousarray(a)
            if arr is not a:  # a strided view: the kernel writes a copy, copied back below
                copy_back.append((a, arr))
        made.append(arr)
        # bfloat16 / fp8 bits travel in unsigned ints; otherwise the array's own dtype is checked.
        name = p.dtype if p.dtype in _NUMPY_DTYPES and arr.dtype == np.dtype(np_dtype) else arr.dtype.name
        tensors.append(_tensor_arg(arr.ctypes.data, name, arr.shape))
    lib = _lib.lib()
    _invoke(kernel, "ir", tensors, scalars, lambda k, t, n, s, ns: lib.tp_kernel_run_cpu(k, t, n, s, ns, 0))
    for orig, arr in copy_back:
        if orig.flags.writeable:
            orig[...] = arr
    return _results(kernel, given, made)


def call_torch(kernel, args):
    import torch
    given = _plan(kernel, args)
    device = next((a.device for a in args if is_torch_cuda(a)), None) or torch.device("cuda", torch.cuda.current_device())
    made, tensors, scalars = [], [], []
    for p, a in zip(kernel.params, given):
        if p.is_scalar:
            if not p.is_dimension:
                scalars.append(float(a))
            made.append(a)
            continue
        if a is None:
            a = torch.empty(_output_shape(kernel, p, given), dtype=getattr(torch, _TORCH_DTYPES.get(p.dtype, p.dtype)), device=device)
        elif not is_torch_cuda(a) or a.device != device:
            raise TypeError("argument `%s` must be a CUDA tensor on %s" % (p.name, device))
        elif not a.is_contiguous():
            raise TypeError("argument `%s` must be contiguous (call .contiguous())" % p.name)
        made.append(a)
        tensors.append(_tensor_arg(a.data_ptr(), str(a.dtype).replace("torch.", ""), tuple(a.shape)))
    stream = torch.cuda.current_stream(device).cuda_stream
    lib = _lib.lib()
    index = device.index if device.index is not None else torch.cuda.current_device()
    _invoke(kernel, "cubin", tensors, scalars,
            lambda k, t, n, s, ns: lib.tp_kernel_launch(k, index, ctypes.c_void_p(stream), t, n, s, ns))
    return _results(kernel, given, made)
