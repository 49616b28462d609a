// warp_specialize_attention (see warp_specialize_attention.h). The matcher returns the reason
// for the first mismatch; an empty reason means the kernel computes exactly what the template
// computes (up to floating-point rounding of the same online softmax).
#include "transform/warp_specialize_attention.h"

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "ir/functor.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

// The template instance chosen (tests/gpu_kernels/wgmma_fa_test.cu's fastest checked one).
constexpr int64_t kBM = 128, kBN = 128, kConsumers = 2, kStages = 2, kThreads = 128 * (kConsumers + 1);

using Lets = std::map<const VarNode*, Expr>;

// Integer expression as sum(coeff * var) + constant, through the kernel's let bindings.
struct Lin {
    std::map<const VarNode*, int64_t> c;
    int64_t k = 0;
    bool operator==(const Lin& o) const { return c == o.c && k == o.k; }
};
std::optional<Lin> lin(const Expr& e, const Lets& lets) {
    if (auto i = as_const_int(e)) return Lin{{}, *i};
    if (auto* v = e->as<VarNode>()) {
        auto it = lets.find(v);
        if (it != lets.end()) return lin(it->second, lets);
        return Lin{{{v, 1}}, 0};
    }
    auto* b = e->as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = lin(b->a, lets), y = lin(b->b, lets);
    if (!x || !y) return std::nullopt;
    auto add = [](Lin a, const Lin& o, int64_t s) {
        for (auto [v, c] : o.c)
            if ((a.c[v] += s * c) == 0) a.c.erase(v);
        a.k += s * o.k;
        return a;
    };
    if (b->op == BinaryOp::Add) return add(*x, *y, 1);
    if (b->op == BinaryOp::Sub) return add(*x, *y, -1);
    if (b->op == BinaryOp::Mul && (x->c.empty() || y->c.empty())) {
        const Lin& s = x->c.empty() ? *y : *x;
        const int64_t m = x->c.empty() ? x->k : y->k;
        return add(Lin{}, s, m);
    }
    return std::nullopt;
}
Lin var_times(const Var& v, int64_t c) { return Lin{{{v.get(), c}}, 0}; }
bool lin_is(const Expr& e, const Lets& lets, const Lin& want) {
    auto l = lin(e, lets);
    return l && *l == want;
}

// Evaluates an integer expression with `env` bound (the loop bound as a function of bx).
std::optional<int64_t> eval_int(const Expr& e, const Lets& lets, const std::map<const VarNode*, int64_t>& env) {
    if (auto i = as_const_int(e)) return *i;
    if (auto* v = e->as<VarNode>()) {
        if (auto it = env.find(v); it != env.end()) return it->second;
        if (auto it = lets.find(v); it != lets.end()) return eval_int(it->second, lets, env);
        return std::nullopt;
    }
    if (auto* c = e->as<CastNode>(); c && c->dtype.is_int()) return eval_int(c->value, lets, env);
    auto* b = e->as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = eval_int(b->a, lets, env), y = eval_int(b->b, lets, env);
    if (!x || !y) return std::nullopt;
    auto floordiv = [](int64_t a, int64_t d) { return a / d - ((a % d != 0) && ((a < 0) != (d < 0))); };
    switch (b->op) {
        case BinaryOp::Add: return *x + *y;
        case BinaryOp::Sub: return *x - *y;
        case BinaryOp::Mul: return *x * *y;
        case BinaryOp::Min: return std::min(*x, *y);
        case BinaryOp::Max: return std::max(*x, *y);
        case BinaryOp::FloorDiv: return *y == 0 ? std::nullopt : std::optional<int64_t>(floordiv(*x, *y));
        case BinaryOp::FloorMod: return *y == 0 ? std::nullopt : std::optional<int64_t>(*x - floordiv(*x, *y) * *y);
        case BinaryOp::Div: return *y == 0 ? std::nullopt : std::optional<int64_t>(*x / *y);
        default: return std::nullopt;
    }
}

bool is_zero(const Expr& e) {
    auto f = as_const_float(e);
    auto i = as_const_int(e);
    return (f && *f == 0.0) || (i && *i == 0);
}
bool is_neg_inf(const Expr& e) {
    if (auto f = as_const_float(e)) return std::isinf(*f) && *f < 0;
    auto* u = e->as<UnaryNode>();
    if (!u || u->op != UnaryOp::Neg) return false;
    if (auto f = as_const_float(u->a)) return std::isinf(*f) && *f > 0;
    auto* c = u->a->as<CallNode>();
    return c && c->op == "infinity";
}

bool load_of(const Expr& e, const Buffer& b, const std::vector<Var>& idx) {
    auto* l = e->as<BufferLoadNode>();
    if (!l || l->buffer != b || l->indices.size() != idx.size()) return false;
    for (size_t i = 0; i < idx.size(); ++i)
        if (l->indices[i] != idx[i]) return false;
    return true;
}
// a * b in either order, each side checked by its own predicate.
bool mul_of(const Expr& e, const std::function<bool(const Expr&)>& p, const std::function<bool(const Expr&)>& q) {
    auto* b = e->as<BinaryNode>();
    return b && b->op == BinaryOp::Mul && ((p(b->a) && q(b->b)) || (p(b->b) && q(b->a)));
}
// buf[idx] * c with a float constant c: the softmax scale (all of them must agree).
bool scaled_load(const Expr& e, const Buffer& b, const std::vector<Var>& idx, std::optional<double>& scale) {
    std::optional<double> c;
    bool ok = mul_of(e, [&](const Expr& x) { return load_of(x, b, idx); },
                     [&](const Expr& x) { return (c = as_const_float(x)).has_value(); });
    if (!ok || !std::isfinite(*c) || *c <= 0) return false;
    if (scale && *scale != *c) return false;
    scale = c;
    return true;
}
// exp2(a[ia] * c - b[ib] * c)
bool exp2_diff(const Expr& e, const Buffer& a, const std::vector<Var>& ia, const Buffer& b, const std::vector<Var>& ib,
               std::optional<double>& scale) {
    auto* c = e->as<CallNode>();
    if (!c || c->op != "exp2" || c->args.size() != 1) return false;
    auto* d = c->args[0]->as<BinaryNode>();
    return d && d->op == BinaryOp::Sub && scaled_load(d->a, a, ia, scale) && scaled_load(d->b, b, ib, scale);
}

// A T.Parallel nest of exactly `extents` (from 0) around one store; returns the store and
// its loop variables.
const BufferStoreNode* parallel_store(const Stmt& s, const std::vector<int64_t>& extents, std::vector<Var>& vars) {
    vars.clear();
    Stmt cur = s;
    for (int64_t ext : extents) {
        auto* f = cur->as<ForNode>();
        if (!f || f->for_kind != ForKind::Parallel || !is_zero(f->min) || as_const_int(f->extent) != ext) return nullptr;
        vars.push_back(f->loop_var);
        cur = f->body;
        while (auto* q = cur->as<SeqStmtNode>()) {
            if (q->seq.size() != 1) return nullptr;
            cur = q->seq[0];
        }
    }
    auto* st = cur->as<BufferStoreNode>();
    if (!st || st->indices.size() != vars.size()) return nullptr;
    for (size_t i = 0; i < vars.size(); ++i)
        if (st->indices[i] != vars[i]) return nullptr;
    return st;
}

bool whole(const BufferRegion& r) {
    if (r.region.size() != r.buffer->shape.size()) return false;
    for (size_t i = 0; i < r.region.size(); ++i)
        if (!is_zero(r.region[i].min) || as_const_int(r.region[i].extent) != as_const_int(r.buffer->shape[i])) return false;
    return true;
}
bool shape_is(const Buffer& b, std::vector<int64_t> want, Scope scope, DataType t) {
    if (b->scope != scope || b->dtype != t || b->shape.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
        if (as_const_int(b->shape[i]) != want[i]) return false;
    return true;
}

void flatten(const Stmt& s, std::vector<Stmt>& out, Lets& lets) {
    if (!s) return;
    if (auto* q = s->as<SeqStmtNode>()) {
        for (const auto& c : q->seq) flatten(c, out, lets);
        return;
    }
    if (auto* l = s->as<LetStmtNode>()) {  // `loop_range = ...`: keep the binding, walk on
        lets[l->var.get()] = l->value;
        flatten(l->body, out, lets);
        return;
    }
    out.push_back(s);
}

struct Plan {
    bool causal = false;
    double scale = 0;
    int64_t batch = 0, heads = 0, seq = 0, dim = 0;
    Buffer q, k, v, out;  // the global tensors
};

// Match state shared by the checks: the block variables and the let bindings.
struct Matcher {
    const PrimFunc& func;
    const KernelLaunchNode& launch;
    Lets lets;
    Plan plan;
    int64_t bm = 0, bn = 0;
    std::optional<double> scale;

    Matcher(const PrimFunc& f, const KernelLaunchNode& k) : func(f), launch(k) {}

    bool is_param(const Buffer& b) const {
        for (const auto& p : func.params)
            if (p.buffer == b) return true;
        return false;
    }
    // buf[bz, by, row0 : row0 + rows, 0 : dim] of a BHSD tensor; row0 must be `rows_at`.
    std::string tile(const BufferRegion& r, const Lin& rows_at, int64_t rows, const char* what) const {
        const Buffer& g = r.buffer;
        if (g->scope != Scope::Global || !is_param(g)) return std::string(what) + " is not a tensor parameter";
        if (!shape_is(g, {plan.batch, plan.heads, plan.seq, plan.dim}, Scope::Global, DataType::float16()))
            return std::string(what) + " is not a float16 [batch, heads, seq, dim] (BHSD) tensor of Q's shape";
        const auto& rg = r.region;
        if (!lin_is(rg[0].min, lets, var_times(launch.block_vars[2], 1)) || as_const_int(rg[0].extent) != 1 ||
            !lin_is(rg[1].min, lets, var_times(launch.block_vars[1], 1)) || as_const_int(rg[1].extent) != 1)
            return std::string("the ") + what + " tile is not [bz, by, rows, :] of a BHSD tensor (other layouts stay on mma.sync)";
        if (!lin_is(rg[2].min, lets, rows_at) || as_const_int(rg[2].extent) != rows || !is_zero(rg[3].min) ||
            as_const_int(rg[3].extent) != plan.dim)
            return std::string("the ") + what + " tile's rows or columns differ from the attention tiling";
        return {};
    }

    std::string run() {
        if (launch.grid.size() != 3 || launch.block_vars.size() != 3) return "the grid is not (query tiles, heads, batch)";
        std::vector<Stmt> top;
        Stmt body = launch.body;
        while (auto* a = body->as<AllocateNode>()) {
            if (a->init) return "a T.alloc_var in the kernel";
            body = a->body;
        }
        flatten(body, top, lets);
        if (top.size() != 7) return "the kernel is not: Q copy, three fills, one T.Pipelined loop, normalise, store";
        // Prologue: the Q tile and the three fills, in any order.
        const CopyOpNode* qcopy = nullptr;
        std::vector<const FillOpNode*> fill_list;
        for (size_t i = 0; i < 4; ++i) {
            if (auto* c = top[i]->as<CopyOpNode>(); c && !qcopy) qcopy = c;
            else if (auto* f = top[i]->as<FillOpNode>()) fill_list.push_back(f);
            else return "the prologue holds more than the Q copy and the fills of acc_o, logsum and the row max";
        }
        if (!qcopy || fill_list.size() != 3) return "the prologue holds more than the Q copy and the fills of acc_o, logsum and the row max";
        auto* loop = top[4]->as<ForNode>();
        if (!loop || loop->for_kind != ForKind::Pipelined || !is_zero(loop->min)) return "no T.Pipelined kv loop from 0 after the prologue";
        const Var kv = loop->loop_var;

        std::vector<Stmt> b;
        Lets inner;
        flatten(loop->body, b, inner);
        if (!inner.empty()) return "a let binding inside the kv loop";
        // The K and V copies may sit anywhere before their gemm; take them out first.
        const CopyOpNode *kcopy = nullptr, *vcopy = nullptr;
        std::vector<Stmt> rest;
        size_t k_at = 0, v_at = 0;  // positions in `rest` the copies came before
        for (const auto& s : b) {
            auto* c = s->as<CopyOpNode>();
            if (c && c->src.buffer->scope == Scope::Global) {
                if (!kcopy) kcopy = c, k_at = rest.size();
                else if (!vcopy) vcopy = c, v_at = rest.size();
                else return "more than two global copies in the kv loop";
                continue;
            }
            rest.push_back(s);
        }
        if (!kcopy || !vcopy || rest.size() != 11) return "the kv loop is not the online-softmax body (11 statements besides the K and V copies)";
        if (k_at > 1 || v_at > 10) return "the K or V tile is copied after the gemm that reads it";
        if (rest[8]->as<ForNode>() && rest[9]->as<CopyOpNode>()) std::swap(rest[8], rest[9]);  // rescale before the cast: same result
        auto* qk = rest[1]->as<GemmOpNode>();
        auto* pv = rest[10]->as<GemmOpNode>();
        if (!qk || !pv) return "the kv loop does not run T.gemm(Q_shared, K_shared, acc_s, transpose_B=True) ... T.gemm(acc_s_cast, V_shared, acc_o)";
        if (qk->transpose_A || !qk->transpose_B || qk->clear_accum || pv->transpose_A || pv->transpose_B || pv->clear_accum)
            return "a gemm transposes differently or clears its accumulator";
        if (!whole(qk->A) || !whole(qk->B) || !whole(qk->C) || !whole(pv->A) || !whole(pv->B) || !whole(pv->C))
            return "a gemm works on part of a buffer";
        const Buffer &q_sh = qk->A.buffer, &k_sh = qk->B.buffer, &acc_s = qk->C.buffer;
        const Buffer &p_cast = pv->A.buffer, &v_sh = pv->B.buffer, &acc_o = pv->C.buffer;
        if (kcopy->dst.buffer != k_sh || vcopy->dst.buffer != v_sh || qcopy->dst.buffer != q_sh)
            return "the Q, K, V copies do not fill the gemms' shared operands";
        if (q_sh == k_sh || q_sh == v_sh) return "Q_shared is overwritten by the K or V copy";
        if (!whole(kcopy->dst) || !whole(vcopy->dst) || !whole(qcopy->dst)) return "a Q, K or V copy fills part of its tile";
        auto qs = q_sh->shape.size() == 2 ? as_const_int(q_sh->shape[0]) : std::nullopt;
        auto ks = k_sh->shape.size() == 2 ? as_const_int(k_sh->shape[0]) : std::nullopt;
        if (!qs || !ks) return "the Q or K tile is not 2-D";
        bm = *qs;
        bn = *ks;
        const auto& qt = qcopy->src.buffer;
        if (qt->shape.size() != 4) return "Q is not a 4-D BHSD tensor";
        for (int i = 0; i < 4; ++i) {
            auto c = as_const_int(qt->shape[i]);
            if (!c || *c <= 0) return "Q's shape is not constant";
        }
        plan.batch = *as_const_int(qt->shape[0]);
        plan.heads = *as_const_int(qt->shape[1]);
        plan.seq = *as_const_int(qt->shape[2]);
        plan.dim = *as_const_int(qt->shape[3]);
        if (kcopy->src.buffer->shape.size() != 4 || as_const_int(kcopy->src.buffer->shape[2]) != plan.seq)
            return "seq_q != seq_kv (the template takes one sequence length)";
        if (plan.dim != 64 && plan.dim != 128) return "dim " + std::to_string(plan.dim) + " (the template is checked at 64 and 128)";
        const DataType f16 = DataType::float16(), f32 = DataType::float32();
        if (!shape_is(q_sh, {bm, plan.dim}, Scope::Shared, f16) || !shape_is(k_sh, {bn, plan.dim}, Scope::Shared, f16) ||
            !shape_is(v_sh, {bn, plan.dim}, Scope::Shared, f16) || !shape_is(acc_s, {bm, bn}, Scope::Fragment, f32) ||
            !shape_is(p_cast, {bm, bn}, Scope::Fragment, f16) || !shape_is(acc_o, {bm, plan.dim}, Scope::Fragment, f32))
            return "tile shapes or dtypes differ (float16 Q/K/V tiles, float32 acc_s/acc_o, float16 acc_s_cast)";
        if (std::string e = tile(qcopy->src, var_times(launch.block_vars[0], bm), bm, "Q"); !e.empty()) return e;
        if (std::string e = tile(kcopy->src, var_times(kv, bn), bn, "K"); !e.empty()) return e;
        if (std::string e = tile(vcopy->src, var_times(kv, bn), bn, "V"); !e.empty()) return e;
        plan.q = qt;
        plan.k = kcopy->src.buffer;
        plan.v = vcopy->src.buffer;
        if (plan.q == plan.k || plan.q == plan.v || plan.k == plan.v) return "Q, K and V are not three tensors";
        const int64_t nq = (plan.seq + bm - 1) / bm, nkv = (plan.seq + bn - 1) / bn;
        if (as_const_int(launch.grid[0]) != nq || as_const_int(launch.grid[1]) != plan.heads || as_const_int(launch.grid[2]) != plan.batch)
            return "the grid is not (ceildiv(seq_q, block_M), heads, batch)";

        // 0: acc_s[i, j] = T.if_then_else(mask, 0, -inf) (the gemm then adds the scores).
        std::vector<Var> ij, ij2, iv;
        auto* m = parallel_store(rest[0], {bm, bn}, ij);
        if (!m || m->buffer != acc_s) return "acc_s is not set to 0 / -inf by a T.Parallel mask before the QK gemm";
        auto* sel = m->value->as<SelectNode>();
        if (!sel || !is_zero(sel->true_value) || !is_neg_inf(sel->false_value)) return "the mask is not T.if_then_else(cond, 0, -inf)";
        const Var &i = ij[0], &j = ij[1];
        Lin col = var_times(kv, bn);
        col.c[j.get()] = 1;
        Lin row = var_times(launch.block_vars[0], bm);
        row.c[i.get()] = 1;
        auto kv_bound = [&](const Expr& e) {  // k * block_N + j < seq_kv
            auto* c = e->as<BinaryNode>();
            if (!c) return false;
            if (c->op == BinaryOp::LT) return lin_is(c->a, lets, col) && as_const_int(c->b) == plan.seq;
            if (c->op == BinaryOp::GT) return lin_is(c->b, lets, col) && as_const_int(c->a) == plan.seq;
            return false;
        };
        auto causal = [&](const Expr& e) {  // bx * block_M + i >= k * block_N + j
            auto* c = e->as<BinaryNode>();
            if (!c) return false;
            if (c->op == BinaryOp::GE) return lin_is(c->a, lets, row) && lin_is(c->b, lets, col);
            if (c->op == BinaryOp::LE) return lin_is(c->b, lets, row) && lin_is(c->a, lets, col);
            return false;
        };
        auto* both = sel->cond->as<BinaryNode>();
        if (kv_bound(sel->cond)) plan.causal = false;
        else if (causal(sel->cond)) plan.causal = true;  // rows < seq: columns past seq are masked too
        else if (both && both->op == BinaryOp::And &&
                 ((causal(both->a) && kv_bound(both->b)) || (kv_bound(both->a) && causal(both->b))))
            plan.causal = true;
        else return "the mask is neither `k * block_N + j < seq_kv` nor that and the causal `bx * block_M + i >= k * block_N + j`";
        // The loop bound: all kv tiles, or (causal) up to the diagonal, for every query tile.
        for (int64_t x = 0; x < nq; ++x) {
            auto n = eval_int(loop->extent, lets, {{launch.block_vars[0].get(), x}});
            const int64_t all = nkv, diag = std::min(nkv, ((x + 1) * bm + bn - 1) / bn);
            if (!n || (*n != all && !(plan.causal && *n == diag)))
                return plan.causal ? "the kv loop bound is neither ceildiv(seq_kv, block_N) nor the causal one"
                                   : "the kv loop bound is not ceildiv(seq_kv, block_N)";
        }
        // 2, 3: scores_max_prev = scores_max; reduce_max(acc_s, scores_max, dim=1, clear=False)
        auto* cp = rest[2]->as<CopyOpNode>();
        auto* rmax = rest[3]->as<ReduceOpNode>();
        if (!cp || !rmax || rmax->reduce_kind != ReduceKind::Max || rmax->src != acc_s || rmax->dim != 1 || rmax->clear ||
            cp->src.buffer != rmax->dst || !whole(cp->src) || !whole(cp->dst))
            return "the running max is not `T.copy(scores_max, prev); T.reduce_max(acc_s, scores_max, dim=1, clear=False)`";
        const Buffer &mx = rmax->dst, &prev = cp->dst.buffer;
        // 4: scores_scale[i] = exp2(prev[i] * c - max[i] * c)
        auto* s4 = parallel_store(rest[4], {bm}, iv);
        if (!s4 || !exp2_diff(s4->value, prev, iv, mx, iv, scale)) return "the correction is not exp2(prev * scale - max * scale)";
        const Buffer& corr = s4->buffer;
        // 5: acc_s[i, j] = exp2(acc_s[i, j] * c - max[i] * c)
        auto* s5 = parallel_store(rest[5], {bm, bn}, ij2);
        if (!s5 || s5->buffer != acc_s || !exp2_diff(s5->value, acc_s, ij2, mx, {ij2[0]}, scale))
            return "the probabilities are not exp2(acc_s * scale - max * scale) with the correction's scale";
        // 6: reduce_sum(acc_s, scores_sum, dim=1) (clearing)
        auto* rsum = rest[6]->as<ReduceOpNode>();
        if (!rsum || rsum->reduce_kind != ReduceKind::Sum || rsum->src != acc_s || rsum->dim != 1 || !rsum->clear)
            return "the row sum is not T.reduce_sum(acc_s, scores_sum, dim=1)";
        const Buffer& sum = rsum->dst;
        // 7: logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
        auto* s7 = parallel_store(rest[7], {bm}, iv);
        auto* add = s7 ? s7->value->as<BinaryNode>() : nullptr;
        const Buffer logsum = s7 ? s7->buffer : nullptr;
        auto ld = [&](const Buffer& bb, std::vector<Var> idx) { return [&, bb, idx](const Expr& e) { return load_of(e, bb, idx); }; };
        auto rescaled = [&](const Expr& e) { return mul_of(e, ld(logsum, iv), ld(corr, iv)); };
        if (!add || add->op != BinaryOp::Add || !((rescaled(add->a) && load_of(add->b, sum, iv)) || (rescaled(add->b) && load_of(add->a, sum, iv))))
            return "logsum is not updated as logsum * scores_scale + scores_sum";
        // 8: acc_s_cast = acc_s
        auto* cast = rest[8]->as<CopyOpNode>();
        if (!cast || cast->src.buffer != acc_s || cast->dst.buffer != p_cast || !whole(cast->src) || !whole(cast->dst))
            return "acc_s_cast is not T.copy(acc_s, acc_s_cast)";
        // 9: acc_o[i, j] *= scores_scale[i]
        auto* s9 = parallel_store(rest[9], {bm, plan.dim}, ij2);
        if (!s9 || s9->buffer != acc_o || !mul_of(s9->value, ld(acc_o, ij2), ld(corr, {ij2[0]})))
            return "acc_o is not rescaled by scores_scale";
        // The prologue's fills: acc_o = 0, logsum = 0, max = -inf.
        for (auto* f : fill_list) {
            if (!whole(f->dst)) return "a prologue fill covers part of its buffer";
            const Buffer& d = f->dst.buffer;
            if (!((d == acc_o && is_zero(f->value)) || (d == logsum && is_zero(f->value)) || (d == mx && is_neg_inf(f->value))))
                return "the prologue fills are not acc_o = 0, logsum = 0, scores_max = -inf";
        }
        if (fill_list[0]->dst.buffer == fill_list[1]->dst.buffer || fill_list[0]->dst.buffer == fill_list[2]->dst.buffer ||
            fill_list[1]->dst.buffer == fill_list[2]->dst.buffer)
            return "the prologue fills are not acc_o = 0, logsum = 0, scores_max = -inf";
        for (const Buffer& r : {mx, prev, corr, sum, logsum})
            if (!shape_is(r, {bm}, Scope::Fragment, f32)) return "a row statistic is not a float32 [block_M] fragment";
        const Buffer rows[] = {mx, prev, corr, sum, logsum, acc_s, acc_o, p_cast};
        for (size_t x = 0; x < 8; ++x)
            for (size_t y = x + 1; y < 8; ++y)
                if (rows[x] == rows[y]) return "two roles of the online softmax share a buffer";
        // Epilogue: acc_o[i, j] /= logsum[i]; T.copy(acc_o, Output tile)
        auto* s10 = parallel_store(top[5], {bm, plan.dim}, ij2);
        auto* dv = s10 ? s10->value->as<BinaryNode>() : nullptr;
        if (!s10 || s10->buffer != acc_o || !dv || dv->op != BinaryOp::Div || !load_of(dv->a, acc_o, ij2) ||
            !load_of(dv->b, logsum, {ij2[0]}))
            return "the epilogue does not normalise acc_o /= logsum";
        auto* st = top[6]->as<CopyOpNode>();
        if (!st || st->src.buffer != acc_o || !whole(st->src)) return "the epilogue does not store acc_o";
        if (std::string e = tile(st->dst, var_times(launch.block_vars[0], bm), bm, "Output"); !e.empty()) return e;
        plan.out = st->dst.buffer;
        if (plan.out == plan.q || plan.out == plan.k || plan.out == plan.v) return "the output aliases an input";
        plan.scale = *scale;
        return {};
    }
};
// A pipelined loop with two gemms: worth a remark when the rest does not match.
bool looks_like_attention(const Stmt& body) {
    struct V : IRVisitor {
        int gemms_in_pipelined = 0, depth = 0;
        void visit_For(const ForNode& n, const Stmt& s) override {
            const bool p = n.for_kind == ForKind::Pipelined;
            depth += p;
            IRVisitor::visit_For(n, s);
            depth -= p;
        }
        void visit_GemmOp(const GemmOpNode&, const Stmt&) override { gemms_in_pipelined += depth > 0; }
    } v;
    v.visit(body);
    return v.gemms_in_pipelined >= 2;
}

const KernelLaunchNode* the_launch(const Stmt& body) {
    Stmt cur = body;
    while (auto* q = cur->as<SeqStmtNode>()) {
        if (q->seq.size() != 1) return nullptr;
        cur = q->seq[0];
    }
    return cur->as<KernelLaunchNode>();
}

}  // namespace

PrimFuncPtr warp_specialize_attention(const PrimFuncPtr& func, const Target& target) {
    if (!target.has_wgmma() || !func || !func->body || !looks_like_attention(func->body)) return func;
    auto out = std::make_shared<PrimFunc>(*func);
    auto skip = [&](const std::string& why) {
        out->attrs["tp.ws_attention"] = "not applied: " + why;
        return out;
    };
    const KernelLaunchNode* kl = the_launch(func->body);
    if (!kl) return skip("the kernel body is not one T.Kernel");
    Matcher m(*func, *kl);
    if (std::string why = m.run(); !why.empty()) return skip(why);
    const Plan& p = m.plan;
    const int64_t bytes = kBM * p.dim * 2 + 2 * kStages * kBN * p.dim * 2 + (2 + 4 * kStages) * 8;
    const int64_t limit = target.max_smem_per_block > 0 ? target.max_smem_per_block : 227 * 1024;
    if (bytes + 1024 > limit) return skip("the template's shared memory exceeds the target's limit");
    const int64_t bh = p.batch * p.heads;
    if (p.seq * p.dim * 2 * bh >= (int64_t(1) << 40) || bh >= (int64_t(1) << 31)) return skip("the tensors exceed TMA's extents");

    // Persistent grid: units are query tiles (causal: pairs of equal cost), at most one block
    // per SM; any count is correct, the SM count only balances the deal.
    const int64_t nq = (p.seq + kBM - 1) / kBM, units = (p.causal ? (nq + 1) / 2 : nq) * bh;
    const int64_t programs = std::min<int64_t>(units, target.sm_count > 0 ? target.sm_count : 132);
    const Span sp = kl->span;
    const std::string causal = cuda_bool(p.causal), T = p.q->dtype.cuda_name();
    const std::string A = "tp::WsAttention<" + T + ", " + std::to_string(p.dim) + ", " + std::to_string(kBN) + ", " +
                          std::to_string(kConsumers) + ", " + std::to_string(kStages) + ", " + causal + ", true, true>";
    const std::string run = "tp::WsAttentionKernel<" + A + ", " + T + ", " + causal + ", true>::run";
    Buffer smem = std::make_shared<BufferNode>("tp_fa_smem", DataType(DataType::UInt, 8), std::vector<Expr>{int_imm(bytes)},
                                               Scope::Shared, sp);
    auto tma = [&](int i) { return make_call("tp.tma_desc", {int_imm(i)}, DataType(DataType::Handle, 64), sp); };
    Stmt call = device_call(run, {buffer_addr(smem, {int_imm(0)}, true, sp), tma(0), tma(1), tma(2),
                                  buffer_addr(p.out, {int_imm(0), int_imm(0), int_imm(0), int_imm(0)}, true, sp),
                                  int_imm(p.seq), int_imm(bh), float_imm(p.scale)},
                            sp);
    Var pid = std::make_shared<VarNode>("tp_pid", DataType::int32(), VarKind::BlockIdx, sp);
    out->body = std::make_shared<KernelLaunchNode>(std::vector<Expr>{int_imm(programs)}, std::vector<Var>{pid},
                                                   std::vector<int64_t>{kThreads}, kl->thread_vars,
                                                   std::make_shared<AllocateNode>(smem, nullptr, call, sp), sp);
    // Q, K, V as [batch * heads, seq, dim] maps; boxes {64, BM or BN, 1} in 128B-swizzle rows.
    auto param = [&](const Buffer& b) {
        for (const auto& pr : func->params)
            if (pr.buffer == b) return pr.name;
        return std::string();
    };
    const std::string view = ":" + std::to_string(bh) + "x" + std::to_string(p.seq) + "x" + std::to_string(p.dim);
    out->attrs["tp.ws"] = "1";
    out->attrs["tp.tma_maps"] = param(p.q) + ":64x" + std::to_string(kBM) + "x1:128" + view + ";" + param(p.k) + ":64x" +
                                std::to_string(kBN) + "x1:128" + view + ";" + param(p.v) + ":64x" + std::to_string(kBN) + "x1:128" + view;
    out->attrs["tp.ws_attention"] = A + (p.causal ? " causal" : " full") + ", persistent grid " + std::to_string(programs) +
                                    ", scale " + std::to_string(p.scale);
    return out;
}

}  // namespace tp::transform
