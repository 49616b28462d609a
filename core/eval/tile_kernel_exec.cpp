// Executes the kernel's structure into IR: `with T.Kernel(...)` binds block indices and
// stages the launch, `for` over a T.Parallel / T.Pipelined / T.serial / range spec stages
// IR loops. Kept apart from tile_kernel.cpp, which only builds the specs these consume.
#include <algorithm>

#include "eval/ended_loop_var.h"
#include "eval/grid_sync.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

ir::Var block_var(const std::string& name, ir::VarKind k, Span span, ir::DataType t = ir::DataType::int32()) {
    return std::make_shared<const ir::VarNode>(name, t, k, span);
}

constexpr int64_t kInt32Limit = int64_t(1) << 31;

// Elements of a buffer with constant dims; INT64_MAX when the count overflows (the evaluator
// refuses such shapes, so this only guards the arithmetic here).
int64_t const_elements(const ir::Buffer& b) {
    int64_t n = 1;
    for (const auto& d : b->shape) {
        auto c = ir::as_const_int(d);
        if (!c) return 0;
        if (__builtin_mul_overflow(n, *c, &n)) return INT64_MAX;
    }
    return n;
}

// A kernel whose tensors hold 2^31 elements or more, or whose launch has 2^31 threads or
// more, indexes in 64 bits: its block indices are int64 in the IR, so `bx * block_N + i`
// and every guard and offset built from them is computed in 64 bits (the code generator
// casts the other operands), where int32 would wrap and silently compute the wrong elements.
bool needs_64bit_indices(const KernelContext& k, const KernelSpecObj& spec) {
    for (const auto& p : k.params)
        if (p.buffer && const_elements(p.buffer) >= kInt32Limit) return true;
    for (const auto& b : k.outputs)
        if (const_elements(b) >= kInt32Limit) return true;
    int64_t total = 1;
    for (const auto& g : spec.grid) {
        auto c = ir::as_const_int(g);
        if (!c || __builtin_mul_overflow(total, *c, &total)) return true;
    }
    for (auto t : spec.threads)
        if (__builtin_mul_overflow(total, t, &total)) return true;
    return total >= kInt32Limit;
}

// T.Persistent(domain, wave_size, index, group_size): the block visits tile w * wave_size + index
// of each wave w, TileLang's order: the last dim is cut into groups of group_size, the tile
// number counts through (group, dims..., member) fastest last, so consecutive blocks of a wave
// take neighbouring tiles of one group; past the domain (the last wave, a partial group) it
// skips the body.
ir::Stmt persistent_loop(Evaluator& ev, const ast::For& f, const LoopSpecObj& spec, const std::vector<std::string>& names,
                         const std::vector<Span>& spans, const std::shared_ptr<Scope>& sc) {
    using ir::BinaryOp;
    auto bin = [&](BinaryOp op, ir::Expr a, ir::Expr b) { return ir::make_binary(op, std::move(a), std::move(b), spec.span); };
    auto ceildiv = [&](const ir::Expr& a, const ir::Expr& b) {
        return bin(BinaryOp::FloorDiv, bin(BinaryOp::Sub, bin(BinaryOp::Add, a, b), ir::int_imm(1)), b);
    };
    const size_t n = spec.ranges.size();
    const ir::Expr last = spec.ranges[n - 1].second;
    const ir::Expr g = bin(BinaryOp::Max, ir::int_imm(1), bin(BinaryOp::Min, spec.group_size, last));
    std::vector<ir::Expr> grouped = {ceildiv(last, g)};
    for (size_t i = 0; i + 1 < n; ++i) grouped.push_back(spec.ranges[i].second);
    grouped.push_back(g);
    ir::Expr padded = grouped[0];
    for (size_t i = 1; i < grouped.size(); ++i) padded = bin(BinaryOp::Mul, padded, grouped[i]);
    auto w = std::make_shared<const ir::VarNode>("w", ir::DataType::int32(), ir::VarKind::Loop, spec.span);
    ir::Expr tile = bin(BinaryOp::Add, bin(BinaryOp::Mul, w, spec.wave_size), spec.wave_index);
    std::vector<ir::Expr> idx(grouped.size());
    ir::Expr rem = tile;
    for (size_t i = grouped.size(); i-- > 1;) {
        idx[i] = bin(BinaryOp::FloorMod, rem, grouped[i]);
        rem = bin(BinaryOp::FloorDiv, rem, grouped[i]);
    }
    idx[0] = rem;
    std::vector<std::pair<ir::Var, ir::Expr>> lets;
    for (size_t i = 0; i < n; ++i) {
        ir::Expr coord = i + 1 < n ? idx[i + 1] : bin(BinaryOp::Add, bin(BinaryOp::Mul, idx[0], g), idx[grouped.size() - 1]);
        auto v = std::make_shared<const ir::VarNode>(names[i], ir::DataType::int32(), ir::VarKind::Plain, spans[i]);
        lets.push_back({v, coord});
        ev.bind_name(names[i], Value::expr(v), sc, spans[i]);
    }
    auto [fl, stmts] = stage_ir_loop_body(ev, f.body, sc);
    if (fl == Flow::Return) ev.fail(DiagKind::UnsupportedConstruct, f.span, {"return", " inside a kernel loop"});
    ir::Expr inside = bin(BinaryOp::And, bin(BinaryOp::LT, tile, padded), bin(BinaryOp::LT, lets.back().first, last));
    ir::Stmt body = std::make_shared<ir::IfThenElseNode>(inside, Stager::seal(std::move(stmts), f.span), nullptr, f.span);
    for (size_t i = lets.size(); i-- > 0;) body = std::make_shared<ir::LetStmtNode>(lets[i].first, lets[i].second, body, f.span);
    return std::make_shared<ir::ForNode>(w, ir::int_imm(0), ceildiv(padded, spec.wave_size), ir::ForKind::Serial, body, f.span);
}

}  // namespace

Flow exec_ir_for(Evaluator& ev, const ast::For& f, const LoopSpecObj& spec, const std::shared_ptr<Scope>& sc) {
    require_kernel(ev, "for ... in T.*", f.iter->span);
    if (!f.orelse.empty()) ev.fail(DiagKind::UnsupportedConstruct, f.span, {"for ... else", " over a kernel loop"});
    std::vector<std::string> names;
    std::vector<Span> spans;
    if (auto* n = f.target->as<ast::Name>()) {
        names.push_back(n->id);
        spans.push_back(n->span);
    } else if (auto* t = f.target->as<ast::Tuple>()) {
        for (const auto& e : t->elts) {
            auto* en = e->as<ast::Name>();
            if (!en)
                ev.fail(DiagKind::UnsupportedConstruct, e->span, {"loop target " + std::string(ast::expr_kind_name(e->kind)), "; use plain names"});
            names.push_back(en->id);
            spans.push_back(en->span);
        }
    } else {
        ev.fail(DiagKind::UnsupportedConstruct, f.target->span,
                {"loop target " + std::string(ast::expr_kind_name(f.target->kind)), "; use plain names"});
    }
    if (names.size() != spec.ranges.size())
        ev.fail(DiagKind::TypeMismatch, f.target->span,
                {"the loop has " + std::to_string(spec.ranges.size()) + " dimension(s) but " + std::to_string(names.size()) + " loop variable(s)"});
    if (spec.loop_kind == LoopKind::Persistent) {
        ev.stager.emit(persistent_loop(ev, f, spec, names, spans, sc));
        for (size_t i = 0; i < names.size(); ++i) ev.bind_name(names[i], ended_loop_var(names[i], f.span.begin.line), sc, spans[i]);
        return Flow::Normal;
    }
    std::vector<ir::Var> vars;
    for (size_t i = 0; i < names.size(); ++i) {
        ir::DataType t = ir::promote(spec.ranges[i].first->dtype, spec.ranges[i].second->dtype);
        if (!t.is_int()) t = ir::DataType::int32();
        // Sequential loops of a 64-bit kernel walk its large dims (`k * block_K` up to K);
        // T.Parallel loops span a tile and stay int32 (thread mapping works on them).
        bool walks_tensor = spec.loop_kind == LoopKind::Serial || spec.loop_kind == LoopKind::Pipelined;
        if (walks_tensor && ev.kernel->index_type.bits > t.bits) t = ev.kernel->index_type;
        auto v = std::make_shared<const ir::VarNode>(names[i], t, ir::VarKind::Loop, spans[i]);
        vars.push_back(v);
        Value bound = Value::expr(v);
        const ir::Expr& lo = spec.ranges[i].first;
        if (spec.step)
            bound = Value::expr(ir::make_binary(ir::BinaryOp::Add, lo, ir::make_binary(ir::BinaryOp::Mul, v, spec.step)));
        else if (!(ir::as_const_int(lo) && *ir::as_const_int(lo) == 0))
            bound = Value::expr(ir::make_binary(ir::BinaryOp::Add, v, lo));
        ev.bind_name(names[i], bound, sc, spans[i]);
    }
    auto [fl, stmts] = stage_ir_loop_body(ev, f.body, sc);
    if (fl == Flow::Return) ev.fail(DiagKind::UnsupportedConstruct, f.span, {"return", " inside a kernel loop"});
    ir::Stmt body = Stager::seal(std::move(stmts), f.span);
    ir::ForKind kind = ir::ForKind::Serial;
    switch (spec.loop_kind) {
        case LoopKind::Serial:
            kind = ir::ForKind::Serial;
            break;
        case LoopKind::Unroll:
            kind = ir::ForKind::Unrolled;
            break;
        case LoopKind::Parallel:
            kind = ir::ForKind::Parallel;
            break;
        case LoopKind::Pipelined:
            kind = ir::ForKind::Pipelined;
            break;
        case LoopKind::Vectorized:
            kind = ir::ForKind::Vectorized;
            break;
        case LoopKind::Persistent:
            break;  // persistent_loop above
    }
    // A T.Parallel nest that accumulates into a T.alloc_reducer along some of its variables runs
    // those serially, innermost (tile_reducer.cpp); the others stay parallel, in their order.
    std::vector<size_t> order(vars.size());
    std::vector<bool> serial(vars.size(), false);
    for (size_t i = 0; i < vars.size(); ++i) order[i] = i;
    if (kind == ir::ForKind::Parallel) {
        serial = reducer_serial_vars(ev, body, vars);
        std::stable_partition(order.begin(), order.end(), [&](size_t i) { return !serial[i]; });
    }
    for (size_t o = order.size(); o-- > 0;) {
        const size_t i = order[o];
        // Loop vars count from 0; a non-zero start is folded into the bound Python name.
        auto node = std::make_shared<ir::ForNode>(vars[i], ir::int_imm(0, vars[i]->dtype), spec.ranges[i].second,
                                                  serial[i] ? ir::ForKind::Serial : kind, body, f.span);
        if (kind == ir::ForKind::Pipelined) {
            node->num_stages = spec.num_stages;
            node->order = spec.order;
            node->stage = spec.stage;
            node->group = spec.group;
        }
        body = node;
    }
    ev.stager.emit(body);
    // Python keeps a loop variable after its loop; an IR loop's has no value there.
    for (size_t i = 0; i < names.size(); ++i) ev.bind_name(names[i], ended_loop_var(names[i], f.span.begin.line), sc, spans[i]);
    return Flow::Normal;
}

Flow exec_kernel_with(Evaluator& ev, const WithScope& w, const Value& specv, const std::shared_ptr<Scope>& sc) {
    const auto& spec = *specv.as<KernelSpecObj>();
    if (ev.stager.in_kernel()) ev.fail(DiagKind::NestedKernel, spec.span);
    if (!ev.kernel || !ev.kernel->active || ev.module_eval_depth > 0 || !ev.stager.has_frame()) ev.fail(DiagKind::KernelOutsideFactory, spec.span);
    // A later `T.Kernel` in the same function is a launch of its own (ir/launches.h), run
    // after this one on the same stream; the per-launch state below is set afresh for it.
    static const char* dflt[] = {"bx", "by", "bz"};
    static const char* tnames[] = {"tx", "ty", "tz"};
    std::vector<ir::Var> bvars, tvars;
    const ast::Expr* target = w.item().optional_vars.get();
    std::vector<const ast::Name*> tnodes;
    if (target) {
        if (auto* n = target->as<ast::Name>())
            tnodes.push_back(n);
        else if (auto* t = target->as<ast::Tuple>()) {
            for (const auto& e : t->elts) {
                auto* en = e->as<ast::Name>();
                if (!en) ev.fail(DiagKind::BadKernelLaunch, e->span, {"bind block indices to plain names"});
                tnodes.push_back(en);
            }
            if (tnodes.size() != spec.grid.size())
                ev.fail(DiagKind::BadKernelLaunch, target->span,
                        {std::to_string(spec.grid.size()) + " grid dimension(s) but " + std::to_string(tnodes.size()) + " block index name(s)"});
        } else {
            ev.fail(DiagKind::BadKernelLaunch, target->span, {"bind block indices to plain names"});
        }
    }
    ir::DataType index_type = needs_64bit_indices(*ev.kernel, spec) ? ir::DataType::int64() : ir::DataType::int32();
    ev.kernel->index_type = index_type;
    for (size_t i = 0; i < spec.grid.size(); ++i) {
        std::string n = tnodes.size() == spec.grid.size() ? tnodes[i]->id : dflt[i];
        bvars.push_back(block_var(n, ir::VarKind::BlockIdx, tnodes.size() == spec.grid.size() ? tnodes[i]->span : spec.span, index_type));
    }
    for (size_t i = 0; i < spec.threads.size(); ++i) tvars.push_back(block_var(tnames[i], ir::VarKind::ThreadIdx, spec.span));
    if (target) {
        if (tnodes.size() == spec.grid.size() && (target->as<ast::Tuple>() || spec.grid.size() == 1)) {
            for (size_t i = 0; i < tnodes.size(); ++i) ev.bind_name(tnodes[i]->id, Value::expr(bvars[i]), sc, tnodes[i]->span);
        } else {
            std::vector<Value> all;
            for (const auto& v : bvars) all.push_back(Value::expr(v));
            ev.bind_name(tnodes[0]->id, Value::tuple(std::move(all)), sc, tnodes[0]->span);
        }
    }
    ev.kernel->block_vars = bvars;
    ev.kernel->thread_vars = tvars;
    ev.kernel->thread_extents = spec.threads;
    ev.kernel->global_layouts.clear();
    ev.stager.begin_kernel();
    ev.stager.push_frame();
    Flow fl = exec_with_body(ev, w, sc);
    auto stmts = ev.stager.pop_frame();
    if (fl != Flow::Normal) ev.fail(DiagKind::UnsupportedConstruct, w.stmt.span, {"return/break", " inside `with T.Kernel(...)`"});
    ir::Stmt body = ev.stager.end_kernel(Stager::seal(std::move(stmts), w.stmt.span));
    if (!ev.kernel->global_layouts.empty()) {
        transform::GlobalLayoutError err;
        auto laid_out = transform::apply_global_layouts(body, ev.kernel->global_layouts, &err);
        if (!laid_out) ev.fail(DiagKind::TypeMismatch, err.span, {err.message});
        body = *laid_out;
        ev.kernel->global_layouts.clear();
    }
    ir::Stmt launch = std::make_shared<ir::KernelLaunchNode>(spec.grid, bvars, spec.threads, tvars, body, w.stmt.span);
    for (auto& part : split_at_grid_syncs(ev, launch)) ev.stager.emit(part);
    ev.kernel->kernel_seen = true;
    return Flow::Normal;
}

}  // namespace tp::eval
