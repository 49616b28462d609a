"""tilelang.utils.tensor on TilePlay: TensorSupplyType, get_tensor_supply (inputs made from a
kernel parameter, as the profiler makes them) and torch_assert_close, TileLang's check that
allows a ratio of mismatched elements; it takes torch tensors or numpy arrays."""

from ..profiler import TensorSupplyType, _numpy_input, _torch_input, _use_torch


def get_tensor_supply(supply_type=TensorSupplyType.Integer):
    """A function making an input for a kernel parameter (a tileplay Param): a torch CUDA tensor
    where torch has a GPU, else a numpy array."""
    import numpy as np
    rng = np.random.default_rng(0)

    def make(param):
        return _torch_input(param, supply_type) if _use_torch() else _numpy_input(param, supply_type, rng)

    return make


def _numpy(a):
    import numpy as np
    if type(a).__module__.startswith("torch"):
        return a.detach().float().cpu().numpy().astype(np.float64)
    return np.asarray(a).astype(np.float64)


def torch_assert_close(tensor_a, tensor_b, rtol=1e-2, atol=1e-3, max_mismatched_ratio=0.001, verbose=False,
                       equal_nan=True, check_device=True, check_dtype=True, check_layout=True, check_stride=False,
                       base_name="LHS", ref_name="RHS"):
    """AssertionError when more than max_mismatched_ratio of the elements differ by more than
    atol + rtol * |b| (shapes must match; with check_dtype, dtypes too). True otherwise."""
    import numpy as np
    if tuple(tensor_a.shape) != tuple(tensor_b.shape):
        raise AssertionError("%s has shape %s, %s %s" % (base_name, tuple(tensor_a.shape), ref_name,
                                                          tuple(tensor_b.shape)))
    if check_dtype and str(tensor_a.dtype) != str(tensor_b.dtype):
        raise AssertionError("%s has dtype %s, %s %s" % (base_name, tensor_a.dtype, ref_name, tensor_b.dtype))
    a, b = _numpy(tensor_a), _numpy(tensor_b)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    bad = int((~close).sum())
    allowed = int(a.size * max_mismatched_ratio)
    if verbose:
        print("Number of mismatched elements: %d / %d (allowed: %d)" % (bad, a.size, allowed))
    if bad > allowed:
        first = int(np.argmax(~close.reshape(-1)))
        idx = [int(i) for i in np.unravel_index(first, a.shape)] if a.shape else []
        diff = np.abs(a - b)
        raise AssertionError("Too many mismatched elements: %d > %d (%.2f%% allowed, but get %.2f%%).\n"
                             "First mismatch at index %s: lhs=%f, rhs=%f\nGreatest absolute difference: %g"
                             % (bad, allowed, max_mismatched_ratio * 100, 100.0 * bad / max(1, a.size), idx,
                                a.reshape(-1)[first], b.reshape(-1)[first], float(np.nanmax(diff)) if diff.size else 0))
    return True
