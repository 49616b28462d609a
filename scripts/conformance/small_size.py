"""The small size of a conformance entry: the example's own arguments with the problem shrunk
so the CPU interpreter runs it in seconds.

Tile parameters (block_*, threads, num_stages, ...) and head dimensions stay as they are, since
they are the kernel's structure. A file that asserts on its sizes (`assert heads % 8 == 0`) may
refuse a shrunk value: gen_manifest.py then grows the shrunk values back (fitting_small_args). Batch and head counts go towards 1 and other sizes above 256
are halved towards 256. Every divisibility the original values had between two integer
parameters (M % block_M == 0, heads % groups == 0, ...) is kept: a shrunk value is doubled
back until they all hold again, so shrinking never makes a kernel invalid by itself.
"""
import re

# topk is a problem size (how many keys a query attends to), not a tile: it shrinks like a
# sequence length, and the sequence lengths it divides shrink with it.
TILE = re.compile(r"^(block|blk|tile|bm$|bn$|bk$|thread|num_thread|num_stage|stage|split|num_split|warp|chunk|pad|"
                  r"page|sparse_block|num_split|n_split|kv_group|group_size|vec|pack|tune|num_bits)", re.I)
KEEP = re.compile(r"(dim|rank|^d$|^dv$|^dk$|^d_|size_per|^e$|expert)", re.I)
BATCH = re.compile(r"^(batch|b|bs|bsz|batch_size|num_batch\w*)$", re.I)
HEADS = re.compile(r"(head|^h$|^hq$|^hkv$|^h_q$|^h_kv$)", re.I)
LIMIT = 256


def _target(name, v):
    if TILE.search(name) or KEEP.search(name):
        return v
    if BATCH.match(name) or HEADS.search(name):
        floor = 1
    elif v > LIMIT:
        floor = LIMIT
    else:
        return v
    while v % 2 == 0 and v // 2 >= floor:
        v //= 2
    return v


def _int(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def small_args(args, names):
    """args: {name: -D text}; returns the same map with the problem sizes shrunk."""
    orig = {k: _int(v) for k, v in args.items()}
    orig = {k: v for k, v in orig.items() if v is not None and v > 0 and not isinstance(v, bool)}
    new = {k: _target(k, v) for k, v in orig.items()}
    keys = sorted(orig)
    for _ in range(64):
        changed = False
        for p in keys:
            if new[p] == orig[p]:
                continue
            for q in keys:
                if p == q or orig[q] <= 1:
                    continue
                broken = (orig[p] % orig[q] == 0 and (new[p] % new[q] or new[p] < new[q])) or \
                         (orig[q] % orig[p] == 0 and new[q] % new[p])
                if broken:
                    new[p] = min(orig[p], new[p] * 2) if orig[p] % (new[p] * 2) == 0 else orig[p]
                    changed = True
                    break
        if not changed:
            break
    out = dict(args)
    out.update({k: str(v) for k, v in new.items()})
    return out
