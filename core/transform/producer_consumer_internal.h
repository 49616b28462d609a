// Internal to producer_consumer (see producer_consumer.h), split by when it runs:
//   producer_consumer.cpp          finds the channels and checks that the kernel can take them
//   producer_consumer_rewrite.cpp  builds the producer's and the consumers' code
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/functor.h"
#include "ops/copy.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform::pc {

using namespace ir;

// One global -> shared T.copy the producer issues with TMA.
struct Channel {
    const CopyOpNode* copy = nullptr;
    Buffer tile;        // the shared tile as allocated
    Buffer ring;        // [depth, tile dims...] when depth > 1, else the tile itself
    int depth = 1;      // ring slots: num_stages inside a T.Pipelined loop, else one
    ops::TmaLoadPlan tma;
    int map = 0;        // index of its tensor map among the kernel's
    int bar = 0;        // its first full barrier; its empty barriers follow the full ones
    // Copies consumed together (adjacent in the loop body, first read by the same statement)
    // share one ring position and one full/empty barrier pair per slot: the first of them,
    // the leader, owns the barriers and counters, waits for all and releases all; the last
    // advances the producer's position. A channel alone is its own leader and last.
    size_t leader = 0;
    bool last = true;
    int64_t group_bytes = 0;  // the leader's: bytes the group's loads bring into one slot
    // With consumer groups: the tile differs between the groups' logical blocks (its source
    // depends on the group axis), so each slot holds one tile per group, loaded one by one.
    bool per_group = false;
    // The consumers read the tile through the generic proxy (ld.shared, copies into registers),
    // not only as wgmma operands: its release fences those reads against TMA's refill.
    bool generic_reads = false;
};

// Consumer groups (see ir::WarpRolesNode): `count` logical blocks along block axis `axis` run
// as one launched block of `count` consumer warpgroups and one producer, which loads each
// tile the logical blocks share once. Shared buffers of the consumers other than the shared
// channels' tiles become one copy per group, [count, dims...], indexed by `var`.
struct Groups {
    int64_t count = 1;
    int axis = 0;
    int64_t threads = 0;                          // per group
    Var var;                                      // the consumer's group index
    Var block_var;                                // the launch's block variable on the axis
    std::map<const BufferNode*, Buffer> stacked;  // a group-owned buffer -> its [count, ...] form
    bool on() const { return count > 1; }
};

struct Plan {
    std::vector<Channel> channels;
    std::map<const CopyOpNode*, size_t> by_copy;  // channel index by copy, once the channels are collected
    std::vector<std::string> maps;  // tensor-map keys (ops::tensor_map_key), by index
    int64_t consumer_threads = 0;
    int consumer_regs = 0, producer_regs = 0;
    int blocks_per_sm = 1;          // __launch_bounds__'s minimum blocks per SM (see register_split)
    int64_t shared_bytes = 0;       // laid out, rings included (size_rings)
    int barriers = 0;               // full + empty, all channels
    Expr tid;                       // the launch's thread index
    bool turns = true;              // consumer warpgroups may take turns (`tp.disable_pingpong`)
    bool defer = true;              // a loop's last wgmma group may run on (`tp.disable_async_wgmma`)
    std::set<const ForNode*> deferred;  // loops whose last wgmma group runs across the back edge
    bool rotate = true;             // consumer loops may be software-pipelined (`tp.disable_rotation`)
    // A persistent grid (`tp.persistent`): one block per SM (the launcher caps grid x), each
    // role walking the work units pid, pid + gridDim.x, ... with the original block indices
    // bound per unit, so the producer fills the next unit's ring slots while the consumers
    // run this unit's epilogue.
    struct Persistent {
        bool on = false;
        std::vector<Expr> grid;         // the original grid
        std::vector<Var> block_vars;    // bound per unit
        Var pid;                        // the launched block's index
        int panel = 0;                  // T.use_swizzle's rasterization, 0 when none
        bool column_order = false;
        // A block axis whose loops' trip counts grow with its index (causal attention): a work
        // unit is then the pair of blocks c and G - 1 - c on it, which together do the same
        // work for every c, so a fixed walk stays balanced. -1 when units are single blocks.
        int paired_axis = -1;
    } persistent;
    Groups groups;
};

// --- the scan (producer_consumer_scan.cpp) --------------------------------------------------
// Every global -> shared copy of the kernel, with the plan TMA would use and why (empty when
// nothing stops it) the producer cannot issue it: control flow or indices it cannot follow.
struct Candidate {
    const CopyOpNode* copy = nullptr;
    const ForNode* pipeline = nullptr;  // the innermost enclosing loop when it is T.Pipelined
    ops::TmaLoadPlan tma;
    std::string why;
};
struct Scan {
    std::vector<Candidate> copies;
    std::vector<const ForNode*> pipelines;  // every T.Pipelined loop, outermost first
};
Scan scan_copies(const PrimFunc& func, const Stmt& top, const Target& target);

// The launch and the statements under its allocations and bindings.
struct Launch {
    const KernelLaunchNode* node = nullptr;
    Stmt top;
};
Launch find_launch(const Stmt& body);
bool has_tile_print(const Stmt& s);

// Why the consumers' uses of a candidate's tile rule it out (empty when they do not): only the
// statements after the copy in its own list may read the tile, and none may write it.
std::string check_uses(const Candidate& c, const Stmt& top);

// Shared-memory references a statement makes to `b` (loads, stores, addresses, tile-op
// regions), not counting allocations and layout annotations.
int64_t references(const Stmt& s, const BufferNode* b);
// Whether a statement writes `b` (stores, written addresses, tile-op destinations).
bool writes(const Stmt& s, const BufferNode* b);

// The wait (tp.async_wait) ending a loop body whose wgmma group may keep running across the
// back edge: nothing else in the body touches the registers it names, and the tiles it names
// are `ring_tiles` (ring slots stay reserved until it is released). Null when there is none.
const CallNode* deferrable_tail(const std::vector<Stmt>& body, const std::set<const BufferNode*>& ring_tiles);

// A loop software-pipelined by one stage (producer_consumer_rotate.cpp). The loop runs from
// the second iteration k: its statements up to its first wgmma issue, iteration k-1's last
// group (the statements that update its accumulator, the copies it reads, the issue), the
// rest of iteration k, then the wait for k-1's group. The first iteration without its last
// group is peeled before the loop, the last iteration's last group after it (a wgmma under a
// branch would make ptxas serialize every wgmma of the kernel). The wait for k-1's group comes
// before the first statement of iteration k that touches what that group names. after_tail
// marks the body's waits for iteration k's first group that come before it: they now have
// k-1's group committed after theirs.
struct Rotation {
    std::vector<Stmt> prologue, body, epilogue;
    std::vector<bool> after_tail;
    bool maybe_empty = true;  // the loop may run no iteration: guard the peeled parts
};
// Moves the channel copies (tiles in `movable`) that follow the loop body's first wgmma group,
// and that the group does not read, above that group when it reads registers the loop never
// writes (an operand hoisted out of the loop): the consumers then wait for every tile before
// the first issue. With such a wait (an mbarrier spin loop) between that group and a later
// register-operand group, ptxas 13.0 gave the loop-invariant registers to values computed
// later (TileLang's example_mha_bwd_bhsd flashattn_fwd read P back as Q: rel. error 0.79 on
// the H200, SASS in docs/tensorcore-templates.md); with the waits first the loop has the shape
// of the attention kernels that run correctly.
void wait_channels_first(std::vector<Stmt>& body, const std::set<const BufferNode*>& movable);

// False with `why` set when the loop has the two groups rotation is for but cannot be rotated
// (a remark at the loop), false with `why` empty when it does not apply at all.
bool rotate_body(const ForNode& loop, const std::vector<Stmt>& body, const std::set<const BufferNode*>& channel_tiles, Rotation& out,
                 std::string& why);

// --- consumer groups (producer_consumer_groups.cpp) -----------------------------------------
// Whether the block's one consumer warpgroup should become several groups along a block axis,
// and the plan when so: empty when planned (plan.groups set, channels marked per_group), else
// why not; nullopt when groups do not apply at all (more than one consumer warpgroup...).
std::optional<std::string> plan_groups(Plan& plan, const PrimFunc& func, const KernelLaunchNode& k, const Stmt& top, const Target& target);
// The shared-memory multiplier of each buffer the groups stack or rings hold (for shared_bytes).
std::map<const BufferNode*, int64_t> ring_and_group_scale(const Plan& plan);
// The consumers' code with each group-owned buffer read and written through its group's copy.
Stmt group_owned_accesses(const Stmt& consumer, const Plan& plan);
// Whether a binding between the launch and its statements (allocation shapes, lets) reads
// one of `vars`; index_used_above asks it of the block and thread indices.
bool bindings_read(const KernelLaunchNode& k, const std::vector<Var>& vars);
bool index_used_above(const KernelLaunchNode& k);
// Whether a loop bound or branch condition around a channel copy reads one of `vars` (or a
// binding derived from them): the producer's work then differs from block to block.
bool channel_control_reads(const Plan& plan, const Stmt& top, const std::vector<Var>& vars);

// --- persistent grids (producer_consumer_persistent.cpp) ------------------------------------
// Whether the kernel walks its work units on a persistent grid, and the plan when so:
// `tp.persistent=true` asks for it (a remark says why when it cannot), `=false` switches it
// off; unset, it is taken where every unit does the same work and the grid is deeper than one
// wave, with a remark at the T.Kernel line either way.
// Whether `tp.persistent` asks for a persistent grid (true or 1); consumer groups then stand aside.
bool persistent_asked(const PrimFunc& func);
// The persistent walk's work units: the grid's blocks, or its pairs along the paired axis.
Expr persistent_units(const Plan::Persistent& p);
// The grid with the paired axis halved (ceil(G / 2) pairs), as the walk numbers its units.
std::vector<Expr> persistent_unit_grid(const Plan::Persistent& p);
void choose_persistent(Plan& plan, const PrimFunc& func, const KernelLaunchNode& k, const Stmt& top, const Target& target, DiagnosticEngine& diags);

// The kernel body rebuilt: under the launch's allocations (channel tiles become their rings)
// the barriers are initialised, then a WarpRoles node runs the producer and the consumers.
Stmt rewrite_kernel_body(const Stmt& top, const Plan& plan, Span span, DiagnosticEngine& diags);

}  // namespace tp::transform::pc
