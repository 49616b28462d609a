// merge_async_waits: tile copies into shared memory that follow one another outside a
// software pipeline (a layer norm's row, gamma and beta; a kernel's Q and bias tiles) each end
// in cp.async commit + wait_group 0, so every copy waits out the memory latency before the
// next one is even issued. Where one tp::copy_g2s call directly follows another's wait, that
// wait goes: both copies are in flight together and the later commit + wait covers both. A
// copy reads only global memory, so it never needs the earlier one to have landed; copies into
// the same buffer are left alone. Runs on the lowered IR, after pipeline_loops has taken the
// copies of T.Pipelined loops.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr merge_async_waits(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
