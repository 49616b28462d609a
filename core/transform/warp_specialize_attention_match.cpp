// The statement-by-statement match of samples/flash_attention.py's kernel for
// warp_specialize_attention (see warp_specialize_attention.h). Matcher::run returns the reason
// for the first mismatch; an empty reason means the kernel computes exactly what the template
// computes (up to floating-point rounding of the same online softmax), with the plan filled in.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "transform/warp_specialize_attention_internal.h"

namespace tp::transform::ws_attention {

std::string Matcher::tile(const BufferRegion& r, const Lin& rows_at, int64_t rows, const char* what) const {
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

std::string Matcher::run() {
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

}  // namespace tp::transform::ws_attention
