// verify (see verify.h): a scoped walk keeping the buffers and variables in scope.
#include "transform/verify.h"

#include <set>

#include "ir/functor.h"
#include "ops/access.h"

namespace tp::transform {

using namespace ir;

namespace {

class Verifier : public ops::OpAccessVisitor {
public:
    std::string after;
    std::set<const BufferNode*> buffers;
    std::set<const VarNode*> vars;

    [[noreturn]] void fail(const std::string& msg, Span span) {
        throw InternalError(msg + " (DSL line " + std::to_string(span.begin.line) + ")", __FILE__, __LINE__, after);
    }
    void use_buffer(const Buffer& b, size_t nidx, bool check_rank, Span span) {
        if (!b) fail("null buffer", span);
        if (!buffers.count(b.get())) fail("buffer `" + b->name + "` is used but neither a parameter nor allocated in scope", span);
        if (check_rank && b->scope != Scope::Var && nidx != b->shape.size())
            fail("buffer `" + b->name + "` of rank " + std::to_string(b->shape.size()) + " indexed with " + std::to_string(nidx), span);
    }
    void check_region(const BufferRegion& r, Span span) {
        use_buffer(r.buffer, r.region.size(), true, span);
    }

    void visit_Var(const VarNode& n, const Expr&) override {
        if (!vars.count(&n)) fail("variable `" + n.name + "` is used outside the scope that binds it", n.span);
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        use_buffer(n.buffer, n.indices.size(), true, n.span);
        for (const auto& i : n.indices) visit(i);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt&) override {
        use_buffer(n.buffer, n.indices.size(), true, n.span);
        for (const auto& i : n.indices) visit(i);
        visit(n.value);
    }
    void visit_For(const ForNode& n, const Stmt&) override {
        visit(n.min);
        visit(n.extent);
        vars.insert(n.loop_var.get());
        visit(n.body);
        vars.erase(n.loop_var.get());
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt&) override {
        visit(n.value);
        vars.insert(n.var.get());
        visit(n.body);
        vars.erase(n.var.get());
    }
    void visit_Allocate(const AllocateNode& n, const Stmt&) override {
        for (const auto& d : n.buffer->shape) visit(d);
        visit(n.init);
        buffers.insert(n.buffer.get());
        visit(n.body);
        buffers.erase(n.buffer.get());
    }
    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt&) override {
        for (const auto& g : n.grid) visit(g);
        if (n.grid.empty() || n.grid.size() > 3 || n.block_vars.size() != n.grid.size())
            fail("kernel launch with " + std::to_string(n.grid.size()) + " grid dims and " +
                 std::to_string(n.block_vars.size()) + " block variables", n.span);
        for (const auto& v : n.block_vars) vars.insert(v.get());
        for (const auto& v : n.thread_vars) vars.insert(v.get());
        visit(n.body);
    }
    // A consumer group's index is defined for the consumer code only.
    void visit_WarpRoles(const WarpRolesNode& n, const Stmt&) override {
        visit(n.producer);
        if (n.group_var) vars.insert(n.group_var.get());
        visit(n.consumer);
        if (n.group_var) vars.erase(n.group_var.get());
    }
    // Every region a tile op reads or writes names a buffer in scope, with one range per dim.
    void on_op(const StmtNode& op, const ops::OpAccess& a) override {
        for (const auto& r : a.reads) check_region(r, op.span);
        for (const auto& w : a.writes) check_region(w, op.span);
    }
    void visit_buffer(const Buffer& b) override {
        // Buffer shapes may use symbolic dims, which are parameters (already in scope).
        IRVisitor::visit_buffer(b);
    }
};

}  // namespace

void verify(const PrimFunc& func, const std::string& after_pass) {
    Verifier v;
    v.after = after_pass;
    for (const auto& p : func.params) {
        if (p.buffer) v.buffers.insert(p.buffer.get());
        if (p.var) v.vars.insert(p.var.get());
    }
    // Symbolic dims of parameter tensors are bound by the launch, like scalar parameters.
    struct Collect : IRVisitor {
        std::set<const VarNode*>* out;
        void visit_Var(const VarNode& n, const Expr&) override {
            if (n.var_kind == VarKind::Symbolic || n.var_kind == VarKind::Param) out->insert(&n);
        }
    } c;
    c.out = &v.vars;
    for (const auto& p : func.params)
        if (p.buffer) c.visit_buffer(p.buffer);
    if (!func.body) throw InternalError("function `" + func.name + "` has no body", __FILE__, __LINE__, after_pass);
    v.visit(func.body);
}

}  // namespace tp::transform
