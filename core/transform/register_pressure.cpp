// register_pressure (see register_pressure.h). After lowering a fragment is a per-thread
// array (T.alloc_local of its share), so its register footprint is that array's bytes / 4.
#include "transform/register_pressure.h"

#include <algorithm>
#include <vector>

#include "ir/functor.h"
#include "tileplay/inspect.h"

namespace tp::transform {

using namespace ir;

namespace {

struct PerThreadArray {
    const BufferNode* buffer = nullptr;
    int64_t registers = 0;
};

// The per-thread arrays of the lowered kernel with constant sizes, the largest first.
std::vector<PerThreadArray> per_thread_arrays(const PrimFunc& f) {
    struct Collect : IRVisitor {
        std::vector<PerThreadArray> out;
        void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
            if (n.buffer->scope == Scope::Local) {
                int64_t elems = 1;
                bool known = true;
                for (const auto& d : n.buffer->shape) {
                    auto c = as_const_int(d);
                    known = known && c;
                    if (c) elems *= *c;
                }
                if (known) out.push_back({n.buffer.get(), (elems * n.buffer->dtype.bytes() + 3) / 4});
            }
            IRVisitor::visit_Allocate(n, s);
        }
    } c;
    c.visit(f.body);
    std::stable_sort(c.out.begin(), c.out.end(), [](const auto& a, const auto& b) { return a.registers > b.registers; });
    return c.out;
}

// "`acc_o` (64), `acc_s` (32)": the arrays after the first that hold at least 8 registers.
std::string others(const std::vector<PerThreadArray>& arrays) {
    std::string s;
    for (size_t i = 1; i < arrays.size() && i < 4; ++i)
        if (arrays[i].registers >= 8) s += std::string(s.empty() ? "" : ", ") + "`" + arrays[i].buffer->name + "` (" + std::to_string(arrays[i].registers) + ")";
    return s.empty() ? "" : ", then " + s;
}

}  // namespace

int64_t per_thread_array_registers(const PrimFunc& lowered) {
    int64_t regs = 0;
    for (const auto& a : per_thread_arrays(lowered)) regs += a.registers;
    return regs;
}

void report_register_pressure(const PrimFunc& lowered, const ResourceUsage& ru, int64_t threads, const Target& target,
                              DiagnosticEngine& diags) {
    if (ru.registers < 0 || threads <= 0) return;
    const auto arrays = per_thread_arrays(lowered);
    const Span at = arrays.empty() ? lowered.span : arrays.front().buffer->span;
    const std::string biggest = arrays.empty() ? "" : "`" + arrays.front().buffer->name + "` holds " +
                                                          std::to_string(arrays.front().registers) + " registers per thread" + others(arrays);
    const int64_t spilled = std::max<int64_t>(ru.spill_store_bytes, 0), stack = std::max<int64_t>(ru.stack_bytes, 0);
    if (spilled > 0 || stack > 0) {
        std::string what = spilled > 0 ? "ptxas spilled " + std::to_string(spilled) + " bytes of registers to local memory"
                                       : "the kernel keeps " + std::to_string(stack) + " bytes per thread in local memory";
        diags.report(DiagKind::RegisterSpill, at,
                     {what, std::to_string(ru.registers), biggest.empty() ? "" : "; " + biggest,
                      "give each thread fewer elements: fewer rows per block, more threads, or stage the tile through shared memory"});
        return;
    }
    auto limits = sm_limits(target.name);
    if (!limits) return;
    OccupancyInput in;
    in.registers = ru.registers;
    in.threads_per_block = static_cast<int>(threads);
    in.smem_per_block = std::max<int64_t>(ru.static_shared_bytes, 0) + std::max<int64_t>(ru.dynamic_shared_bytes, 0);
    Occupancy o = compute_occupancy(*limits, in);
    if (!o.fits || o.occupancy > 0.25 || (o.limiter != "registers" && o.limiter != "shared memory")) return;
    // Warp-specialized kernels run one or two blocks to an SM by design; say it only for the others.
    if (lowered.attrs.count("tp.ws")) return;
    const std::string why = o.limiter == "registers"
                                ? std::to_string(ru.registers) + " registers per thread" + (biggest.empty() ? "" : " (" + biggest + ")")
                                : std::to_string(in.smem_per_block) + " bytes of shared memory per block";
    diags.report(DiagKind::OccupancyLimited, o.limiter == "registers" ? at : lowered.span,
                 {std::to_string(o.blocks_per_sm), std::to_string(o.warps_per_sm), std::to_string(o.max_warps_per_sm), why,
                  o.limiter == "registers" ? "fewer elements per thread or more threads raise it" : "fewer stages or smaller tiles raise it"});
}

}  // namespace tp::transform
