// The element offset of a swizzled shared tile (BufferNode::layout "swizzle" or "panels") as IR:
// tp::SmemTile's formula (runtime/tp_layout.cuh) for the code generator's own loads and stores,
// and for the layout model (core/layout), which evaluates it to show where each element lands.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace tp::codegen {

// Offset in elements of buffer `b` at `idx` (one index per dim). The last two dims are the
// tile (16-byte chunks of a row XOR-ed with a key from the row); leading dims select a stage.
ir::Expr swizzled_smem_offset(const ir::Buffer& b, const std::vector<ir::Expr>& idx);

// The swizzle's parameters for a tile of `cols` elements of `elem_bytes` (panels: rows wider
// than 128 bytes kept as 128-byte panels): a row's 16-byte chunk c is stored at chunk
// c ^ ((row / rows_per_key) & mask); mask 0 means no swizzle.
struct SmemSwizzle {
    int64_t pitch = 0;         // elements from one stored row to the next
    int64_t vec = 0;           // elements per 16-byte chunk
    int64_t rows_per_key = 1;  // rows sharing one XOR key (128-byte lines of short rows)
    int64_t mask = 0;
    bool panels = false;
};
SmemSwizzle smem_swizzle(int64_t cols, int elem_bytes, bool panels_layout);

}  // namespace tp::codegen
