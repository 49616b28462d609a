// The shared-memory budget in one place: the bytes a kernel's shared allocations take laid
// out as the code generator lays them out (program order; 1024-byte aligned tiles where TMA
// or wgmma read them, 16 otherwise), and the most a block may have on a target. Passes that
// add shared buffers size them against it; check_shared_budget re-checks the final kernel.
#pragma once

#include <cstdint>
#include <map>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Whether codegen aligns this kernel's tiles to 1024 bytes (warp-specialized or wgmma kernels).
bool aligned_shared_tiles(const ir::PrimFunc& f);

// Bytes of the kernel's shared allocations; `scale` multiplies a buffer's size (ring depths a
// pass is about to give it). Buffers with symbolic shapes count as zero (codegen reports them).
int64_t shared_bytes(const ir::PrimFunc& f, bool aligned, const std::map<const ir::BufferNode*, int64_t>& scale = {});

// The most `shared_bytes` may be: the target's per-block maximum, less the 1024 bytes the
// kernel spends aligning its dynamic allocation when `aligned`.
int64_t shared_limit(const Target& t, bool aligned);

// Reports SharedMemoryExceeded at the kernel when its laid-out shared memory exceeds the limit.
bool check_shared_budget(const ir::PrimFunc& f, const Target& t, DiagnosticEngine& diags);

}  // namespace tp::transform
