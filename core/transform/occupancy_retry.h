// occupancy_retry: when ptxas gives a memory-bound kernel so many registers per thread that
// at most a quarter of the SM's warps can be resident, how many blocks per SM (for up to half
// the warps) to ask for in a second compile (__launch_bounds__(T, B) caps the registers). A
// memory-bound kernel hides DRAM latency with warps in flight; ptxas, free to use 255
// registers, spends them on unrolled temporaries instead (a softmax row of 12000 fp32 on 256
// threads takes 108 registers, two blocks to an SM).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/compiler.h"

namespace tp::transform {

// The minimum blocks per SM to compile `traced` (the evaluated kernel, before passes) again
// with, most first (the first build that does not spill is kept), or none when a retry cannot
// help: the kernel has a T.gemm (Tensor-Core kernels
// size their registers on purpose), is warp-specialized, registers are not what limits it,
// more than a quarter of the warps are already resident, or the cap would leave its fragments too few
// registers. `tp.disable_occupancy_retry` switches it off.
std::vector<int> occupancy_retry_blocks(const ir::PrimFunc& traced, const ir::PrimFunc& lowered, const ResourceUsage& ru, int64_t threads,
                                        const Target& target);

}  // namespace tp::transform
