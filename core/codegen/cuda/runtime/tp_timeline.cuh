// Measured timelines of pipelined loops (`tilec run --timeline`, pass config tp.timeline=true):
// transform/timeline_stamps.cpp brackets each pipeline event of a warp role (TMA load, ring
// acquire, mbarrier wait, wgmma issue and wait, cp.async wait, barriers, releases...) with
// tp::tl_now() and tp::tl_record(), which keep %globaltimer at its start, its duration, the event
// and the SM in a module-wide __device__ buffer the runner reads back with cuModuleGetGlobal.
// Bounded: kBlocks sampled blocks (spread over the grid), kRoles lanes each, kCapacity records
// per lane (later events are counted, not kept). Each lane has one recording thread (no atomics):
// a role's first thread, and for the consumers the first thread of each of their warpgroups, so
// a second or third consumer warpgroup that waits longer than the first shows on its own lane.
// Nothing the kernel computes reads the buffer, so stamps cannot change results. The constants
// are read on the host too (core/pipeline_view's decoder).
#pragma once

namespace tp {
namespace tl {

constexpr int kBlocks = 4;       // sampled blocks: those at 0, 1/4, 1/2 and 3/4 of the grid
// Lanes per block: 0 the block or the first consumer warpgroup, 1 the producer, 2 and 3 the
// second and third consumer warpgroups (consumer warpgroup g >= 1 in lane g + 1).
constexpr int kRoles = 4;
constexpr int kCapacity = 512;  // records per lane: the buffer stays the size it had with 2 lanes
constexpr int kWarpgroup = 128;  // threads of a warpgroup: the stride between a role's recorders
constexpr int kLanes = kBlocks * kRoles;
// Buffer layout in 64-bit words: the record count of each lane, the sampled block of each slot
// (its linear index + 1; 0 when none ran), then each lane's records of two words:
//   [0] %globaltimer at the event's start (ns)
//   [1] duration in ns (low 32 bits, saturated) | event id << 32 (16 bits) | %smid << 48 (16 bits)
constexpr int kCountsAt = 0;
constexpr int kBlocksAt = kLanes;
constexpr int kRecordsAt = kLanes + kBlocks;
constexpr int kWords = kRecordsAt + kLanes * kCapacity * 2;

}  // namespace tl
}  // namespace tp

#ifdef __CUDACC__

__device__ unsigned long long tp_timeline[tp::tl::kWords];

namespace tp {

__device__ __forceinline__ long long tl_now() {
    unsigned long long t;
    // The clobber keeps the event's memory operations between its two stamps.
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return (long long)t;
}

// The slot of this block among the sampled ones, or -1.
__device__ __forceinline__ int tl_slot() {
    const unsigned long long g = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    const unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    for (int s = 0; s < tl::kBlocks; ++s)
        if (b == (unsigned long long)s * g / tl::kBlocks) return s;
    return -1;
}

// Records event `event` of lane `role` that started at `t0` on the recording threads of a sampled
// block: `recorder` (the block's linear thread index that runs the role's events) for lane
// `role`, and with `groups` > 1 also recorder + 128 g, the first thread of the role's warpgroup
// g, for lane g + 1 (only the consumers, lane 0, have several).
__device__ __forceinline__ void tl_record(int role, int event, int recorder, int groups, long long t0) {
    const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int off = tid - recorder, group = off / tl::kWarpgroup;
    if (off < 0 || off % tl::kWarpgroup != 0 || group >= groups) return;
    const int slot = tl_slot();
    if (slot < 0) return;
    const long long t1 = tl_now();
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    const int lane = slot * tl::kRoles + (group == 0 ? role : group + 1);
    const unsigned long long n = tp_timeline[tl::kCountsAt + lane];
    if (n < (unsigned long long)tl::kCapacity) {
        unsigned long long* r = tp_timeline + tl::kRecordsAt + ((unsigned long long)lane * tl::kCapacity + n) * 2;
        const unsigned long long d = t1 > t0 ? (unsigned long long)(t1 - t0) : 0ull;
        r[0] = (unsigned long long)t0;
        r[1] = (d > 0xffffffffull ? 0xffffffffull : d) | ((unsigned long long)(event & 0xffff) << 32) | ((unsigned long long)(smid & 0xffff) << 48);
    }
    tp_timeline[tl::kCountsAt + lane] = n + 1;
    tp_timeline[tl::kBlocksAt + slot] = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z) + 1;
}

}  // namespace tp

#endif  // __CUDACC__
