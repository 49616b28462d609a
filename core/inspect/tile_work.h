// The work a kernel does, counted on its Tile IR as written: floating-point operations of its
// T.gemm tiles and bytes its tile copies, atomics and element accesses move to and from global
// memory, each times the trip counts of the loops around it and the blocks of its launch. It
// backs tilelang.tools.Analyzer (through the C ABI) and needs no GPU and no header lines. What
// the IR cannot say exactly (a loop of a runtime trip count, a branch on data) is counted as
// once / both sides and the result says it is an estimate.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace tp {

struct TileWork {
    double flops = 0;         // 2 * M * N * K per T.gemm execution
    double global_bytes = 0;  // bytes read plus bytes written in global memory
    bool exact = true;        // false when a trip count or a branch had to be assumed
    std::vector<std::string> assumptions;  // what was assumed, with the DSL line
};

TileWork count_tile_work(const ir::PrimFunc& f);

}  // namespace tp
