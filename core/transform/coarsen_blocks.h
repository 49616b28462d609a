// coarsen_blocks: for purely element-wise kernels (a 1-D grid, no shared/fragment/local
// buffers, no tile ops, no barriers) with very many small blocks, each launched block runs
// several consecutive logical blocks in an unrolled loop. The DSL is unchanged, but each
// thread now has several independent loads in flight: a 256-element-per-block vector add
// otherwise keeps too few bytes in flight to saturate HBM (Little's law), and block
// scheduling of a million tiny blocks costs time of its own.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

// Logical blocks per launched block. A power of two keeps the index math a shift.
constexpr int64_t kCoarsenFactor = 4;
// Grids smaller than this are left alone: they do not fill the GPU many times over.
constexpr int64_t kCoarsenMinGrid = 1 << 16;

ir::PrimFuncPtr coarsen_blocks(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
