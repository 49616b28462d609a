// insert_syncs: places __syncthreads() where one thread may touch shared memory another thread
// wrote (read-after-write) or may overwrite what another thread still reads (write-after-read),
// tracking per shared buffer the reads and writes since the last barrier. A whole T.Parallel
// nest, a template call or a thread-dependent branch is one step; serial loops are followed
// around their back edge. The cp.async producers of a software pipeline (tp.call_async) are
// published by the pipeline's own wait + barrier. Never places a barrier under a
// thread-dependent branch. Fragments are registers by now and need no barriers.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr insert_syncs(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
