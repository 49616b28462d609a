// pipeline_loops: T.Pipelined(n, num_stages=S) as a software pipeline. The loop's global ->
// shared tile copies (tp::copy_g2s from lower_tile_ops) become producers into S copies of
// their shared tiles (a leading stage dim): S-1 tiles are issued before the loop, and each
// iteration waits for its tile (cp.async.wait_group S-2 + __syncthreads), issues the tile S-1
// iterations ahead into the stage freed by the previous iteration, and runs the rest of the
// body on stage k % S. Without producers, or with S < 2, the loop runs serially as written.
// sm_75 has no cp.async: there the producers are staged through registers into two buffers
// whatever S is (tp::copy_g2r of tile k+1 before the body, tp::copy_r2s into the other
// stage after it, one barrier per iteration), so the loads overlap the math.
#pragma once

#include "ir/ir.h"
#include "target.h"

namespace tp::transform {

ir::PrimFuncPtr pipeline_loops(const ir::PrimFuncPtr& func, const Target& target);

}  // namespace tp::transform
