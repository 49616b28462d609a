"""tilelang.contrib.nvcc on TilePlay: the device's compute version, from TilePlay's device
target (no nvcc is run)."""


def get_target_compute_version(target=None):
    """"9.0" for an H100/H200; ValueError without a CUDA device, as TileLang's does."""
    from ..testing import compute_version
    major, minor = compute_version()
    if (major, minor) == (0, 0):
        raise ValueError("no CUDA device: cannot find the compute version")
    return "%d.%d" % (major, minor)


def parse_compute_version(compute_version):
    major, minor = str(compute_version).split(".")[:2]
    return int(major), int(minor)


def have_fp16(compute_version):
    return parse_compute_version(compute_version) >= (5, 3)


def have_bf16(compute_version):
    return parse_compute_version(compute_version) >= (8, 0)


def have_tensorcore(compute_version=None, target=None):
    return parse_compute_version(compute_version or get_target_compute_version()) >= (7, 0)
