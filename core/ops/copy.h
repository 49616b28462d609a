// T.copy as an object the passes ask: the regions it reads and writes, and whether a global ->
// shared tile copy can be issued by the tensor memory accelerator (TMA) on a target, and if so
// the box, swizzle, coordinates and byte count of the loads that implement it, or why not (said
// at the T.copy line as a remark when the copy stays with the threads that run the tile code).
// Its CUDA forms are in codegen/cuda/ops/copy.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ops/access.h"
#include "target.h"

namespace tp::ops {

// Reads the source region, writes the destination; a stage producer (a T.Pipelined loop keeps
// num_stages copies of a shared tile it fills).
OpAccess access(const ir::CopyOpNode& c);

// One T.copy(global region -> whole shared tile) as TMA box loads. The shared tile is rows x
// cols (a 1-D tile is one row) in the layout layout_inference gave it; TMA writes exactly that
// layout: rows of 32, 64 or 128 bytes with the matching swizzle, 128-byte panels of a wider
// tile (one box per panel), or plain rows.
struct TmaLoadPlan {
    bool ok = false;
    std::string why;               // why not, for the remark
    int swizzle_bytes = 0;         // 0, 32, 64 or 128
    int64_t rows = 0, cols = 0;    // the shared tile
    int64_t box_cols = 0;          // elements per box row: a panel's width, or cols
    int64_t boxes = 1;             // box loads per tile (panels)
    std::vector<int64_t> box;      // box extents, innermost dim first, one per tensor dim
    std::vector<ir::Expr> coords;  // element coordinates of the tile origin, innermost first
    int64_t bytes = 0;             // bytes one tile brings: the mbarrier's transaction count
    int64_t box_elems() const { return bytes / boxes; }
};

// Whether `c` can be TMA loads on `target` (needs sm_90, a global source tensor whose rows are
// 16-byte multiples, constant tile extents that pair with the shared tile's rows and columns,
// at most 256 rows, a layout TMA can write, and no disable_tma).
TmaLoadPlan plan_tma_load(const ir::CopyOpNode& c, const Target& target);

// One T.copy(whole fragment -> global region) as TMA stores of 64-row panels of 128 bytes
// (128-byte swizzle), staged through shared memory by each warpgroup (tp::frag_store_tma).
struct TmaStorePlan {
    bool ok = false;
    std::string why;               // why not, for the remark
    int64_t panel_cols = 0;        // elements per 128-byte panel row
    std::vector<int64_t> box;      // {panel_cols, .., 64, ..}, innermost first
    std::vector<ir::Expr> coords;  // element coordinates of the tile origin, innermost first
    int row_coord = 0;             // which coordinate the tile's rows run along
};
// Whether `c`, storing a rows x cols fragment, can be TMA stores on `target` (sm_90, a 16- or
// 32-bit global tensor TMA can describe, whole 64-row, 128-byte panels).
TmaStorePlan plan_tma_store(const ir::CopyOpNode& c, const Target& target, int64_t rows, int64_t cols);

// The tensor-map entry "param:box:swizzle" for the launcher (transform/producer_consumer.h's
// tensor_maps_of reads these back), box innermost first as AxBxC.
std::string tensor_map_key(const std::string& param, const std::vector<int64_t>& box, int swizzle_bytes);
std::string tensor_map_key(const std::string& param, const TmaLoadPlan& p);

}  // namespace tp::ops
