"""tilelang.language.fp8's host helpers: scripts call them before compiling, to pick the fp8
dtype they pass to a factory and make inputs in. TilePlay compiles for CUDA only, where
TileLang's choice is the OCP formats (float8_e4m3fn / float8_e5m2), not ROCm's fnuz ones."""

from .dtypes import dtype

_CUDA_FP8 = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}


def determine_fp8_type(fp8_format="e4m3"):
    """The fp8 dtype of `fp8_format` ("e4m3" or "e5m2") on this platform."""
    if fp8_format not in _CUDA_FP8:
        raise ValueError("Unsupported FP8 format: %s" % (fp8_format,))
    return dtype(_CUDA_FP8[fp8_format])


def determine_torch_fp8_type(fp8_format="e4m3"):
    """The torch dtype of determine_fp8_type(fp8_format)."""
    return determine_fp8_type(fp8_format).as_torch()
