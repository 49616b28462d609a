// Internal to layout_inference's rewrite, which is split over two files around one mutator:
//   lower_fragments.cpp           the entry point, the launch (thread index, scratch) and the
//                                 swizzled gemm tiles
//   lower_fragments_parallel.cpp  T.Parallel loops over fragments and the element accesses in them
// The tile ops that touch fragments (T.fill, T.copy, T.print, T.gemm, T.reduce_*) lower in
// codegen/cuda/ops/<op>.cpp; the mutator is their context (codegen::cuda::FragmentLowering:
// the layouts, the thread index the launch set, what they add to the launch), hence one class
// declared here.
#pragma once

#include <optional>
#include <vector>

#include "codegen/cuda/ops/lower_op.h"
#include "ir/functor.h"
#include "transform/fragment_layout.h"

namespace tp::transform::frag_lowering {

// The moved code names IR types unqualified, as every transform source does; the directive stays
// inside this internal namespace.
using namespace ir;

class FragLowerer : public IRMutator, public codegen::cuda::FragmentLowering {
public:
    struct Ctx {
        FragLayout drv;
        std::vector<const VarNode*> vars;
        std::vector<int64_t> ext;  // the loop extents, one per var
        Expr local;  // accumulator index, row/column slot or stripe round
    };
    std::optional<Ctx> ctx;

    explicit FragLowerer(DiagnosticEngine& d) : FragmentLowering(d) {}

    Buffer mutate_buffer(const Buffer& b) override { return local_of(b); }
    Expr rewrite(const Expr& e) override { return mutate(e); }
    Stmt rewrite(const Stmt& s) override { return mutate(s); }

    // Local index of fragment access b[idx] inside the current per-thread loop.
    Expr frag_index(const Buffer& b, const std::vector<Expr>& full_idx, Span span);

    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override;
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override;
    Stmt visit_For(const ForNode& n, const Stmt& s) override;
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override;

    // The ops lower themselves; those on no fragment are left for lower_tile_ops.
    Stmt visit_FillOp(const FillOpNode& n, const Stmt& s) override {
        Stmt t = codegen::cuda::lower_fill(n, s, *this);
        return t ? t : IRMutator::visit_FillOp(n, s);
    }
    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        Stmt t = codegen::cuda::lower_copy(n, s, *this);
        return t ? t : IRMutator::visit_CopyOp(n, s);
    }
    Stmt visit_PrintOp(const PrintOpNode& n, const Stmt& s) override {
        Stmt t = codegen::cuda::lower_print(n, s, *this);
        return t ? t : IRMutator::visit_PrintOp(n, s);
    }
    Stmt visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        Stmt t = codegen::cuda::lower_atomic_add(n, s, *this);
        return t ? t : IRMutator::visit_AtomicAddOp(n, s);
    }
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override { return codegen::cuda::lower_gemm(n, s, *this); }
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override { return codegen::cuda::lower_reduce(n, s, *this); }
};

}  // namespace tp::transform::frag_lowering
