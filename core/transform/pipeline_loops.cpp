// pipeline_loops (see pipeline_loops.h).
#include "transform/pipeline_loops.h"

#include <map>
#include <set>

#include "ir/functor.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Replaces a variable by an expression and, for the staged buffers, prefixes every access with
// the stage index.
class Restage : public IRMutator {
public:
    const VarNode* var = nullptr;
    Expr value;
    std::map<const BufferNode*, Buffer> staged;
    Expr stage;

    Expr visit_Var(const VarNode& n, const Expr& e) override { return &n == var ? value : e; }
    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        auto it = staged.find(n.buffer.get());
        if (it == staged.end()) return IRMutator::visit_BufferLoad(n, e);
        std::vector<Expr> idx = {stage};
        for (const auto& i : n.indices) idx.push_back(mutate(i));
        return std::make_shared<BufferLoadNode>(it->second, idx, n.span);
    }
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        auto it = staged.find(n.buffer.get());
        if (it == staged.end()) return IRMutator::visit_BufferStore(n, s);
        std::vector<Expr> idx = {stage};
        for (const auto& i : n.indices) idx.push_back(mutate(i));
        return std::make_shared<BufferStoreNode>(it->second, idx, mutate(n.value), n.span);
    }
};

// Buffers accessed anywhere in a statement.
struct Uses : IRVisitor {
    std::map<const BufferNode*, int> count;
    void visit_buffer(const Buffer& b) override {
        if (b) ++count[b.get()];
        IRVisitor::visit_buffer(b);
    }
};

class Pipeliner : public IRMutator {
public:
    const PrimFunc* func = nullptr;
    bool reg_staged = false;   // sm_75: no cp.async, stage through registers instead
    int64_t threads = 0;       // of the enclosing T.Kernel
    std::map<const BufferNode*, Buffer> staged_all;  // original shared tile -> staged tile

    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        threads = n.num_threads();
        return IRMutator::visit_KernelLaunch(n, s);
    }

    // The consumers of a warp-specialized kernel pipeline their own cp.async copies.
    Stmt visit_WarpRoles(const WarpRolesNode& n, const Stmt& s) override {
        int64_t saved = threads;
        threads = n.consumer_threads;
        Stmt out = with_consumer(n, s, [&](const Stmt& c) { return mutate(c); });
        threads = saved;
        return out;
    }

    Buffer mutate_buffer(const Buffer& b) override {
        auto it = staged_all.find(b.get());
        return it == staged_all.end() ? b : it->second;
    }

    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        Stmt out = IRMutator::visit_For(n, s);
        if (n.for_kind != ForKind::Pipelined) return out;
        auto* f = out->as<ForNode>();
        auto serial = std::make_shared<ForNode>(*f);
        serial->for_kind = ForKind::Serial;
        serial->num_stages = 0;
        serial->order.clear();
        serial->stage.clear();
        serial->group.clear();
        int S = n.num_stages;
        if (S < 2) return serial;

        // Producers: copy_g2s + commit + wait<0> at the top level of the body.
        std::vector<Stmt> body;
        flatten_seq(f->body, body);
        std::vector<Stmt> producers, rest;
        std::map<const BufferNode*, Buffer> tiles;
        for (size_t i = 0; i < body.size(); ++i) {
            std::string c = device_callee(body[i]);
            if (starts_with(c, "tp::copy_g2s<") && i + 2 < body.size() && device_callee(body[i + 1]) == "tp::cp_async_commit" &&
                device_callee(body[i + 2]) == "tp::cp_async_wait<0>") {
                auto* call = body[i]->as<EvaluateNode>()->value->as<CallNode>();
                auto* dst = call->args[1]->as<CallNode>()->args[0]->as<BufferLoadNode>();
                tiles[dst->buffer.get()] = dst->buffer;
                producers.push_back(body[i]);
                i += 2;
                continue;
            }
            rest.push_back(body[i]);
        }
        if (producers.empty()) return serial;
        // A staged tile must live only in this loop (its stage after the loop is not defined).
        Uses inside, everywhere;
        inside.visit(f->body);
        everywhere.visit(func->body);
        for (const auto& [b, buf] : tiles)
            if (everywhere.count[b] != inside.count[b] + 1) return serial;  // +1: its Allocate

        // sm_75: two buffers are enough (a tile in registers is the third).
        bool via_regs = reg_staged && staging_fits(producers);
        if (via_regs) S = 2;
        Restage rs;
        for (const auto& [b, buf] : tiles) {
            std::vector<Expr> shape = {int_imm(S)};
            for (const auto& d : buf->shape) shape.push_back(d);
            auto nb = std::make_shared<BufferNode>(buf->name, buf->dtype, shape, buf->scope, buf->span);
            nb->layout = buf->layout;
            rs.staged[b] = nb;
            staged_all[b] = nb;
        }
        Span span = n.span;
        Expr mn = f->min, ext = f->extent;
        auto producer_stmts = [&](const Expr& iter, const Expr& stage) {
            rs.var = f->loop_var.get();
            rs.value = make_binary(BinaryOp::Add, mn, iter);
            rs.stage = stage;
            std::vector<Stmt> out;
            for (const auto& p : producers) {
                Stmt moved = rs.mutate(p);
                auto* call = moved->as<EvaluateNode>()->value->as<CallNode>();
                std::vector<Expr> args(call->args.begin() + 1, call->args.end());
                out.push_back(device_call(call->args[0]->as<StringImmNode>()->value, args, p->span, true));
            }
            return make_seq(out, span);
        };
        if (via_regs) return register_staged(*f, producers, rest, rs);
        auto commit = device_call("tp::cp_async_commit", {}, span);
        // Prologue: tiles 0 .. S-2 (every commit happens, so group counting stays uniform).
        Var ps = std::make_shared<VarNode>("tp_stage", DataType::int32(), VarKind::Loop, span);
        Stmt pro_body = make_seq({std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, ps, ext), producer_stmts(ps, ps), nullptr, span), commit}, span);
        Stmt prologue = std::make_shared<ForNode>(ps, int_imm(0), int_imm(S - 1), ForKind::Unrolled, pro_body, span);

        // Steady state.
        Var k = f->loop_var;
        Expr it = make_binary(BinaryOp::Sub, k, mn);
        Expr ahead = make_binary(BinaryOp::Add, it, int_imm(S - 1));
        std::vector<Stmt> loop;
        loop.push_back(device_call("tp::cp_async_wait<" + std::to_string(S - 2) + ">", {}, span));
        loop.push_back(std::make_shared<EvaluateNode>(make_call("__syncthreads", {}, DataType::void_(), span), span));
        loop.push_back(std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, ahead, ext),
                                                        producer_stmts(ahead, make_binary(BinaryOp::FloorMod, ahead, int_imm(S))), nullptr, span));
        loop.push_back(commit);
        rs.var = nullptr;
        rs.stage = make_binary(BinaryOp::FloorMod, it, int_imm(S));
        for (const auto& r : rest) loop.push_back(rs.mutate(r));
        auto main = std::make_shared<ForNode>(k, mn, ext, ForKind::Serial, make_seq(loop, span), span);
        return make_seq({prologue, main, device_call("tp::cp_async_wait<0>", {}, span)}, span);
    }

    // 32-bit registers per thread that register staging of these producers holds across the
    // loop body (16-byte chunks of the tiles dealt round-robin to the threads).
    int64_t staging_words(const std::vector<Stmt>& producers) const {
        int64_t words = 0;
        for (const auto& p : producers) {
            const Buffer& tile = staged_tile(p);
            int64_t chunks = *as_const_int(tile->shape[0]) * *as_const_int(tile->shape[1]) * tile->dtype.bytes() / 16;
            words += 4 * ((chunks + threads - 1) / threads);
        }
        return words;
    }
    // The staged tiles live in registers across the whole body, next to its accumulators:
    // 32 words is the 128x128x32 GEMM on 4 warps (253 registers on sm_75, no spills); a
    // 128x128x64 tile would hold 64 and spill, so such loops keep the synchronous copies
    // (correct, not overlapped). Elements of 1, 2 or 4 bytes (tp::copy_g2r packs them).
    static constexpr int64_t kMaxStagingWords = 32;
    bool staging_fits(const std::vector<Stmt>& producers) const {
        if (threads <= 0) return false;
        for (const auto& p : producers) {
            int bytes = staged_tile(p)->dtype.bytes();
            if (bytes != 1 && bytes != 2 && bytes != 4) return false;
        }
        return staging_words(producers) <= kMaxStagingWords;
    }
    static const Buffer& staged_tile(const Stmt& producer) {
        auto* call = producer->as<EvaluateNode>()->value->as<CallNode>();
        return call->args[1]->as<CallNode>()->args[0]->as<BufferLoadNode>()->buffer;
    }

    // The classic sm_75 double buffer: tile 0 goes through registers into stage 0 before the
    // loop; each iteration loads tile k+1 from global into registers (tp::copy_g2r), runs the
    // body on stage k % 2 while those loads are in flight, stores the registers into the
    // other stage (tp::copy_r2s, whose readers finished at the previous barrier) and ends
    // with one __syncthreads() that publishes it and frees stage k % 2 for the next store.
    // Edge tiles stay zero-filled by the same rows_valid/cols_valid arguments as copy_g2s.
    Stmt register_staged(const ForNode& f, const std::vector<Stmt>& producers, const std::vector<Stmt>& rest, Restage& rs) {
        Span span = f.span;
        struct Staged {
            const CallNode* call;  // the copy_g2s call, indices not yet restaged
            std::string targs;     // its template argument list "<...>"
            Buffer regs;
        };
        std::vector<Staged> st;
        for (const auto& p : producers) {
            auto* call = p->as<EvaluateNode>()->value->as<CallNode>();
            const std::string& callee = call->args[0]->as<StringImmNode>()->value;
            const Buffer& tile = staged_tile(p);
            auto regs = std::make_shared<BufferNode>(tile->name + "_regs", DataType(DataType::UInt, 32), std::vector<Expr>{int_imm(staging_words({p}))},
                                                     Scope::Local, p->span);
            st.push_back({call, callee.substr(callee.find('<')), regs});
        }
        Expr mn = f.min, ext = f.extent;
        // Global -> registers for iteration `iter` (counted from 0).
        auto loads = [&](const Expr& iter) {
            rs.var = f.loop_var.get();
            rs.value = make_binary(BinaryOp::Add, mn, iter);
            std::vector<Stmt> out;
            for (const auto& s : st) {
                std::vector<Expr> args = {buffer_addr(s.regs, {int_imm(0)}, true, span)};
                for (size_t i = 2; i < s.call->args.size(); ++i) args.push_back(rs.mutate(s.call->args[i]));
                out.push_back(device_call("tp::copy_g2r" + s.targs, args, s.call->span, true));
            }
            return make_seq(out, span);
        };
        // Registers -> shared stage `stage`; published by the barrier that follows.
        auto stores = [&](const Expr& stage) {
            rs.var = nullptr;
            rs.stage = stage;
            std::vector<Stmt> out;
            for (const auto& s : st)
                out.push_back(device_call("tp::copy_r2s" + s.targs,
                                          {buffer_addr(s.regs, {int_imm(0)}, false, span), rs.mutate(s.call->args[1]), s.call->args.back()},
                                          s.call->span, true));
            return make_seq(out, span);
        };
        auto barrier = [&] { return std::make_shared<EvaluateNode>(make_call("__syncthreads", {}, DataType::void_(), span), span); };
        Stmt prologue = std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, int_imm(0), ext),
                                                         make_seq({loads(int_imm(0)), stores(int_imm(0))}, span), nullptr, span);
        Var k = f.loop_var;
        Expr it = make_binary(BinaryOp::Sub, k, mn);
        Expr next = make_binary(BinaryOp::Add, it, int_imm(1));
        Expr has_next = make_binary(BinaryOp::LT, next, ext);
        std::vector<Stmt> loop;
        loop.push_back(std::make_shared<IfThenElseNode>(has_next, loads(next), nullptr, span));
        rs.var = nullptr;
        rs.stage = make_binary(BinaryOp::FloorMod, it, int_imm(2));
        for (const auto& r : rest) loop.push_back(rs.mutate(r));
        loop.push_back(std::make_shared<IfThenElseNode>(has_next, stores(make_binary(BinaryOp::FloorMod, next, int_imm(2))), nullptr, span));
        loop.push_back(barrier());
        auto main = std::make_shared<ForNode>(k, mn, ext, ForKind::Serial, make_seq(loop, span), span);
        Stmt out = make_seq({prologue, barrier(), main}, span);
        for (const auto& s : st) out = std::make_shared<AllocateNode>(s.regs, nullptr, out, span);
        return out;
    }
};

}  // namespace

// Points the staged tiles' allocations (visited before the loops that staged them) at the
// staged buffers.
class Rebind : public IRMutator {
public:
    const std::map<const BufferNode*, Buffer>* map = nullptr;
    Buffer mutate_buffer(const Buffer& b) override {
        auto it = map->find(b.get());
        return it == map->end() ? b : it->second;
    }
};

PrimFuncPtr pipeline_loops(const PrimFuncPtr& func, const Target& target) {
    Pipeliner p;
    p.func = func.get();
    p.reg_staged = !target.has_cp_async();
    PrimFuncPtr out = mutate_func(func, p);
    if (p.staged_all.empty()) return out;
    Rebind r;
    r.map = &p.staged_all;
    return mutate_func(out, r);
}

}  // namespace tp::transform
