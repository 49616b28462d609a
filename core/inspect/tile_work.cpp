// Counting a kernel's tile work (tile_work.h): one walk with a stack of multipliers, the
// product of the launch's blocks and the constant trip counts of the enclosing loops.
#include "inspect/tile_work.h"

#include "ir/functor.h"
#include "ops/gemm.h"

namespace tp {

namespace {

class WorkCounter : public ir::IRVisitor {
public:
    TileWork work;

protected:
    void visit_KernelLaunch(const ir::KernelLaunchNode& n, const ir::Stmt&) override {
        double blocks = 1;
        for (const auto& g : n.grid) blocks *= extent(g, n.span, "a grid extent");
        scoped(blocks, n.body);
    }
    void visit_For(const ir::ForNode& n, const ir::Stmt&) override {
        visit(n.min);  // the bounds are read once per entry into the loop
        visit(n.extent);
        scoped(extent(n.extent, n.span, "a loop's trip count"), n.body);
    }
    void visit_While(const ir::WhileNode& n, const ir::Stmt&) override {
        assume(n.span, "a while loop counted as one iteration");
        visit(n.cond);
        visit(n.body);
    }
    void visit_IfThenElse(const ir::IfThenElseNode& n, const ir::Stmt& s) override {
        if (!is_const(n.cond)) assume(n.span, "both sides of a branch counted");
        ir::IRVisitor::visit_IfThenElse(n, s);
    }
    void visit_GemmOp(const ir::GemmOpNode& n, const ir::Stmt&) override {
        std::string why;
        if (auto sh = ops::gemm_shape(n, why)) work.flops += mult_ * 2.0 * double(sh->m) * double(sh->n) * double(sh->k);
        else assume(n.span, "a T.gemm of unknown shape not counted (" + why + ")");
    }
    void visit_CopyOp(const ir::CopyOpNode& n, const ir::Stmt&) override {
        region_bytes(n.src, n.span);
        region_bytes(n.dst, n.span);
    }
    void visit_AtomicAddOp(const ir::AtomicAddOpNode& n, const ir::Stmt& s) override {
        // The destination is read and written; a scalar source's loads count as elements.
        region_bytes(n.dst, n.span);
        region_bytes(n.dst, n.span);
        if (auto* r = std::get_if<ir::BufferRegion>(&n.src)) region_bytes(*r, n.span);
        else visit(std::get<ir::Expr>(n.src));
    }
    void visit_BufferLoad(const ir::BufferLoadNode& n, const ir::Expr& e) override {
        element(n.buffer);
        ir::IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const ir::BufferStoreNode& n, const ir::Stmt& s) override {
        element(n.buffer);
        ir::IRVisitor::visit_BufferStore(n, s);
    }

private:
    double mult_ = 1;

    static bool is_const(const ir::Expr& e) { return ir::as_const_int(e).has_value(); }
    void assume(const Span& at, const std::string& what) {
        work.exact = false;
        work.assumptions.push_back("line " + std::to_string(at.begin.line) + ": " + what);
    }
    double extent(const ir::Expr& e, const Span& at, const char* what) {
        if (auto v = ir::as_const_int(e)) return double(*v > 0 ? *v : 0);
        assume(at, std::string(what) + " known only at run time, counted as 1");
        return 1;
    }
    void scoped(double m, const ir::Stmt& body) {
        double saved = mult_;
        mult_ *= m;
        visit(body);
        mult_ = saved;
    }
    void region_bytes(const ir::BufferRegion& r, const Span& at) {
        if (!r.buffer || r.buffer->scope != ir::Scope::Global) return;
        double elems = 1;
        for (const auto& d : r.region) elems *= extent(d.extent, at, "a copy extent");
        work.global_bytes += mult_ * elems * r.buffer->dtype.bytes();
    }
    void element(const ir::Buffer& b) {
        if (b && b->scope == ir::Scope::Global) work.global_bytes += mult_ * b->dtype.bytes();
    }
};

}  // namespace

TileWork count_tile_work(const ir::PrimFunc& f) {
    WorkCounter c;
    c.visit(f.body);
    return c.work;
}

}  // namespace tp
