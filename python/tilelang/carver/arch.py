"""tilelang.carver.arch on TilePlay: `driver.get_num_sms()` and the CUDA arch object scripts make
to size persistent grids; CDNA (AMD) exists so `CUDA(...) if ... else CDNA(...)` evaluates."""

import types


def _num_sms():
    try:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.get_device_properties(0).multi_processor_count
    except ImportError:
        pass
    raise RuntimeError("no CUDA device: carver's driver.get_num_sms() needs torch with a GPU")


driver = types.SimpleNamespace(get_num_sms=_num_sms)


class CUDA:
    def __init__(self, target="cuda"):
        self.target = target
        self.platform = "CUDA"

    @property
    def compute_capability(self):
        from ..testing import compute_version
        return "sm_%d%d" % compute_version()

    @property
    def target_name(self):
        """The target TilePlay compiles for on this machine's first GPU ("sm_90a"), or None."""
        import tileplay
        return tileplay.device_target(0)

    @property
    def num_sms(self):
        return _num_sms()

    def get_avaliable_tensorintrin_shapes(self):
        return [[16, 16]]


class CDNA:
    def __init__(self, target="hip"):
        raise NotImplementedError("TilePlay does not target AMD GPUs (carver.arch.CDNA)")


def auto_infer_current_arch():
    return CUDA("cuda")
