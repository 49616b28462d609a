// coarsen_blocks (see coarsen_blocks.h).
#include "transform/coarsen_blocks.h"

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

// True when the kernel body only computes element-wise on global memory: nothing a
// coarsened block would have to reset (allocations) or synchronise (tile ops, barriers).
class ElementwiseOnly : public IRVisitor {
public:
    bool ok = true;

protected:
    // Allocations, tile ops, while/break and evaluate (barriers, prints) rule coarsening out.
#define TP_REJECT(Name) \
    void visit_##Name(const Name##Node&, const Stmt&) override { ok = false; }
    TP_REJECT(Allocate) TP_REJECT(CopyOp) TP_REJECT(GemmOp) TP_REJECT(FillOp) TP_REJECT(ReduceOp)
    TP_REJECT(AtomicAddOp) TP_REJECT(PrintOp) TP_REJECT(AssertOp) TP_REJECT(SwizzleOp)
    TP_REJECT(LayoutAnnotationOp) TP_REJECT(While) TP_REJECT(Break) TP_REJECT(Evaluate)
#undef TP_REJECT
};

class Coarsen : public IRMutator {
protected:
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        if (n.grid.size() != 1 || n.block_vars.size() != 1) return s;
        auto grid = as_const_int(n.grid[0]);
        if (!grid || *grid < kCoarsenMinGrid) return s;
        ElementwiseOnly check;
        check.visit(n.body);
        if (!check.ok) return s;

        const Var& bx = n.block_vars[0];
        Span sp = n.span;
        auto outer = std::make_shared<VarNode>(bx->name + "_o", bx->dtype, VarKind::BlockIdx, sp);
        auto c = std::make_shared<VarNode>(bx->name + "_c", DataType::int32(), VarKind::Loop, sp);
        Expr logical = make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, outer, int_imm(kCoarsenFactor), sp), c, sp);
        // The original block variable keeps its name and identity in the body: bind it per step.
        Stmt step = n.body;
        if (*grid % kCoarsenFactor != 0)
            step = std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, logical, n.grid[0], sp), step, nullptr, sp);
        step = std::make_shared<LetStmtNode>(bx, logical, step, sp);
        Stmt loop = std::make_shared<ForNode>(c, int_imm(0), int_imm(kCoarsenFactor), ForKind::Unrolled, step, sp);
        Expr new_grid = int_imm((*grid + kCoarsenFactor - 1) / kCoarsenFactor);
        return std::make_shared<KernelLaunchNode>(std::vector<Expr>{new_grid}, std::vector<Var>{outer}, n.threads,
                                                  n.thread_vars, loop, sp);
    }
};

}  // namespace

PrimFuncPtr coarsen_blocks(const PrimFuncPtr& func) {
    Stmt body = Coarsen().mutate(func->body);
    if (body == func->body) return func;
    auto f = std::make_shared<PrimFunc>(*func);
    f->body = body;
    return f;
}

}  // namespace tp::transform
