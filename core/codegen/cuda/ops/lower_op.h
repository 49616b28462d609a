// The CUDA lowering of each tile op, one op a file beside this header (fill.cpp, copy.cpp,
// print.cpp, gemm.cpp, reduce.cpp, atomic.cpp): each op knows its own forms per target
// (mma.sync, wgmma, cp.async, TMA, per-thread loops, template calls). Two passes walk the
// kernel and hand them each op with what they know where it sits:
//   - layout_inference's rewrite (transform/lower_fragments*.cpp), for the ops that touch
//     fragments: a FragmentLowering holds the layouts, the register arrays fragments become,
//     the wgmma plans and what the ops add to the launch (scratch, staging, print tiles);
//   - lower_tile_ops, for the shared and global tiles left after it: a ThreadLowering.
// A fragment lowering returns the statement that replaces the op, null when the op is not one
// it lowers (the pass walks it as usual), or the op itself after reporting why it cannot.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ops/gemm.h"
#include "target.h"
#include "tileplay/diagnostics.h"
#include "transform/fragment_layout.h"

namespace tp::codegen::cuda {

// The state of layout_inference's rewrite that the op lowerings read and add to; the pass
// (transform::frag_lowering::FragLowerer) is one, and rewrites what the ops hand back.
class FragmentLowering {
public:
    DiagnosticEngine& diags;
    std::map<const ir::BufferNode*, transform::FragLayout> layouts;
    std::map<const ir::BufferNode*, ir::Buffer> replaced;  // fragment -> local array, gemm tile -> swizzled
    std::map<const ir::GemmOpNode*, ops::WgmmaPlan> wgmma;  // gemms lowered to wgmma (sm_90a)
    ir::Expr tid;
    int64_t threads = 0;
    bool one_dim_block = true;
    ir::Buffer scratch;  // shared floats for reductions across warps (reduce_scratch sizes it)
    // TMA-store epilogues (sm_90): set when the target has TMA, the kernel's shared memory
    // leaves room for the staging and nothing disables it; the kernel's parameters (a tensor
    // map needs one) and the maps the stores use, in the order of their tp.tma_desc indices.
    const Target* target = nullptr;
    bool tma_store = false;
    std::string tma_store_why;  // why not, when the kernel leaves no room
    std::set<const ir::BufferNode*> params;
    std::vector<std::string> tma_maps;
    std::set<const ir::BufferNode*> tma_stored;    // parameters only TMA stores may write
    std::set<const ir::BufferNode*> read_globals;  // global tensors the kernel reads somewhere
    ir::Buffer store_stage;
    // T.print of a fragment: staged through a shared tile of the same shape, which the code
    // generator prints row-major from one thread (the same text the CPU interpreter gives).
    std::vector<ir::Buffer> print_tiles;
    // Registers an RS wgmma's packed A operand occupies while its group runs (one per gemm).
    std::vector<ir::Buffer> packed_operands;
    // 16-bit fragments kept as packed pairs (uint32 words): read only as RS wgmma operands and
    // written only by conversions from float fragments, so the operand needs no packing at
    // issue time and no conversion happens inside the group's pipeline stage.
    std::set<const ir::BufferNode*> packed;

    explicit FragmentLowering(DiagnosticEngine& d) : diags(d) {}
    virtual ~FragmentLowering() = default;

    const transform::FragLayout* layout_of(const ir::Buffer& b) const {
        auto it = layouts.find(b.get());
        return it == layouts.end() ? nullptr : &it->second;
    }
    // The buffer as the rewrite replaces it (a register array, a swizzled tile), else itself.
    ir::Buffer local_of(const ir::Buffer& b) const {
        auto it = replaced.find(b.get());
        return it == replaced.end() ? b : it->second;
    }
    void fail(const std::string& what, Span span) { diags.report(DiagKind::NotYetLowered, span, {what, "CUDA"}); }
    // for i in unroll(n): body(i)
    ir::Stmt local_loop(int64_t n, const std::string& name, const std::function<ir::Stmt(const ir::Expr&)>& body, Span span) {
        ir::Var v = std::make_shared<ir::VarNode>(name, ir::DataType::int32(), ir::VarKind::Loop, span);
        return std::make_shared<ir::ForNode>(v, ir::int_imm(0), ir::int_imm(n), n <= 256 ? ir::ForKind::Unrolled : ir::ForKind::Serial,
                                             body(v), span);
    }

    // The rewrite of what an op lowering builds from the user's code: an expression (the fill
    // value) or a statement (an element-wise copy nest over fragments).
    virtual ir::Expr rewrite(const ir::Expr& e) = 0;
    virtual ir::Stmt rewrite(const ir::Stmt& s) = 0;
};

ir::Stmt lower_fill(const ir::FillOpNode& n, const ir::Stmt& s, FragmentLowering& cx);
ir::Stmt lower_copy(const ir::CopyOpNode& n, const ir::Stmt& s, FragmentLowering& cx);
ir::Stmt lower_print(const ir::PrintOpNode& n, const ir::Stmt& s, FragmentLowering& cx);
ir::Stmt lower_gemm(const ir::GemmOpNode& n, const ir::Stmt& s, FragmentLowering& cx);
ir::Stmt lower_reduce(const ir::ReduceOpNode& n, const ir::Stmt& s, FragmentLowering& cx);
// T.atomic_add(dst, fragment): the T.Parallel nest of element atomics it means, rewritten like
// any T.Parallel loop so each thread adds its own registers; null when the source is no fragment.
ir::Stmt lower_atomic_add(const ir::AtomicAddOpNode& n, const ir::Stmt& s, FragmentLowering& cx);
// Floats of shared scratch a reduction from a source of layout `src` needs (rows or columns
// spread over several warps meet there), 0 when none (or when `dst`, the result's layout, keeps
// each row in its own threads).
int64_t reduce_scratch(const ir::ReduceOpNode& n, const transform::FragLayout& src, const transform::FragLayout* dst = nullptr);

// What lower_tile_ops knows where an op sits: the block, and the TMA stores of shared tiles
// (the target allows them, the kernel's parameters and the tensors it reads, the tensor maps,
// earlier passes' first).
struct ThreadLowering {
    DiagnosticEngine& diags;
    ir::Expr tid;
    int64_t threads = 0;
    bool one_dim_block = false;
    const Target* target = nullptr;
    bool tma_store = false;
    std::set<const ir::BufferNode*> params, read_globals;
    std::vector<std::string> maps;
    std::set<std::string> stored;  // parameters TMA stores write

    explicit ThreadLowering(DiagnosticEngine& d) : diags(d) {}
};

// Each returns the replacing statement, or the op itself after reporting why it cannot.
ir::Stmt lower_copy(const ir::CopyOpNode& n, const ir::Stmt& s, ThreadLowering& cx);
ir::Stmt lower_fill(const ir::FillOpNode& n, ThreadLowering& cx);
ir::Stmt lower_atomic_add(const ir::AtomicAddOpNode& n, const ir::Stmt& s, ThreadLowering& cx);

}  // namespace tp::codegen::cuda
