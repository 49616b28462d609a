// Internal to the sm_90a GEMM warp specialization, split in two files by when it runs:
//   warp_specialize_plan.cpp  plan_warp_specialized, the tile-level match before layout-inference
//   warp_specialize.cpp       warp_specialize, the rewrite of the lowered loop into tp::WsGemm
// Both look at the same statement list under the launch's allocations, the first to choose a
// plan and the second to carry it out, so they share these helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/functor.h"

namespace tp::transform::ws_gemm {

// The moved code names IR types unqualified, as every transform source does; the directive stays
// inside this internal namespace.
using namespace ir;

// Staging panels (64 x 64 each) per consumer warpgroup of the subtiled TMA-store epilogue,
// tp::WsGemm::kStoreBufs: two, so one panel's bulk store drains while the next is written.
// The number of blocks a persistent kernel was launched with (gridDim.x): the launcher sizes
// the grid from the device's SM count, so the code must not assume the target table's.
inline Expr num_programs(Span sp) { return make_call("tp.num_programs", {}, DataType::int32(), sp); }

inline int64_t ws_store_buffers(int64_t bn) { return bn / 64 < 2 ? bn / 64 : 2; }

// The constant (rows, cols) of a 2-D buffer.
std::optional<std::pair<int64_t, int64_t>> shape_2d(const Buffer& b);

// Rewrites the statement list under the launch's allocations: `top` sees the list and returns
// its replacement (or null to keep everything).
class TopRewriter : public IRMutator {
public:
    std::function<Stmt(const Stmt&)> top;
    std::function<KernelLaunchNode(const KernelLaunchNode&)> relaunch;
    bool done = false;

    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        Stmt body = descend(n.body);
        if (!done) return s;
        KernelLaunchNode k = relaunch(n);
        return std::make_shared<KernelLaunchNode>(k.grid, k.block_vars, k.threads, k.thread_vars, body, n.span);
    }
    Stmt descend(const Stmt& s) {
        if (auto* a = s->as<AllocateNode>()) {
            Stmt b = descend(a->body);
            return b == a->body ? s : std::make_shared<AllocateNode>(a->buffer, a->init, b, a->span);
        }
        if (auto* l = s->as<LetStmtNode>()) {
            Stmt b = descend(l->body);
            return b == l->body ? s : std::make_shared<LetStmtNode>(l->var, l->value, b, l->span);
        }
        if (done) return s;
        Stmt r = top(s);
        if (!r) return s;
        done = true;
        return r;
    }
};

// A block_K = 32 T.Pipelined loop rewritten to walk 64-wide K tiles (warp_specialize_coarsen.cpp):
// the new loop, its gemm, and the shared tiles it replaced (old -> (rows, 64) / (64, cols)).
struct CoarsenedK {
    std::shared_ptr<ForNode> loop;
    const GemmOpNode* gemm = nullptr;
    std::map<const BufferNode*, Buffer> rebind;
};
std::optional<CoarsenedK> coarsen_k_pairs(const ForNode& loop, const GemmOpNode& g, const CopyOpNode& ca, const CopyOpNode& cb);
// Every use of a buffer in `map` (allocations included) replaced by its new buffer.
Stmt rebind_buffers(const Stmt& s, const std::map<const BufferNode*, Buffer>& map);

// A vector operand of the epilogue (warp_specialize_prefetch.cpp): an unconditional `load` in
// the fragment loop epilogue[stmt] from a tensor the kernel never writes, indexed through the
// loop's layout variable `var` (defined by `var_def` from the thread index and the loop
// variable) besides variables bound outside the tile; over warpgroup w's threads and the loop
// `var` takes the values [lo0 + w * delta, lo0 + w * delta + size).
struct EpilogueVector {
    Expr load;
    std::string key;  // the load's text: equal loads of one loop are one vector
    Var var;
    Expr var_def;
    int64_t lo0 = 0, delta = 0, size = 0;
    size_t stmt = 0;
};
std::vector<EpilogueVector> find_epilogue_vectors(const PrimFunc& func, const std::vector<Stmt>& tile,
                                                  const std::vector<Stmt>& epilogue, const Expr& tid, int consumers);
// `e` with the variables in `values` replaced.
Expr substitute(const Expr& e, const std::map<const VarNode*, Expr>& values);

// The epilogue's vector operands (bias[bx * BN + j] and the like) read from shared memory,
// loaded into registers as the tile starts (warp_specialize_prefetch.cpp). `tile` is every
// statement of one consumer tile (variables bound there are not known at its start), `epilogue`
// the statements after the main loop, `room` the shared bytes still free.
struct EpiloguePrefetch {
    std::vector<Buffer> buffers;                 // per-warpgroup shared vectors to allocate
    std::vector<std::pair<Var, Expr>> loads;     // registers loaded at the tile's start
    Stmt park;                                   // registers -> shared, between warpgroup barriers
    std::vector<Stmt> epilogue;                  // `epilogue` reading the shared vectors
    int64_t bytes = 0;
};
std::optional<EpiloguePrefetch> prefetch_epilogue_vectors(const PrimFunc& func, const std::vector<Stmt>& tile,
                                                          const std::vector<Stmt>& epilogue, const Expr& tid, int consumers,
                                                          int64_t room);

// The bias the epilogue adds first to the accumulator, folded into its starting value on a
// persistent grid (warp_specialize_fold.cpp). `walk` gives the tile-position variables' values
// for the block's first tile and for the tile after the current one (when has_next); `pre`
// holds the tile's statements before the main loop, with T.clear(acc) among them.
struct TileWalk {
    std::map<const VarNode*, Expr> first, next;
    Expr has_next;
};
struct BiasFold {
    Buffer vec;                                // float32 copy, shared by the consumer warpgroups
    Stmt prologue;                             // before the tile loop: the first tile's vector
    std::vector<std::pair<Var, Expr>> loads;   // the next tile's vector, loaded as a tile starts
    std::vector<Stmt> pre;                     // `pre` with the clear turned into the fill
    Stmt park;                                 // after the main loop: the next tile's vector
    std::vector<Stmt> epilogue;                // `epilogue` without the add
    int64_t bytes = 0;
};
std::optional<BiasFold> fold_epilogue_bias(const PrimFunc& func, const std::vector<Stmt>& tile, const std::vector<Stmt>& pre,
                                           const Buffer& acc, const std::vector<Stmt>& epilogue, const Expr& tid, int consumers,
                                           const TileWalk& walk, int64_t room);

}  // namespace tp::transform::ws_gemm
