// Tile operations: T.copy, T.fill/T.clear, T.reduce_*, T.atomic_add, T.print,
// T.device_assert, T.use_swizzle, with TileLang's region rules
// (a point `A[i, j]` takes its extents from the other operand, aligned to trailing dims).
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "tile op"}, std::move(fn)});
}

bool all_points(const RegionObj& r) {
    for (const auto& d : r.dims)
        if (d.extent) return false;
    return true;
}

std::vector<ir::Expr> extents_of(const RegionObj& r) {
    std::vector<ir::Expr> e;
    for (const auto& d : r.dims) e.push_back(d.extent ? d.extent : ir::int_imm(1));
    return e;
}

}  // namespace

std::optional<std::vector<int64_t>> squeezed(const std::vector<ir::Range>& region) {
    std::vector<int64_t> out;
    for (const auto& r : region) {
        auto c = ir::as_const_int(r.extent);
        if (!c) return std::nullopt;
        if (*c != 1) out.push_back(*c);
    }
    return out;
}

std::string dims_text(const std::vector<int64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

namespace {

ir::ReduceKind reduce_kind(const std::string& n) {
    if (n == "reduce_max") return ir::ReduceKind::Max;
    if (n == "reduce_min") return ir::ReduceKind::Min;
    if (n == "reduce_sum") return ir::ReduceKind::Sum;
    if (n == "reduce_abssum") return ir::ReduceKind::AbsSum;
    return ir::ReduceKind::AbsMax;
}

// T.atomic_addx2 / T.atomic_addx4: `lanes` consecutive elements of the last dimension of
// `value` added into `dst`, each add atomic on its own. TileLang issues one vector atomic;
// element-wise adds give the same sums (the vector form only saves instructions).
Value atomic_add_lanes(Evaluator& ev, CallArgs& a, const std::string& fname, int64_t lanes) {
    ArgReader rd(ev, a, fname, {"dst", "value", "return_prev"});
    require_kernel(ev, fname, a.span);
    if (const Value* rp = rd.get(2); rp && ev.truthy(*rp, rd.span(2)))
        ev.fail(DiagKind::UnsupportedConstruct, rd.span(2), {"return_prev", " on `" + fname + "`"});
    RegionObj dst = as_region(ev, rd.require(0), rd.span(0), fname.c_str());
    RegionObj src = as_region(ev, rd.require(1), rd.span(1), fname.c_str());
    auto check = [&](const RegionObj& r, Span sp) {
        for (size_t i = 0; i < r.dims.size(); ++i) {
            if (!r.dims[i].extent) continue;
            auto c = ir::as_const_int(r.dims[i].extent);
            int64_t want = i + 1 == r.dims.size() ? lanes : 1;
            if (!c || *c != want)
                ev.fail(DiagKind::ShapeMismatch, sp,
                        {"`" + fname + "` takes an element (or a slice of " + std::to_string(lanes) + " along the last dimension) of `" +
                         r.buffer->name + "`"});
        }
        if (r.dims.empty()) ev.fail(DiagKind::ShapeMismatch, sp, {"`" + fname + "` needs an indexed buffer"});
    };
    check(dst, rd.span(0));
    check(src, rd.span(1));
    for (int64_t v = 0; v < lanes; ++v) {
        auto at = [&](const RegionObj& r) {
            std::vector<ir::Expr> idx;
            for (const auto& d : r.dims) idx.push_back(d.min);
            idx.back() = ir::make_binary(ir::BinaryOp::Add, idx.back(), ir::int_imm(v, idx.back()->dtype), a.span);
            return idx;
        };
        ir::BufferRegion d;
        d.buffer = dst.buffer;
        for (auto& e : at(dst)) d.region.push_back({e, ir::int_imm(1)});
        ir::Expr val = std::make_shared<ir::BufferLoadNode>(src.buffer, at(src), a.span);
        if (!(val->dtype == dst.buffer->dtype)) val = ir::make_cast(dst.buffer->dtype, val, a.span);
        ev.stager.emit(std::make_shared<ir::AtomicAddOpNode>(d, val, a.span));
    }
    return Value::none();
}

// T.atomic_add(x, v, return_prev=True): the value x held before the add, kept in a scalar
// variable so the add happens once, where the call stands, whether or not the value is used.
Value atomic_add_prev(Evaluator& ev, const ir::BufferRegion& d, const ir::Expr& v, Span span) {
    std::vector<ir::Expr> at;
    for (const auto& r : d.region) at.push_back(r.min);
    ir::Expr target = std::make_shared<ir::BufferLoadNode>(d.buffer, at, span);
    std::string name = "atomic_prev";
    for (int k = 1; ev.kernel && ev.kernel->buffer_names.count(name); ++k) name = "atomic_prev_" + std::to_string(k);
    if (ev.kernel) ev.kernel->buffer_names.insert(name);
    auto prev = std::make_shared<const ir::BufferNode>(name, d.buffer->dtype, std::vector<ir::Expr>{ir::int_imm(1)}, ir::Scope::Var, span);
    ev.stager.add_allocation(prev, nullptr, span);
    ir::Expr call = ir::make_call("atomic_add_prev", {target, v}, d.buffer->dtype, span);
    ev.stager.emit(std::make_shared<ir::BufferStoreNode>(prev, std::vector<ir::Expr>{ir::int_imm(0)}, call, span));
    return Value::expr(std::make_shared<ir::BufferLoadNode>(prev, std::vector<ir::Expr>{ir::int_imm(0)}, span));
}

}  // namespace

RegionObj as_region(Evaluator& ev, const Value& v, Span span, const char* what) {
    RegionObj r;
    if (v.kind == VK::Buffer) {
        r.buffer = v.as<BufferObj>()->b;
        for (const auto& d : r.buffer->shape) r.dims.push_back({ir::int_imm(0), d});
        return r;
    }
    if (v.kind == VK::Region) return *v.as<RegionObj>();
    if (v.kind == VK::Expr) {
        if (auto* load = v.as<ExprObj>()->e->as<ir::BufferLoadNode>()) {
            auto point = ev.view_points.find(load);
            r.buffer = point != ev.view_points.end() ? point->second.view : load->buffer;  // `view[i, j]`: the view's region
            for (const auto& i : point != ev.view_points.end() ? point->second.indices : load->indices) r.dims.push_back({i, nullptr});
            return r;
        }
    }
    ev.fail(DiagKind::TypeMismatch, span, {"`" + std::string(what) + "` expects a buffer, a buffer slice or `A[i, j]`, got " + type_name(v)});
}

ir::BufferRegion complete_region(Evaluator& ev, const RegionObj& a, const RegionObj* other, Span span) {
    ir::BufferRegion out;
    out.buffer = a.buffer;
    std::vector<ir::Expr> ext;
    if (other && !all_points(*other)) {
        ext = extents_of(*other);
        // Leading unit extents of the other side do not count when it has more dims.
        while (ext.size() > a.dims.size() && ir::as_const_int(ext.front()) && *ir::as_const_int(ext.front()) == 1) ext.erase(ext.begin());
        if (ext.size() > a.dims.size()) ext.erase(ext.begin(), ext.begin() + static_cast<long>(ext.size() - a.dims.size()));
    }
    size_t offset = a.dims.size() - ext.size();
    for (size_t d = 0; d < a.dims.size(); ++d) {
        ir::Expr e = a.dims[d].extent;
        if (!e) e = d >= offset ? ext[d - offset] : ir::int_imm(1);
        out.region.push_back({a.dims[d].min, e});
    }
    (void)ev;
    (void)span;
    return out;
}

namespace {

// T.cumsum over a shared tile along `dim`: every line along the other dims is independent
// (a T.Parallel nest) and scanned by a serial loop, inclusive, from either end.
ir::Stmt scan_lines(const ir::Buffer& src, const ir::Buffer& dst, int dim, bool reverse, Span span) {
    size_t rank = src->shape.size();
    std::vector<ir::Var> vars;
    std::vector<ir::Expr> extents;
    for (size_t d = 0; d < rank; ++d)
        if (d != static_cast<size_t>(dim)) {
            vars.push_back(std::make_shared<ir::VarNode>("tp_s" + std::to_string(d), ir::DataType::int32(), ir::VarKind::Loop, span));
            extents.push_back(src->shape[d]);
        }
    auto at = [&](const ir::Expr& pos) {
        std::vector<ir::Expr> idx;
        size_t v = 0;
        for (size_t d = 0; d < rank; ++d) idx.push_back(d == static_cast<size_t>(dim) ? pos : ir::Expr(vars[v++]));
        return idx;
    };
    ir::Expr n = src->shape[static_cast<size_t>(dim)];
    auto j = std::make_shared<ir::VarNode>("tp_scan", ir::DataType::int32(), ir::VarKind::Loop, span);
    // Forward: pos = j (1..n-1) adds dst[pos-1]; reverse: pos = n-1-j adds dst[pos+1].
    ir::Expr pos = reverse ? ir::make_binary(ir::BinaryOp::Sub, ir::make_binary(ir::BinaryOp::Sub, n, ir::int_imm(1)), j) : ir::Expr(j);
    ir::Expr prev = ir::make_binary(reverse ? ir::BinaryOp::Add : ir::BinaryOp::Sub, pos, ir::int_imm(1));
    ir::Expr first = reverse ? ir::make_binary(ir::BinaryOp::Sub, n, ir::int_imm(1)) : ir::int_imm(0);
    auto load = [&](const ir::Buffer& b, const ir::Expr& p) { return std::make_shared<ir::BufferLoadNode>(b, at(p), span); };
    ir::Expr sum = ir::make_binary(ir::BinaryOp::Add, load(dst, prev), ir::make_cast(dst->dtype, load(src, pos), span), span);
    ir::Stmt body = std::make_shared<ir::ForNode>(j, ir::int_imm(1), ir::make_binary(ir::BinaryOp::Sub, n, ir::int_imm(1)), ir::ForKind::Serial,
                                                  std::make_shared<ir::BufferStoreNode>(dst, at(pos), sum, span), span);
    if (src != dst)
        body = ir::make_seq({std::make_shared<ir::BufferStoreNode>(dst, at(first), ir::make_cast(dst->dtype, load(src, first), span), span), body},
                            span);
    for (size_t i = vars.size(); i-- > 0;)
        body = std::make_shared<ir::ForNode>(vars[i], ir::int_imm(0), extents[i], ir::ForKind::Parallel, body, span);
    return body;
}

ir::BufferRegion whole(const ir::Buffer& b) {
    ir::BufferRegion r{b, {}};
    for (const auto& d : b->shape) r.region.push_back({ir::int_imm(0), d});
    return r;
}

}  // namespace

void register_tile_ops(Reg& r) {
    add(r, "copy", "T.copy(src, dst, *, coalesced_width=None, disable_tma=False)", "copy a tile between global, shared and fragment memory",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.copy",
                         {"src", "dst", "coalesced_width", "disable_tma", "eviction_policy", "annotations", "loop_layout", "prefer_instruction"});
            require_kernel(ev, "T.copy", a.span);
            RegionObj src = as_region(ev, rd.require(0), rd.span(0), "T.copy");
            RegionObj dst = as_region(ev, rd.require(1), rd.span(1), "T.copy");
            if (all_points(src) && all_points(dst)) {
                // Both scalar: a plain element store, as TileLang lowers it.
                std::vector<ir::Expr> si, di;
                for (const auto& d : src.dims) si.push_back(d.min);
                for (const auto& d : dst.dims) di.push_back(d.min);
                ir::Buffer sb = src.buffer, db = dst.buffer;
                view_element(ev, sb, si);
                view_element(ev, db, di);
                ir::Expr v = std::make_shared<ir::BufferLoadNode>(sb, si, rd.span(0));
                if (!(v->dtype == db->dtype)) v = ir::make_cast(db->dtype, v, a.span);
                ev.stager.emit(std::make_shared<ir::BufferStoreNode>(db, di, v, a.span));
                return Value::none();
            }
            ir::BufferRegion s = complete_region(ev, src, &dst, rd.span(0));
            ir::BufferRegion d = complete_region(ev, dst, &src, rd.span(1));
            auto se = squeezed(s.region), de = squeezed(d.region);
            if (se && de && *se != *de)
                ev.fail(DiagKind::ShapeMismatch, a.span,
                        {"`T.copy` from `" + s.buffer->name + "` " + dims_text(*se) + " to `" + d.buffer->name + "` " + dims_text(*de)});
            if (copy_through_view(ev, s, d, a.span)) return Value::none();
            auto node = std::make_shared<ir::CopyOpNode>(s, d, a.span);
            if (const Value* cw = rd.get(2); cw && !cw->is_none())
                node->coalesced_width = static_cast<int>(ev.as_int(*cw, rd.span(2), "coalesced_width"));
            if (const Value* dt = rd.get(3)) node->disable_tma = ev.as_bool(*dt, rd.span(3), "disable_tma");
            ev.stager.emit(node);
            return Value::none();
        });
    add(r, "fill", "T.fill(buffer, value)", "set every element of a tile", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.fill", {"buffer", "value"});
        require_kernel(ev, "T.fill", a.span);
        ir::BufferRegion d = complete_region(ev, as_region(ev, rd.require(0), rd.span(0), "T.fill"), nullptr, rd.span(0));
        ir::Expr v = ev.to_expr(rd.require(1), rd.span(1), "fill value");
        if (!(v->dtype == d.buffer->dtype)) v = ir::make_cast(d.buffer->dtype, v, rd.span(1));
        if (fill_through_view(ev, d, v, a.span)) return Value::none();
        ev.stager.emit(std::make_shared<ir::FillOpNode>(d, v, a.span));
        return Value::none();
    });
    add(r, "clear", "T.clear(buffer)", "set every element of a tile to zero", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.clear", {"buffer"});
        require_kernel(ev, "T.clear", a.span);
        ir::BufferRegion d = complete_region(ev, as_region(ev, rd.require(0), rd.span(0), "T.clear"), nullptr, rd.span(0));
        ir::DataType t = d.buffer->dtype;
        ir::Expr zero = t.is_float() ? ir::float_imm(0, t, a.span) : ir::int_imm(0, t, a.span);
        if (fill_through_view(ev, d, zero, a.span)) return Value::none();
        ev.stager.emit(std::make_shared<ir::FillOpNode>(d, zero, a.span));
        return Value::none();
    });
    for (const char* n : {"reduce_max", "reduce_min", "reduce_sum", "reduce_abssum", "reduce_absmax"}) {
        std::string name = n;
        const std::string what = name == "reduce_max"      ? "maximum"
                                 : name == "reduce_min"    ? "minimum"
                                 : name == "reduce_sum"    ? "sum"
                                 : name == "reduce_abssum" ? "sum of absolute values"
                                                           : "maximum absolute value";
        add(r, name, "T." + name + "(src, dst, dim=-1, clear=True)", what + " of a tile along `dim` into dst (clear=False accumulates into dst)",
            [name](Evaluator& ev, CallArgs& a) -> Value {
                ArgReader rd(ev, a, "T." + name, {"buffer", "out", "dim", "clear"});
                require_kernel(ev, "T." + name, a.span);
                ir::Buffer src = ev.as_buffer(rd.require(0), rd.span(0), ("T." + name).c_str());
                ir::Buffer dst = ev.as_buffer(rd.require(1), rd.span(1), ("T." + name).c_str());
                int64_t dim = rd.get(2) ? ev.as_int(*rd.get(2), rd.span(2), "dim") : -1;
                int64_t rank = static_cast<int64_t>(src->shape.size());
                if (dim < 0) dim += rank;
                if (dim < 0 || dim >= rank)
                    ev.fail(DiagKind::ShapeMismatch, rd.get(2) ? rd.span(2) : a.span,
                            {"`dim` is out of range for the " + std::to_string(rank) + "-D buffer `" + src->name + "`"});
                bool clear = rd.get(3) ? ev.as_bool(*rd.get(3), rd.span(3), "clear") : true;
                std::vector<int64_t> expect, got;
                bool known = true;
                for (int64_t d = 0; d < rank; ++d) {
                    if (d == dim) continue;
                    auto c = ir::as_const_int(src->shape[static_cast<size_t>(d)]);
                    known &= c.has_value();
                    if (c && *c != 1) expect.push_back(*c);
                }
                for (const auto& s : dst->shape) {
                    auto c = ir::as_const_int(s);
                    known &= c.has_value();
                    if (c && *c != 1) got.push_back(*c);
                }
                if (known && expect != got)
                    ev.fail(DiagKind::ShapeMismatch, a.span,
                            {"`T." + name + "` of `" + src->name + "` along dim " + std::to_string(dim) + " gives " + dims_text(expect) + " but `" +
                             dst->name + "` is " + dims_text(got)});
                if (reduce_through_view(ev, reduce_kind(name), src, dst, static_cast<int>(dim), clear, a.span)) return Value::none();
                ev.stager.emit(std::make_shared<ir::ReduceOpNode>(reduce_kind(name), src, dst, static_cast<int>(dim), clear, a.span));
                return Value::none();
            });
    }
    add(r, "atomic_add", "T.atomic_add(dst, value)", "atomically add a scalar or a tile into global/shared memory",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.atomic_add", {"dst", "value", "memory_order", "return_prev", "use_tma"});
            require_kernel(ev, "T.atomic_add", a.span);
            RegionObj dst = as_region(ev, rd.require(0), rd.span(0), "T.atomic_add");
            const Value& val = rd.require(1);
            bool tile_src = val.kind == VK::Buffer || val.kind == VK::Region;
            if (!tile_src && all_points(dst)) {
                ir::BufferRegion d;
                d.buffer = dst.buffer;
                std::vector<ir::Expr> at;
                for (const auto& dm : dst.dims) at.push_back(dm.min);
                view_element(ev, d.buffer, at);
                for (const auto& i : at) d.region.push_back({i, ir::int_imm(1)});
                ir::Expr v = ev.to_expr(val, rd.span(1), "atomic_add value");
                if (!(v->dtype == dst.buffer->dtype)) v = ir::make_cast(dst.buffer->dtype, v, rd.span(1));
                if (const Value* rp = rd.get(3); rp && ev.truthy(*rp, rd.span(3))) return atomic_add_prev(ev, d, v, a.span);
                ev.stager.emit(std::make_shared<ir::AtomicAddOpNode>(d, v, a.span));
                return Value::none();
            }
            if (const Value* rp = rd.get(3); rp && ev.truthy(*rp, rd.span(3)))
                ev.fail(DiagKind::UnsupportedConstruct, rd.span(3),
                        {"return_prev", " on a tile T.atomic_add; it returns one element's previous value"});
            RegionObj src = as_region(ev, val, rd.span(1), "T.atomic_add");
            ir::BufferRegion d = complete_region(ev, dst, &src, rd.span(0));
            ir::BufferRegion s = complete_region(ev, src, &dst, rd.span(1));
            for (const auto* x : {&d, &s})
                if (is_view(ev, x->buffer))
                    ev.fail(DiagKind::UnsupportedConstruct, a.span,
                            {"a tile `T.atomic_add` with `" + x->buffer->name + "`, a view made by T.reshape / T.view",
                             "; add element by element in a T.Parallel loop"});
            auto se = squeezed(s.region), de = squeezed(d.region);
            if (se && de && *se != *de)
                ev.fail(DiagKind::ShapeMismatch, a.span,
                        {"`T.atomic_add` of `" + s.buffer->name + "` " + dims_text(*se) + " into `" + d.buffer->name + "` " + dims_text(*de)});
            ev.stager.emit(std::make_shared<ir::AtomicAddOpNode>(d, s, a.span));
            return Value::none();
        });
    add(r, "atomic_addx2", "T.atomic_addx2(dst, value)", "atomically add 2 consecutive elements of value into dst",
        [](Evaluator& ev, CallArgs& a) { return atomic_add_lanes(ev, a, "T.atomic_addx2", 2); });
    add(r, "atomic_addx4", "T.atomic_addx4(dst, value)", "atomically add 4 consecutive elements of value into dst",
        [](Evaluator& ev, CallArgs& a) { return atomic_add_lanes(ev, a, "T.atomic_addx4", 4); });
    add(r, "print", "T.print(obj, msg=\"\")", "print a scalar, shared tile or fragment with msg and the block/thread ids (one thread prints)",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.print", {"obj", "msg", "warp_group_id", "warp_id"});
            require_kernel(ev, "T.print", a.span);
            std::string msg = rd.get(1) ? ev.as_str(*rd.get(1), rd.span(1), "msg") : "";
            const Value& v = rd.require(0);
            if (v.kind == VK::Buffer && v.as<BufferObj>()->b->scope != ir::Scope::Var)
                ev.stager.emit(std::make_shared<ir::PrintOpNode>(v.as<BufferObj>()->b, msg, a.span));
            else
                ev.stager.emit(std::make_shared<ir::PrintOpNode>(ev.to_expr(v, rd.span(0), "print value"), msg, a.span));
            return Value::none();
        });
    add(r, "device_assert", "T.device_assert(cond, msg=\"\")", "stop the kernel with msg when cond is false (on the CPU: an error naming the block)",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.device_assert", {"condition", "msg"});
            require_kernel(ev, "T.device_assert", a.span);
            std::string msg = rd.get(1) ? ev.as_str(*rd.get(1), rd.span(1), "msg") : "";
            ev.stager.emit(std::make_shared<ir::AssertOpNode>(ev.to_expr(rd.require(0), rd.span(0), "condition"), msg, a.span));
            return Value::none();
        });
    add(r, "use_swizzle", "T.use_swizzle(panel_size=10, order=\"row\", enable=True)", "remap block indices in panels for L2 reuse",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.use_swizzle", {"panel_size", "order", "enable"});
            require_kernel(ev, "T.use_swizzle", a.span);
            int64_t p = rd.get(0) ? ev.as_int(*rd.get(0), rd.span(0), "panel_size") : 10;
            if (p <= 0) ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`panel_size` must be positive, got " + std::to_string(p)});
            std::string order = rd.get(1) ? ev.as_str(*rd.get(1), rd.span(1), "order") : "row";
            if (order != "row" && order != "col")
                ev.fail(DiagKind::TypeMismatch, rd.span(1), {"`order` must be \"row\" or \"col\", got \"" + order + "\""});
            bool en = rd.get(2) ? ev.as_bool(*rd.get(2), rd.span(2), "enable") : true;
            ev.stager.emit(std::make_shared<ir::SwizzleOpNode>(static_cast<int>(p), order == "row", en, a.span));
            return Value::none();
        });
    add(r, "cumsum", "T.cumsum(src, dst=None, dim=0, reverse=False)", "inclusive prefix sum of a shared or fragment tile along dim",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.cumsum", {"src", "dst", "dim", "reverse"});
            require_kernel(ev, "T.cumsum", a.span);
            ir::Buffer src = ev.as_buffer(rd.require(0), rd.span(0), "T.cumsum");
            ir::Buffer dst = rd.get(1) && !rd.get(1)->is_none() ? ev.as_buffer(*rd.get(1), rd.span(1), "T.cumsum") : src;
            int64_t rank = static_cast<int64_t>(src->shape.size());
            int64_t dim = rd.get(2) ? ev.as_int(*rd.get(2), rd.span(2), "dim") : 0;
            if (dim < 0) dim += rank;
            if (rank == 0 || dim < 0 || dim >= rank)
                ev.fail(DiagKind::TypeMismatch, rd.span(2), {"`T.cumsum` dim " + std::to_string(dim) + " is out of range for `" + src->name + "`"});
            if (dst->shape.size() != src->shape.size())
                ev.fail(DiagKind::ShapeMismatch, a.span, {"`T.cumsum` of `" + src->name + "` into `" + dst->name + "` of another rank"});
            bool reverse = rd.get(3) && ev.as_bool(*rd.get(3), rd.span(3), "reverse");
            auto local = [](const ir::Buffer& b) { return b->scope == ir::Scope::Fragment || b->scope == ir::Scope::Local; };
            if (!local(src) && !local(dst)) {
                ev.stager.emit(scan_lines(src, dst, static_cast<int>(dim), reverse, a.span));
                return Value::none();
            }
            // A line of a register tile is spread over threads: scan it in shared memory, as
            // TileLang's cumsum of a fragment does (copy in, scan, copy out).
            std::string name = src->name + "_scan";
            for (int k = 1; ev.kernel->buffer_names.count(name); ++k) name = src->name + "_scan_" + std::to_string(k);
            ev.kernel->buffer_names.insert(name);
            auto tmp = std::make_shared<ir::BufferNode>(name, dst->dtype, src->shape, ir::Scope::Shared, a.span);
            ev.stager.add_allocation(tmp, nullptr, a.span);
            ev.stager.emit(std::make_shared<ir::CopyOpNode>(whole(src), whole(tmp), a.span));
            ev.stager.emit(scan_lines(tmp, tmp, static_cast<int>(dim), reverse, a.span));
            ev.stager.emit(std::make_shared<ir::CopyOpNode>(whole(tmp), whole(dst), a.span));
            return Value::none();
        });
    add(r, "region", "T.region(A[i, j], access, *extents)", "a region of a buffer starting at a point with the given extents",
        [](Evaluator& ev, CallArgs& a) -> Value {
            if (a.pos.size() < 2) ev.fail(DiagKind::WrongArgCount, a.span, {"T.region", "at least 2", std::to_string(a.pos.size())});
            RegionObj base = as_region(ev, a.pos[0], a.pos_spans[0], "T.region");
            size_t n = a.pos.size() - 2;
            if (n != base.dims.size())
                ev.fail(DiagKind::IndexCountMismatch, a.span, {base.buffer->name, std::to_string(base.dims.size()), std::to_string(n)});
            auto r2 = std::make_shared<RegionObj>(base);
            for (size_t i = 0; i < n; ++i) r2->dims[i].extent = ev.to_expr(a.pos[i + 2], a.pos_spans[i + 2], "extent");
            return Value::make(VK::Region, r2);
        });
    add(r, "make_swizzled_layout", "T.make_swizzled_layout(buffer)", "the bank-conflict-free swizzled layout of a shared buffer",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.make_swizzled_layout", {"buffer"});
            ev.as_buffer(rd.require(0), rd.span(0), "T.make_swizzled_layout");
            return Value::str("swizzled");
        });
}

}  // namespace tp::eval
