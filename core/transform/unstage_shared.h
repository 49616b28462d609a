// unstage_shared: shared buffers that only relay global memory to and from element-wise code,
// at the top level of a kernel, are bypassed. Two forms, each exact:
//   - a T.copy of a global tile the kernel never writes into a whole shared buffer, read only by
//     element loads until the buffer is next overwritten whole: the loads read the global tile
//     (zero outside the tensor, as the copy gives), and the copy goes;
//   - a T.Parallel nest that writes a whole shared buffer, whose next use is one T.copy of it
//     to a global tile the kernel never reads: the nest stores to the global tile (guarded at
//     the tensor's edges, as the copy is), and the copy goes.
// Staging costs a block barrier, a round trip through shared memory and the shared memory itself,
// which limits how many blocks an SM holds: TileLang's layernorm stages X, gamma and beta (48 KB
// a one-row block) and runs at half occupancy. Loads that would read each global element more
// than once, and loops on T.gemm operands (whose staging makes stores coalesced or feeds TMA),
// keep their staging. It runs where shared memory limits how many blocks an SM holds (the target's
// limits): elsewhere staging costs little. `tp.unstage_shared=true` runs it on every kernel,
// `false` on none.
#pragma once

#include "ir/ir.h"
#include "target.h"

namespace tp::transform {

ir::PrimFuncPtr unstage_shared(const ir::PrimFuncPtr& func, const Target& target);

}  // namespace tp::transform
