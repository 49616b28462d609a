# A sibling module the example imports from: a constant and a host helper whose result's shape
# follows from torch's rules (a reduction with keepdim, a broadcast, a squeeze).
import torch

BLOCKS = (32, 64)


def quantize(x, dims):
    kept = tuple([i for i in range(x.dim()) if i not in set(dims)])
    scale = x.abs().float().amax(dim=kept, keepdim=True).clamp(1e-4)
    return (x * (1.0 / scale)).to(torch.float16), scale.squeeze()


if __name__ == "__main__":
    BLOCKS = (1, 2)  # not run on import
