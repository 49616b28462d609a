// TileLang's explicit synchronisation API: T.alloc_barrier (mbarriers with arrive counts),
// the operations on them (T.mbarrier_arrive / T.barrier_arrive, T.mbarrier_wait_parity /
// T.barrier_wait, T.mbarrier_expect_tx, T.mbarrier_arrive_expect_tx), T.tma_copy (a load the
// user tracks on a barrier), a thread's own asynchronous copies (T.access_ptr, T.ptx_cp_async,
// T.cp_async_barrier_noinc), T.fence_proxy_async, and `with T.ws(i)` warp-group roles.
// The kernel's structure (which role waits for which) is the user's; these only stage it.
#include <algorithm>

#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "barrier"}, std::move(fn)});
}

struct BarrierRef {
    ir::Buffer buffer;
    ir::Expr index;
};

// `bars[i]` or a whole barrier buffer (its first mbarrier, as TileLang reads it).
BarrierRef as_barrier(Evaluator& ev, const Value& v, Span span, const std::string& fname) {
    BarrierRef r;
    if (v.kind == VK::Buffer) {
        r.buffer = v.as<BufferObj>()->b;
        r.index = ir::int_imm(0);
    } else if (v.kind == VK::Expr) {
        if (auto* load = v.as<ExprObj>()->e->as<ir::BufferLoadNode>(); load && load->indices.size() == 1) {
            r.buffer = load->buffer;
            r.index = load->indices[0];
        }
    }
    if (!r.buffer || r.buffer->scope != ir::Scope::Barrier)
        ev.fail(DiagKind::TypeMismatch, span,
                {"`" + fname + "` expects an mbarrier from `T.alloc_barrier` (`bars` or `bars[i]`), got " + type_name(v)});
    auto n = static_cast<int64_t>(r.buffer->arrive_counts.size());
    if (auto c = ir::as_const_int(r.index); c && (*c < 0 || *c >= n))
        ev.fail(DiagKind::TypeMismatch, span,
                {"mbarrier index " + std::to_string(*c) + " is outside `" + r.buffer->name + "`, which holds " + std::to_string(n)});
    return r;
}

Value stage_barrier_op(Evaluator& ev, CallArgs& a, const std::string& fname, ir::BarrierKind kind, const char* value_name) {
    std::vector<std::string> names = {"mbarrier"};
    if (value_name) names.push_back(value_name);
    if (kind == ir::BarrierKind::Arrive) names.push_back("cta_id");
    ArgReader rd(ev, a, fname, names);
    require_kernel(ev, fname, a.span);
    BarrierRef b = as_barrier(ev, rd.require(0), rd.span(0), fname);
    ir::Expr value;
    if (value_name) {
        value = ev.to_expr(rd.require(1), rd.span(1), value_name);
        if (!value->dtype.is_int())
            ev.fail(DiagKind::TypeMismatch, rd.span(1), {"`" + std::string(value_name) + "` of `" + fname + "` must be an integer"});
    }
    if (kind == ir::BarrierKind::Arrive)
        if (const Value* cta = rd.get(1); cta && !cta->is_none())
            ev.fail(DiagKind::UnsupportedConstruct, rd.span(1), {"cta_id", " (arrivals on another block's barrier in a cluster)"});
    ev.stager.emit(std::make_shared<ir::BarrierOpNode>(kind, b.buffer, b.index, value, a.span));
    return Value::none();
}

std::string unique_barrier_name(Evaluator& ev) {
    std::string base = ev.name_hint.empty() ? "mbar" : ev.name_hint, n = base;
    ev.name_hint.clear();
    for (int k = 1; ev.kernel->buffer_names.count(n); ++k) n = base + "_" + std::to_string(k);
    ev.kernel->buffer_names.insert(n);
    return n;
}

Value alloc_barrier(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.alloc_barrier", {"arrive_count"});
    require_kernel(ev, "T.alloc_barrier", a.span);
    const Value& v = rd.require(0);
    std::vector<Value> items = v.is_seq() ? items_of(v) : std::vector<Value>{v};
    if (items.empty()) ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`T.alloc_barrier` needs at least one arrive count"});
    std::vector<int64_t> counts;
    for (const auto& it : items) {
        int64_t c = ev.as_int(it, rd.span(0), "arrive_count");
        // mbarrier.init takes counts in [1, 2^20 - 1].
        if (c < 1 || c >= (int64_t(1) << 20))
            ev.fail(DiagKind::TypeMismatch, rd.span(0), {"an mbarrier's arrive count must be in [1, 1048575], got " + std::to_string(c)});
        counts.push_back(c);
    }
    auto buf = std::make_shared<ir::BufferNode>(unique_barrier_name(ev), ir::DataType(ir::DataType::UInt, 64),
                                                std::vector<ir::Expr>{ir::int_imm(static_cast<int64_t>(counts.size()))}, ir::Scope::Barrier, a.span);
    buf->arrive_counts = std::move(counts);
    ev.stager.add_allocation(buf, nullptr, a.span);
    return Value::buffer(buf);
}

bool unit_dims_equal(const ir::BufferRegion& a, const ir::BufferRegion& b) {
    auto squeeze = [](const ir::BufferRegion& r, std::vector<int64_t>& out) {
        for (const auto& d : r.region) {
            auto c = ir::as_const_int(d.extent);
            if (!c) return false;
            if (*c != 1) out.push_back(*c);
        }
        return true;
    };
    std::vector<int64_t> x, y;
    if (!squeeze(a, x) || !squeeze(b, y)) return true;  // symbolic: checked when it runs
    return x == y;
}

// T.tma_copy(src, dst, barrier=bars[i]): a tile copy whose completion the user tracks on the
// mbarrier (the load counts its bytes there); a store (shared -> global) needs none.
Value tma_copy(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.tma_copy", {"src", "dst", "barrier", "cluster_mask", "leader_scope_threads", "eviction_policy", "annotations"});
    require_kernel(ev, "T.tma_copy", a.span);
    RegionObj src = as_region(ev, rd.require(0), rd.span(0), "T.tma_copy");
    RegionObj dst = as_region(ev, rd.require(1), rd.span(1), "T.tma_copy");
    ir::BufferRegion s = complete_region(ev, src, &dst, rd.span(0));
    ir::BufferRegion d = complete_region(ev, dst, &src, rd.span(1));
    if (!unit_dims_equal(s, d))
        ev.fail(DiagKind::ShapeMismatch, a.span, {"`T.tma_copy` from `" + s.buffer->name + "` to `" + d.buffer->name + "` with different shapes"});
    bool load = s.buffer->scope == ir::Scope::Global && d.buffer->scope == ir::Scope::Shared;
    bool store = s.buffer->scope == ir::Scope::Shared && d.buffer->scope == ir::Scope::Global;
    if (!load && !store)
        ev.fail(DiagKind::TypeMismatch, a.span,
                {"`T.tma_copy` copies global -> shared or shared -> global, not " + std::string(ir::scope_name(s.buffer->scope)) + " -> " +
                 ir::scope_name(d.buffer->scope)});
    if (const Value* cm = rd.get(3); cm && !cm->is_none())
        ev.fail(DiagKind::UnsupportedConstruct, rd.span(3), {"cluster_mask", " (TMA multicast across a cluster)"});
    auto node = std::make_shared<ir::CopyOpNode>(s, d, a.span);
    const Value* bar = rd.get(2);
    if (load && (!bar || bar->is_none()))
        ev.fail(DiagKind::TypeMismatch, a.span, {"`T.tma_copy` from global memory needs `barrier=`: the mbarrier its bytes complete on"});
    if (bar && !bar->is_none()) {
        BarrierRef b = as_barrier(ev, *bar, rd.span(2), "T.tma_copy");
        node->barrier = std::make_shared<ir::BufferLoadNode>(b.buffer, std::vector<ir::Expr>{b.index}, rd.span(2));
    }
    ev.stager.emit(node);
    return Value::none();
}

// T.access_ptr(A[i, j], "r" | "w", extent=1): a pointer to a run of `extent` elements from the
// point along its last dimension, as the region `A[i, j : j + extent]`.
Value access_ptr(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.access_ptr", {"base", "access_type", "extent", "offset"});
    require_kernel(ev, "T.access_ptr", a.span);
    RegionObj r = as_region(ev, rd.require(0), rd.span(0), "T.access_ptr");
    if (const Value* t = rd.get(1)) {
        std::string mode = ev.as_str(*t, rd.span(1), "access_type");
        if (mode.empty() || mode.find_first_not_of("rw") != std::string::npos)
            ev.fail(DiagKind::TypeMismatch, rd.span(1), {"`T.access_ptr` access type is \"r\", \"w\" or \"rw\", got \"" + mode + "\""});
    }
    if (const Value* off = rd.get(3); off && !off->is_none())
        ev.fail(DiagKind::UnsupportedConstruct, rd.span(3), {"offset=", " on `T.access_ptr`; index the element instead (`A[i, j + offset]`)"});
    // A whole buffer (`T.access_ptr(buf, "r")`) points at its first element and spans it all.
    if (rd.require(0).kind == VK::Buffer) return Value::make(VK::Region, std::make_shared<RegionObj>(r));
    for (auto& d : r.dims)
        if (d.extent && !(ir::as_const_int(d.extent) == 1))
            ev.fail(DiagKind::UnsupportedConstruct, rd.span(0), {"`T.access_ptr` of a region", "; give it one element, `A[i, j]`"});
    auto out = std::make_shared<RegionObj>(r);
    for (auto& d : out->dims) d.extent = ir::int_imm(1);
    if (const Value* e = rd.get(2); e && !e->is_none() && !out->dims.empty()) out->dims.back().extent = ev.to_expr(*e, rd.span(2), "extent");
    return Value::make(VK::Region, out);
}

// T.ptx_cp_async(dst, src, num_elems, predicate=None): this thread copies num_elems elements from
// global memory to shared memory asynchronously, complete by a later cp.async wait or by the
// mbarrier arrival T.cp_async_barrier_noinc makes. Staged as the thread's element copy, done at
// issue (zeros where the predicate is false, as cp.async's zero fill): a valid schedule of the
// asynchronous copy, whose completion the arrival then trivially follows.
Value ptx_cp_async(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.ptx_cp_async", {"dst_access_ptr", "src_access_ptr", "num_elems", "predicate"});
    require_kernel(ev, "T.ptx_cp_async", a.span);
    RegionObj dst = as_region(ev, rd.require(0), rd.span(0), "T.ptx_cp_async");
    RegionObj src = as_region(ev, rd.require(1), rd.span(1), "T.ptx_cp_async");
    if (dst.buffer->scope != ir::Scope::Shared || src.buffer->scope != ir::Scope::Global)
        ev.fail(DiagKind::TypeMismatch, a.span,
                {"`T.ptx_cp_async` copies global -> shared memory, not " + std::string(ir::scope_name(src.buffer->scope)) + " -> " +
                 ir::scope_name(dst.buffer->scope)});
    if (dst.dims.empty() || src.dims.empty()) ev.fail(DiagKind::TypeMismatch, a.span, {"`T.ptx_cp_async` needs element pointers"});
    ir::Expr n = ev.to_expr(rd.require(2), rd.span(2), "num_elems");
    int64_t bytes = ir::as_const_int(n).value_or(0) * dst.buffer->dtype.bytes();
    if (bytes != 4 && bytes != 8 && bytes != 16)
        ev.fail(DiagKind::TypeMismatch, rd.span(2),
                {"`T.ptx_cp_async` copies 4, 8 or 16 bytes (cp.async's sizes); num_elems must be a constant giving one of them"});
    if (!(src.buffer->dtype == dst.buffer->dtype))
        ev.fail(DiagKind::TypeMismatch, a.span, {"`T.ptx_cp_async` from " + src.buffer->dtype.name() + " to " + dst.buffer->dtype.name()});
    auto e = std::make_shared<ir::VarNode>("tp_cp", ir::DataType::int32(), ir::VarKind::Loop, a.span);
    auto at = [&](const RegionObj& r) {
        std::vector<ir::Expr> idx;
        for (const auto& d : r.dims) idx.push_back(d.min);
        idx.back() = ir::make_binary(ir::BinaryOp::Add, idx.back(), e);
        return idx;
    };
    ir::Expr value = std::make_shared<ir::BufferLoadNode>(src.buffer, at(src), a.span);
    ir::Stmt store = std::make_shared<ir::BufferStoreNode>(dst.buffer, at(dst), value, a.span);
    if (const Value* p = rd.get(3); p && !p->is_none()) {
        // The source is not read where the predicate fails (it may lie outside the tensor).
        ir::Expr zero = dst.buffer->dtype.is_float() ? ir::float_imm(0, dst.buffer->dtype, a.span) : ir::int_imm(0, dst.buffer->dtype, a.span);
        ir::Expr cond = ev.to_expr(*p, rd.span(3), "predicate");
        store = std::make_shared<ir::IfThenElseNode>(cond, store, std::make_shared<ir::BufferStoreNode>(dst.buffer, at(dst), zero, a.span), a.span);
    }
    ev.stager.emit(std::make_shared<ir::ForNode>(e, ir::int_imm(0), n, ir::ForKind::Serial, store, a.span));
    return Value::none();
}

Value ws(Evaluator& ev, CallArgs& a) {
    require_kernel(ev, "T.ws", a.span);
    if (!a.kw.empty()) ev.fail(DiagKind::UnknownKeyword, a.kw_spans[0], {"T.ws", a.kw[0].first, ""});
    int64_t threads = 1;
    for (auto t : ev.kernel->thread_extents) threads *= t;
    int64_t available = threads / ir::RoleBlockNode::kGroupThreads;
    auto s = std::make_shared<RoleSpecObj>();
    s->span = a.span;
    for (size_t i = 0; i < a.pos.size(); ++i) {
        int64_t g = ev.as_int(a.pos[i], a.pos_spans[i], "warp group");
        if (g < 0 || g >= available)
            ev.fail(DiagKind::BadWarpGroup, a.pos_spans[i],
                    {"names warp group " + std::to_string(g), std::to_string(threads), std::to_string(available)});
        s->groups.push_back(g);
    }
    if (s->groups.empty())
        ev.fail(DiagKind::BadWarpGroup, a.span, {"needs at least one warp group", std::to_string(threads), std::to_string(available)});
    std::sort(s->groups.begin(), s->groups.end());
    s->groups.erase(std::unique(s->groups.begin(), s->groups.end()), s->groups.end());
    // One contiguous range of threads keeps the role's thread index a plain offset.
    if (s->groups.back() - s->groups.front() + 1 != static_cast<int64_t>(s->groups.size()))
        ev.fail(DiagKind::BadWarpGroup, a.span, {"takes neighbouring warp groups only", std::to_string(threads), std::to_string(available)});
    return Value::make(VK::Role, s);
}

}  // namespace

Flow exec_role_with(Evaluator& ev, const WithScope& w, const Value& specv, const std::shared_ptr<Scope>& sc) {
    const auto& spec = *specv.as<RoleSpecObj>();
    if (ev.kernel->in_role) ev.fail(DiagKind::UnsupportedConstruct, spec.span, {"with T.ws", " inside another `with T.ws(...)`"});
    if (w.item().optional_vars) ev.fail(DiagKind::UnsupportedConstruct, w.item().optional_vars->span, {"with T.ws(...) as", ""});
    ev.kernel->in_role = true;
    ev.stager.push_frame();
    Flow fl;
    try {
        fl = exec_with_body(ev, w, sc);
    } catch (...) {
        ev.kernel->in_role = false;
        throw;
    }
    ev.kernel->in_role = false;
    auto stmts = ev.stager.pop_frame();
    if (fl != Flow::Normal) ev.fail(DiagKind::UnsupportedConstruct, w.stmt.span, {"return/break/continue", " inside `with T.ws(...)`"});
    ev.stager.emit(std::make_shared<ir::RoleBlockNode>(spec.groups, Stager::seal(std::move(stmts), w.stmt.span), w.stmt.span));
    return Flow::Normal;
}

void register_tile_barriers(Reg& r) {
    add(r, "alloc_barrier", "T.alloc_barrier(arrive_count)", "mbarriers in shared memory, one per arrive count of the list",
        [](Evaluator& ev, CallArgs& a) { return alloc_barrier(ev, a); });
    for (const char* name : {"mbarrier_arrive", "barrier_arrive"})
        add(r, name, std::string("T.") + name + "(mbarrier)", "every thread that runs it arrives once on the mbarrier",
            [fname = std::string("T.") + name](Evaluator& ev, CallArgs& a) {
                return stage_barrier_op(ev, a, fname, ir::BarrierKind::Arrive, nullptr);
            });
    for (const char* name : {"mbarrier_wait_parity", "barrier_wait"})
        add(r, name, std::string("T.") + name + "(mbarrier, parity)", "wait until the mbarrier's phase of this parity has completed",
            [fname = std::string("T.") + name](Evaluator& ev, CallArgs& a) {
                return stage_barrier_op(ev, a, fname, ir::BarrierKind::Wait, "parity");
            });
    add(r, "mbarrier_expect_tx", "T.mbarrier_expect_tx(mbarrier, tx)", "the mbarrier's current phase also waits for tx bytes of async copies",
        [](Evaluator& ev, CallArgs& a) { return stage_barrier_op(ev, a, "T.mbarrier_expect_tx", ir::BarrierKind::ExpectTx, "tx"); });
    add(r, "mbarrier_arrive_expect_tx", "T.mbarrier_arrive_expect_tx(mbarrier, tx)", "expect tx bytes on the mbarrier, then arrive",
        [](Evaluator& ev, CallArgs& a) { return stage_barrier_op(ev, a, "T.mbarrier_arrive_expect_tx", ir::BarrierKind::ArriveExpectTx, "tx"); });
    add(r, "tma_copy", "T.tma_copy(src, dst, *, barrier=None)", "an asynchronous tile copy whose bytes complete on `barrier`",
        [](Evaluator& ev, CallArgs& a) { return tma_copy(ev, a); });
    add(r, "access_ptr", "T.access_ptr(A[i, j], access_type, extent=1)", "a pointer to `extent` elements of A from [i, j] (for T.ptx_cp_async)",
        access_ptr);
    add(r, "ptx_cp_async", "T.ptx_cp_async(dst_ptr, src_ptr, num_elems, predicate=None)",
        "this thread's asynchronous copy of 4, 8 or 16 bytes, global -> shared", ptx_cp_async);
    add(r, "cp_async_barrier_noinc", "T.cp_async_barrier_noinc(mbarrier)",
        "one arrival on the mbarrier once this thread's earlier T.ptx_cp_async copies are complete",
        [](Evaluator& ev, CallArgs& a) { return stage_barrier_op(ev, a, "T.cp_async_barrier_noinc", ir::BarrierKind::Arrive, nullptr); });
    add(r, "fence_proxy_async", "T.fence_proxy_async()", "order this thread's shared-memory writes before later async (TMA, wgmma) reads",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.fence_proxy_async", {});
            require_kernel(ev, "T.fence_proxy_async", a.span);
            ev.stager.emit(std::make_shared<ir::EvaluateNode>(ir::make_call("fence_proxy_async", {}, ir::DataType::void_(), a.span), a.span));
            return Value::none();
        });
    add(r, "ws", "T.ws(*warp_groups)", "`with T.ws(i)`: the body runs on warp group i (threads 128 i .. 128 i + 127)",
        [](Evaluator& ev, CallArgs& a) { return ws(ev, a); });
}

}  // namespace tp::eval
