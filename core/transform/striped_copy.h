// T.copy between global memory and a striped fragment with runs of V > 1 elements (see
// fragment_layout.h), lowered to tp::striped_load_global / striped_store_global
// (runtime/tp_copy_striped.cuh): 16-byte vector accesses (4 or 8 bytes for short runs)
// instead of V scalar ones. Split from layout_inference's rewrite; codegen/cuda/ops/copy.cpp
// calls it before its per-element fallback.
#pragma once

#include "ir/ir.h"
#include "transform/fragment_layout.h"

namespace tp::transform {

// The vector copy of `frag` (the whole fragment, layout `l`) from / to the global region
// `mem`, or null when it does not provably apply: fp32/fp16/bf16 on both sides, the region's
// non-unit dims pairing with the fragment's as rows x cols with the columns contiguous, and
// every run 16-byte aligned (the tensor's row length and the region's first column
// multiples of V; tensors start 16-byte aligned). `frag_local` is the fragment's register
// array, `mem_buf` the (possibly rewritten) global buffer, `load` whether global -> fragment.
ir::Stmt striped_global_copy(const ir::BufferRegion& frag, const ir::BufferRegion& mem, const FragLayout& l,
                             const ir::Buffer& frag_local, const ir::Buffer& mem_buf, bool load, const ir::Expr& tid,
                             Span span);

}  // namespace tp::transform
