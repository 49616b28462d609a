// Theoretical occupancy: how many blocks of a kernel fit on one SM given its registers per
// thread, threads per block and shared memory per block, following the allocation rules of
// NVIDIA's occupancy calculator (registers per warp in 256-register units from one of four
// sub-partitions, shared memory in 128-byte units plus 1 KB the driver reserves per block).
#include <algorithm>
#include <climits>

#include "target.h"
#include "tileplay/inspect.h"

namespace tp {

namespace {

int64_t round_up(int64_t x, int64_t unit) { return unit <= 0 ? x : (x + unit - 1) / unit * unit; }

}  // namespace

std::optional<SmLimits> sm_limits(const std::string& target) {
    std::optional<Target> t = parse_target(target);
    if (!t) return std::nullopt;
    SmLimits l;
    l.target = t->name;
    l.regs_per_sm = t->regs_per_sm;
    l.smem_per_sm = t->smem_per_sm;
    l.max_smem_per_block = t->max_smem_per_block;
    l.max_threads_per_sm = t->max_threads_per_sm;
    l.max_blocks_per_sm = t->max_blocks_per_sm;
    // Turing allocates shared memory in 256-byte units and reserves none per block.
    l.smem_alloc_unit = t->sm >= 80 ? 128 : 256;
    l.reserved_smem_per_block = t->sm >= 80 ? 1024 : 0;
    return l;
}

Occupancy compute_occupancy(const SmLimits& L, const OccupancyInput& in) {
    Occupancy o;
    o.max_warps_per_sm = L.max_threads_per_sm / L.warp_size;
    if (in.threads_per_block <= 0) {
        o.why = "the block has no threads";
        return o;
    }
    if (in.threads_per_block > L.max_threads_per_block) {
        o.why = std::to_string(in.threads_per_block) + " threads per block exceed the limit of " +
                std::to_string(L.max_threads_per_block);
        return o;
    }
    const int warps = (in.threads_per_block + L.warp_size - 1) / L.warp_size;

    o.by_threads = o.max_warps_per_sm / warps;
    o.by_blocks = L.max_blocks_per_sm;

    if (in.registers > L.max_regs_per_thread) {
        o.why = std::to_string(in.registers) + " registers per thread exceed the limit of " +
                std::to_string(L.max_regs_per_thread);
        o.by_registers = 0;
    } else if (in.registers <= 0) {
        o.by_registers = INT_MAX;
    } else {
        const int64_t per_warp = round_up(int64_t(in.registers) * L.warp_size, L.reg_alloc_unit);
        // The hardware checks a block as if its warps were spread over every sub-partition.
        const int64_t per_block_assumed = per_warp * round_up(warps, L.sub_partitions);
        if (per_block_assumed > L.max_regs_per_block) {
            o.why = std::to_string(in.registers) + " registers x " + std::to_string(in.threads_per_block) +
                    " threads exceed the " + std::to_string(L.max_regs_per_block) + " registers of a block";
            o.by_registers = 0;
        } else {
            const int64_t warps_per_sub = (L.regs_per_sm / L.sub_partitions) / per_warp;
            o.by_registers = static_cast<int>(warps_per_sub * L.sub_partitions / warps);
        }
    }

    o.smem_allocated_per_block = round_up(in.smem_per_block + L.reserved_smem_per_block, L.smem_alloc_unit);
    if (in.smem_per_block > L.max_smem_per_block) {
        if (o.why.empty())
            o.why = std::to_string(in.smem_per_block) + " bytes of shared memory exceed the " +
                    std::to_string(L.max_smem_per_block) + " a block may use";
        o.by_shared_memory = 0;
    } else if (o.smem_allocated_per_block == 0) {
        o.by_shared_memory = INT_MAX;
    } else {
        o.by_shared_memory = static_cast<int>(L.smem_per_sm / o.smem_allocated_per_block);
    }

    o.blocks_per_sm = std::min({o.by_registers, o.by_shared_memory, o.by_threads, o.by_blocks});
    o.fits = o.blocks_per_sm > 0;
    o.warps_per_sm = o.blocks_per_sm * warps;
    o.occupancy = o.max_warps_per_sm ? double(o.warps_per_sm) / o.max_warps_per_sm : 0;
    // Every resource that alone allows exactly the resident count limits it; named in the
    // order a user can act on them (registers and shared memory first).
    const std::pair<int, const char*> limits[] = {{o.by_registers, "registers"},
                                                  {o.by_shared_memory, "shared memory"},
                                                  {o.by_threads, "threads"},
                                                  {o.by_blocks, "blocks per SM"}};
    for (const auto& [n, name] : limits)
        if (n == o.blocks_per_sm) o.limiter += (o.limiter.empty() ? "" : ", ") + std::string(name);
    if (!o.fits && o.why.empty()) o.why = "one block exceeds the " + o.limiter + " of an SM";
    return o;
}

}  // namespace tp
