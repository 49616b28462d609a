// occupancy_retry (see occupancy_retry.h).
#include "transform/occupancy_retry.h"

#include <algorithm>

#include "ir/functor.h"
#include "tileplay/inspect.h"
#include "transform/register_pressure.h"

namespace tp::transform {

using namespace ir;

namespace {

bool has_gemm(const PrimFunc& f) {
    struct Find : IRVisitor {
        bool found = false;
        void visit_GemmOp(const GemmOpNode&, const Stmt&) override { found = true; }
    } v;
    v.visit(f.body);
    return v.found;
}

}  // namespace

std::vector<int> occupancy_retry_blocks(const PrimFunc& traced, const PrimFunc& lowered, const ResourceUsage& ru, int64_t threads,
                                        const Target& target) {
    if (ru.registers <= 0 || threads <= 0 || ru.spill_store_bytes > 0 || ru.stack_bytes > 0) return {};
    if (lowered.attrs.count("tp.ws") || lowered.attrs.count("tp.disable_occupancy_retry") || lowered.attrs.count("tp.min_blocks_per_sm")) return {};
    if (has_gemm(traced)) return {};
    auto limits = sm_limits(target.name);
    if (!limits) return {};
    OccupancyInput in;
    in.registers = ru.registers;
    in.threads_per_block = static_cast<int>(threads);
    in.smem_per_block = std::max<int64_t>(ru.static_shared_bytes, 0) + std::max<int64_t>(ru.dynamic_shared_bytes, 0);
    const Occupancy o = compute_occupancy(*limits, in);
    // At most a quarter of the warps, where register_pressure's OccupancyLimited remark starts:
    // a 8192-wide softmax row at 24 of 64 warps already ran at the bandwidth roof.
    if (!o.fits || o.limiter != "registers" || 4 * o.warps_per_sm > o.max_warps_per_sm) return {};
    // Blocks for half the SM's warps, as far as shared memory, threads and the block limit
    // allow; then fewer, down to one more than now, each a looser register cap.
    const int warps_per_block = static_cast<int>((threads + limits->warp_size - 1) / limits->warp_size);
    const int want = (o.max_warps_per_sm / 2 + warps_per_block - 1) / warps_per_block;
    const int most = std::min({want, o.by_shared_memory, o.by_threads, o.by_blocks});
    const int64_t fragments = per_thread_array_registers(lowered);
    std::vector<int> out;
    for (int blocks = most; blocks > o.blocks_per_sm; --blocks) {
        // The cap __launch_bounds__(T, blocks) implies must leave the fragments room for the
        // addresses and temporaries around them, or ptxas would spill.
        const int64_t cap = std::min<int64_t>(limits->max_regs_per_thread, limits->regs_per_sm / (int64_t{blocks} * threads) / 8 * 8);
        if (cap >= 32 && fragments + 24 <= cap && cap < ru.registers) out.push_back(blocks);
    }
    return out;
}

}  // namespace tp::transform
