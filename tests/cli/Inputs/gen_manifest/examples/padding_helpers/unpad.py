# Host helpers in another folder, reached through sys.path: random lengths, a padding mask,
# and unpadding through nonzero / einops / an autograd Function (as flash-attention's do).
import torch
import torch.nn.functional as F
from einops import rearrange, repeat


class GatherRows(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, indices):
        ctx.save_for_backward(indices)
        rest = x.shape[1:]
        flat = rearrange(x, "b ... -> b (...)")
        return torch.gather(flat, 0, repeat(indices, "z -> z d", d=rest.numel())).reshape(-1, *rest)


gather_rows = GatherRows.apply


def random_mask(max_len, batch):
    lengths = torch.randint(max(1, max_len - 8), max_len + 1, (batch, 1))
    return repeat(torch.arange(max_len), "s -> b s", b=batch) < lengths


def unpad(x, mask):
    seqlens = mask.sum(dim=-1, dtype=torch.int32)
    indices = torch.nonzero(mask.flatten(), as_tuple=False).flatten()
    cu = F.pad(torch.cumsum(seqlens, dim=0), (1, 0))
    return gather_rows(rearrange(x, "b s ... -> (b s) ..."), indices), cu, seqlens.max().item()
