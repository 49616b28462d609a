// bind_threads (see bind_threads.h).
#include "transform/bind_threads.h"

#include "ir/functor.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

// Inner parallel loops of a bound nest run serially in each thread.
class SerializeParallel : public IRMutator {
protected:
    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        Stmt out = IRMutator::visit_For(n, s);
        if (n.for_kind != ForKind::Parallel) return out;
        auto f = std::make_shared<ForNode>(*out->as<ForNode>());
        f->for_kind = ForKind::Serial;
        return f;
    }
};

class ThreadBinder : public IRMutator {
public:
    std::vector<Var> thread_vars;
    std::vector<int64_t> threads;
    int64_t num_threads = 0;
    int counter = 0;

protected:
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        threads = n.threads.empty() ? std::vector<int64_t>{1} : n.threads;
        thread_vars = n.thread_vars;
        static const char* names[] = {"tx", "ty", "tz"};
        bool made = false;
        while (thread_vars.size() < threads.size()) {
            thread_vars.push_back(std::make_shared<VarNode>(names[thread_vars.size()], DataType::int32(), VarKind::ThreadIdx, n.span));
            made = true;
        }
        num_threads = n.num_threads();
        Stmt body = mutate(n.body);
        num_threads = 0;
        if (body == n.body && !made) return s;
        return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, threads, thread_vars, body, n.span);
    }

    // The consumers of a warp-specialized kernel deal parallel loops among their own threads
    // (the first consumer_threads of a one-dimensional block); the producer has none.
    Stmt visit_WarpRoles(const WarpRolesNode& n, const Stmt& s) override {
        auto saved_threads = threads;
        int64_t saved_num = num_threads;
        threads = {n.consumer_threads};
        num_threads = n.consumer_threads;
        Stmt out = with_consumer(n, s, [&](const Stmt& c) { return mutate(c); });
        threads = saved_threads;
        num_threads = saved_num;
        return out;
    }

    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        if (n.for_kind != ForKind::Parallel || num_threads == 0) return IRMutator::visit_For(n, s);
        std::vector<const ForNode*> nest = {&n};
        while (auto* inner = nest.back()->body->as<ForNode>()) {
            if (inner->for_kind != ForKind::Parallel) break;
            nest.push_back(inner);
        }
        Stmt body = SerializeParallel().mutate(nest.back()->body);
        Span span = n.span;

        // Linear thread index: tx + ty*Tx + tz*Tx*Ty.
        Expr tid = thread_vars[0];
        int64_t stride = threads[0];
        for (size_t i = 1; i < thread_vars.size(); ++i) {
            tid = make_binary(BinaryOp::Add, tid, make_binary(BinaryOp::Mul, thread_vars[i], int_imm(stride)));
            stride *= threads[i];
        }
        Expr total = int_imm(1);
        for (auto* f : nest) total = make_binary(BinaryOp::Mul, total, f->extent);
        auto total_c = as_const_int(total);
        bool wide = total_c && *total_c >= (int64_t(1) << 31);
        if (wide) tid = make_cast(DataType::int64(), tid);
        DataType it = wide ? DataType::int64() : DataType::int32();
        Expr T = int_imm(num_threads, it);

        Expr rounds = make_binary(BinaryOp::FloorDiv, make_binary(BinaryOp::Add, total, int_imm(num_threads - 1, it)), T);
        auto rounds_c = as_const_int(rounds);
        Var k;
        Expr idx = tid;
        if (!rounds_c || *rounds_c > 1) {
            k = std::make_shared<VarNode>("tp_r" + std::to_string(counter), it, VarKind::Loop, span);
            idx = make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, k, T), tid);
        }
        Var e = std::make_shared<VarNode>("tp_e" + std::to_string(counter++), it, VarKind::Plain, span);

        // Element index -> loop vars, innermost fastest: v_d = min_d + (e // stride_d) % ext_d.
        Expr inner_stride = int_imm(1, it);
        for (size_t d = nest.size(); d-- > 0;) {
            const ForNode* f = nest[d];
            Expr v = make_binary(BinaryOp::FloorDiv, e, inner_stride);
            if (d > 0) v = make_binary(BinaryOp::FloorMod, v, f->extent);
            v = make_binary(BinaryOp::Add, f->min, make_cast(f->loop_var->dtype, v));
            body = std::make_shared<LetStmtNode>(f->loop_var, v, body, f->span);
            inner_stride = make_binary(BinaryOp::Mul, inner_stride, f->extent);
        }
        bool exact = total_c && *total_c % num_threads == 0;
        if (!exact) body = std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, e, total), body, nullptr, span);
        body = std::make_shared<LetStmtNode>(e, idx, body, span);
        if (k) {
            ForKind kind = rounds_c && *rounds_c <= 8 ? ForKind::Unrolled : ForKind::Serial;
            body = std::make_shared<ForNode>(k, int_imm(0, it), rounds, kind, body, span);
        }
        return body;
    }
};

}  // namespace

PrimFuncPtr bind_threads(const PrimFuncPtr& func) {
    ThreadBinder b;
    return mutate_func(func, b);
}

}  // namespace tp::transform
