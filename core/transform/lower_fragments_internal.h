// Internal to layout_inference's rewrite, which is split over three files around one mutator:
//   lower_fragments.cpp           the entry point, the launch (thread index, scratch) and the
//                                 swizzled gemm tiles
//   lower_fragments_parallel.cpp  T.Parallel loops over fragments and the element accesses in them
//   lower_fragments_ops.cpp       T.fill, T.copy, T.print, T.gemm and T.reduce_* on fragments
// The mutator's state is shared by all of them (a T.print lowers through visit_CopyOp, every op
// through the layouts and the thread index the launch set), hence one class declared here.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/functor.h"
#include "ops/gemm.h"
#include "target.h"
#include "tileplay/diagnostics.h"
#include "transform/fragment_layout.h"

namespace tp::transform::frag_lowering {

// The moved code names IR types unqualified, as every transform source does; the directive stays
// inside this internal namespace.
using namespace ir;

class FragLowerer : public IRMutator {
public:
    DiagnosticEngine& diags;
    std::map<const BufferNode*, FragLayout> layouts;
    std::map<const BufferNode*, Buffer> replaced;  // fragment -> local array, gemm tile -> swizzled
    std::map<const GemmOpNode*, ops::WgmmaPlan> wgmma;  // gemms lowered to wgmma (sm_90a)
    Expr tid;
    int64_t threads = 0;
    bool one_dim_block = true;
    Buffer scratch;
    // TMA-store epilogues (sm_90): set when the target has TMA, the kernel's shared memory
    // leaves room for the staging and nothing disables it; the kernel's parameters (a tensor
    // map needs one) and the maps the stores use, in the order of their tp.tma_desc indices.
    const Target* target = nullptr;
    bool tma_store = false;
    std::string tma_store_why;  // why not, when the kernel leaves no room
    std::set<const BufferNode*> params;
    std::vector<std::string> tma_maps;
    std::set<const BufferNode*> tma_stored;  // parameters only TMA stores may write
    std::set<const BufferNode*> read_globals;  // global tensors the kernel reads somewhere
    Buffer store_stage;

    struct Ctx {
        FragLayout drv;
        std::vector<const VarNode*> vars;
        std::vector<int64_t> ext;  // the loop extents, one per var
        Expr local;  // accumulator index, row/column slot or stripe round
    };
    std::optional<Ctx> ctx;

    explicit FragLowerer(DiagnosticEngine& d) : diags(d) {}

    Buffer mutate_buffer(const Buffer& b) override {
        auto it = replaced.find(b.get());
        return it == replaced.end() ? b : it->second;
    }
    const FragLayout* layout_of(const Buffer& b) {
        auto it = layouts.find(b.get());
        return it == layouts.end() ? nullptr : &it->second;
    }
    Buffer local_of(const Buffer& b) { return mutate_buffer(b); }
    void fail(const std::string& what, Span span) { diags.report(DiagKind::NotYetLowered, span, {what, "CUDA"}); }

    // Local index of fragment access b[idx] inside the current per-thread loop.
    Expr frag_index(const Buffer& b, const std::vector<Expr>& full_idx, Span span);

    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override;
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override;

    // for i in unroll(n): body(i)
    Stmt local_loop(int64_t n, const std::string& name, const std::function<Stmt(const Expr&)>& body, Span span) {
        Var v = std::make_shared<VarNode>(name, DataType::int32(), VarKind::Loop, span);
        return std::make_shared<ForNode>(v, int_imm(0), int_imm(n), n <= 256 ? ForKind::Unrolled : ForKind::Serial, body(v), span);
    }

    Stmt visit_For(const ForNode& n, const Stmt& s) override;

    Stmt visit_FillOp(const FillOpNode& n, const Stmt& s) override;

    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override;
    // T.copy(accumulator -> global) as TMA stores of staged panels (tp::frag_store_tma), or
    // null (with a remark on a TMA target) when the copy, layout or tensor do not allow it.
    Stmt tma_store_copy(const CopyOpNode& n, const FragLayout& acc, const Buffer& frag);
    // T.print of a fragment: staged through a shared tile of the same shape, which the code
    // generator prints row-major from one thread (the same text the CPU interpreter gives).
    std::vector<Buffer> print_tiles;
    // Registers an RS wgmma's packed A operand occupies while its group runs (one per gemm).
    std::vector<Buffer> packed_operands;
    // 16-bit fragments kept as packed pairs (uint32 words): read only as RS wgmma operands and
    // written only by conversions from float fragments, so the operand needs no packing at
    // issue time and no conversion happens inside the group's pipeline stage.
    std::set<const BufferNode*> packed;
    Stmt visit_PrintOp(const PrintOpNode& n, const Stmt& s) override;
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override;
    Stmt wgmma_gemm(const GemmOpNode& n, const ops::WgmmaPlan& p, const FragLayout& c);
    Stmt fp8_gemm(const GemmOpNode& n, const FragLayout& c, const Stmt& s);
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override;
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override;
};

}  // namespace tp::transform::frag_lowering
