// T.reshape / T.view: another shape over a buffer's elements (row-major, the same dtype), or a
// shared tile's bytes as another dtype (dtype_view below).
// A view never reaches the IR: an element access through it is rewritten at trace time into
// the access of the buffer it views, and the tile operations that take one (T.copy, T.fill,
// T.clear, T.reduce_*) are staged as element loops over those accesses, so every later pass
// and the interpreter see only real buffers.
#include <cmath>
#include <functional>
#include <limits>

#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "memory"}, std::move(fn)});
}

std::optional<int64_t> product(const std::vector<ir::Expr>& dims, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t i = from; i < to; ++i) {
        auto c = ir::as_const_int(dims[i]);
        if (!c) return std::nullopt;
        p *= *c;
    }
    return p;
}

ir::Expr mul(const ir::Expr& a, const ir::Expr& b) { return ir::make_binary(ir::BinaryOp::Mul, a, b); }
ir::Expr add_(const ir::Expr& a, const ir::Expr& b) { return ir::make_binary(ir::BinaryOp::Add, a, b); }

// Maps indices of a view of shape `from` to indices of shape `to` (the same element count).
// Runs of dims with equal products map without division where one side has a single dim of
// the run (a merge is a linear combination, a split div/mod of one index).
std::vector<ir::Expr> remap(const std::vector<ir::Expr>& from, const std::vector<ir::Expr>& to, const std::vector<ir::Expr>& idx) {
    std::vector<ir::Expr> out;
    size_t i = 0, j = 0;
    while (i < from.size() || j < to.size()) {
        size_t i2 = i + 1, j2 = j + 1;
        // Grow the shorter run until both cover the same number of elements.
        for (;;) {
            auto pf = product(from, i, std::min(i2, from.size())), pt = product(to, j, std::min(j2, to.size()));
            if (!pf || !pt || i2 > from.size() || j2 > to.size()) {
                i2 = from.size(), j2 = to.size();
                break;
            }
            if (*pf == *pt) break;
            if (*pf < *pt)
                ++i2;
            else
                ++j2;
        }
        // The run's linear offset, then its indices in `to`.
        ir::Expr flat = ir::int_imm(0);
        for (size_t k = i; k < i2 && k < from.size(); ++k) flat = add_(mul(flat, from[k]), idx[k]);
        if (i2 - i == 1 && i < idx.size()) flat = idx[i];
        std::vector<ir::Expr> part;
        for (size_t k = std::min(j2, to.size()); k-- > j;) {
            if (k == j) {
                part.push_back(flat);
                break;
            }
            part.push_back(ir::make_binary(ir::BinaryOp::FloorMod, flat, to[k]));
            flat = ir::make_binary(ir::BinaryOp::FloorDiv, flat, to[k]);
        }
        out.insert(out.end(), part.rbegin(), part.rend());
        i = i2, j = j2;
    }
    return out;
}

// A view with another dtype reinterprets the tile's bytes (TileLang: `T.view(KV_shared,
// shape, dtype=float32)` reusing a bf16 tile's memory for an f32 one). It becomes a buffer of its
// own, laid over the base's bytes by the code generator ("tp.alias.<view>" = "<base>:<bytes>");
// the CPU engines keep it apart and poison the other side's values on each change of writer
// (interp/aliases.h), since reading bytes through the other dtype reinterprets bits they do not
// model. Shared tiles only, of a float or integer dtype, no larger than the base.
Value dtype_view(Evaluator& ev, const ir::Buffer& base, int64_t base_elems, const std::vector<ir::Expr>& shape, int64_t elems, ir::DataType dtype,
                 Span dtype_span, Span span) {
    const std::string what = "a view with another dtype (" + dtype.name() + " over " + base->dtype.name() + " `" + base->name + "`)";
    if (base->scope != ir::Scope::Shared)
        ev.fail(DiagKind::UnsupportedConstruct, dtype_span,
                {what, " of a " + std::string(ir::scope_name(base->scope)) + " buffer; only shared tiles take one"});
    if (ev.buffer_views.count(base.get())) ev.fail(DiagKind::UnsupportedConstruct, dtype_span, {what, " of a view; take it of the tile itself"});
    const int64_t bytes = elems * dtype.bytes(), base_bytes = base_elems * base->dtype.bytes();
    if (bytes > base_bytes)
        ev.fail(DiagKind::ShapeMismatch, span,
                {"`T.view` of `" + base->name + "` (" + std::to_string(base_bytes) + " bytes) as " + std::to_string(bytes) + " bytes of " +
                 dtype.name()});
    std::string name = unique_name(ev, ev.name_hint.empty() ? base->name + "_" + dtype.name() : ev.name_hint);
    ev.name_hint.clear();
    auto view = std::make_shared<const ir::BufferNode>(name, dtype, shape, base->scope, span);
    ev.stager.add_allocation(view, nullptr, span);
    ev.kernel->aliases[name] = base->name + ":" + std::to_string(base_bytes);
    return Value::buffer(view);
}

}  // namespace

Value make_view(Evaluator& ev, const Value& base_v, Span base_span, const Value& shape_v, Span shape_span, const Value* dtype_v, Span dtype_span,
                const char* fname, Span span) {
    require_kernel(ev, fname, span);
    ir::Buffer base = ev.as_buffer(base_v, base_span, fname);
    if (auto it = ev.buffer_views.find(base.get()); it != ev.buffer_views.end()) base = it->second.second;  // a view of a view
    std::vector<ir::Expr> shape = ev.as_shape(shape_v, shape_span);
    auto have = product(base->shape, 0, base->shape.size()), want = product(shape, 0, shape.size());
    if (!have || !want) ev.fail(DiagKind::NotConstant, shape_span, {std::string(fname) + "(shape)"});
    if (dtype_v && !dtype_v->is_none() && !(ev.as_dtype(*dtype_v, dtype_span) == base->dtype))
        return dtype_view(ev, base, *have, shape, *want, ev.as_dtype(*dtype_v, dtype_span), dtype_span, span);
    if (*have != *want)
        ev.fail(DiagKind::ShapeMismatch, shape_span,
                {"`" + std::string(fname) + "` of `" + base->name + "` (" + std::to_string(*have) + " elements) to a shape of " +
                 std::to_string(*want) + " elements"});
    std::string name = ev.name_hint.empty() ? base->name + "_view" : ev.name_hint;
    ev.name_hint.clear();
    auto view = std::make_shared<const ir::BufferNode>(name, base->dtype, shape, base->scope, span);
    ev.buffer_views[view.get()] = {view, base};
    return Value::buffer(view);
}

namespace {

// The element `idx` of `b` (a view or a buffer) as a load, and a store into it.
std::pair<ir::Buffer, std::vector<ir::Expr>> element(Evaluator& ev, const ir::Buffer& b, std::vector<ir::Expr> idx) {
    ir::Buffer real = b;
    view_element(ev, real, idx);
    return {real, idx};
}

// dst[d + i] = value(i) for i over the region of `d` (T.Parallel), skipping elements outside
// the buffer `d` names.
ir::Stmt element_loop(const ir::BufferRegion& d, Evaluator& ev, const std::function<ir::Expr(const std::vector<ir::Expr>&)>& value, Span span) {
    std::vector<ir::Var> vars;
    std::vector<ir::Expr> at, ivars;
    ir::Expr inside;
    for (size_t k = 0; k < d.region.size(); ++k) {
        vars.push_back(std::make_shared<ir::VarNode>("tp_v" + std::to_string(k), ir::DataType::int32(), ir::VarKind::Loop, span));
        ivars.push_back(vars.back());
        at.push_back(add_(d.region[k].min, vars.back()));
        ir::Expr ok = ir::make_binary(ir::BinaryOp::LT, at.back(), d.buffer->shape[k]);
        inside = inside ? ir::make_binary(ir::BinaryOp::And, inside, ok) : ok;
    }
    ir::Expr val = value(ivars);
    if (!(val->dtype == d.buffer->dtype)) val = ir::make_cast(d.buffer->dtype, val, span);
    auto [buf, idx] = element(ev, d.buffer, at);
    ir::Stmt body = std::make_shared<ir::BufferStoreNode>(buf, idx, val, span);
    if (inside) body = std::make_shared<ir::IfThenElseNode>(inside, body, nullptr, span);
    for (size_t k = vars.size(); k-- > 0;)
        body = std::make_shared<ir::ForNode>(vars[k], ir::int_imm(0), d.region[k].extent, ir::ForKind::Parallel, body, span);
    return body;
}

// The dims of a region whose extent is not the constant 1.
std::vector<size_t> wide_dims(const ir::BufferRegion& r) {
    std::vector<size_t> out;
    for (size_t k = 0; k < r.region.size(); ++k)
        if (ir::as_const_int(r.region[k].extent) != std::optional<int64_t>(1)) out.push_back(k);
    return out;
}

}  // namespace

bool is_view(const Evaluator& ev, const ir::Buffer& b) { return b && ev.buffer_views.count(b.get()) > 0; }

void view_element(const Evaluator& ev, ir::Buffer& b, std::vector<ir::Expr>& idx) {
    auto it = ev.buffer_views.find(b.get());
    if (it == ev.buffer_views.end()) return;
    idx = remap(b->shape, it->second.second->shape, idx);
    b = it->second.second;
}

bool copy_through_view(Evaluator& ev, const ir::BufferRegion& s, const ir::BufferRegion& d, Span span) {
    if (!is_view(ev, s.buffer) && !is_view(ev, d.buffer)) return false;
    // The regions' dims that are not 1 pair up in order (T.copy has checked their extents).
    const std::vector<size_t> sw = wide_dims(s), dw = wide_dims(d);
    if (sw.size() != dw.size())
        ev.fail(DiagKind::ShapeMismatch, span, {"`T.copy` from `" + s.buffer->name + "` to `" + d.buffer->name + "`: the regions differ in rank"});
    ev.stager.emit(element_loop(
        d, ev,
        [&](const std::vector<ir::Expr>& v) {
            std::vector<ir::Expr> at;
            ir::Expr inside;
            for (size_t k = 0; k < s.region.size(); ++k) {
                auto w = std::find(sw.begin(), sw.end(), k);
                at.push_back(w == sw.end() ? s.region[k].min : add_(s.region[k].min, v[dw[static_cast<size_t>(w - sw.begin())]]));
                ir::Expr ok = ir::make_binary(ir::BinaryOp::LT, at.back(), s.buffer->shape[k]);
                inside = inside ? ir::make_binary(ir::BinaryOp::And, inside, ok) : ok;
            }
            auto [buf, idx] = element(ev, s.buffer, at);
            ir::Expr load = std::make_shared<ir::BufferLoadNode>(buf, idx, span);
            // Outside the source, T.copy writes zeros (TileLang pads a partial tile).
            ir::DataType t = s.buffer->dtype;
            ir::Expr zero = t.is_float() ? ir::float_imm(0, t, span) : ir::int_imm(0, t, span);
            return inside ? ir::make_select(inside, load, zero, span) : load;
        },
        span));
    return true;
}

bool fill_through_view(Evaluator& ev, const ir::BufferRegion& d, const ir::Expr& value, Span span) {
    if (!is_view(ev, d.buffer)) return false;
    ev.stager.emit(element_loop(
        d, ev, [&](const std::vector<ir::Expr>&) { return value; }, span));
    return true;
}

bool reduce_through_view(Evaluator& ev, ir::ReduceKind kind, const ir::Buffer& src, const ir::Buffer& dst, int dim, bool clear, Span span) {
    if (!is_view(ev, src) && !is_view(ev, dst)) return false;
    const size_t rank = src->shape.size();
    if (dst->shape.size() != rank - 1 && dst->shape.size() != rank)
        ev.fail(DiagKind::ShapeMismatch, span, {"a reduction through a view needs `" + dst->name + "` of rank " + std::to_string(rank - 1)});
    std::vector<ir::Var> vars;
    std::vector<ir::Expr> outer, sidx, didx;
    auto r = std::make_shared<ir::VarNode>("tp_r", ir::DataType::int32(), ir::VarKind::Loop, span);
    for (size_t k = 0; k < rank; ++k) {
        if (static_cast<int>(k) == dim) {
            sidx.push_back(r);
            if (dst->shape.size() == rank) didx.push_back(ir::int_imm(0));
            continue;
        }
        auto v = std::make_shared<ir::VarNode>("tp_v" + std::to_string(k), ir::DataType::int32(), ir::VarKind::Loop, span);
        vars.push_back(v);
        outer.push_back(src->shape[k]);
        sidx.push_back(v);
        didx.push_back(v);
    }
    auto [sb, si] = element(ev, src, sidx);
    auto [db, di] = element(ev, dst, didx);
    const ir::DataType t = dst->dtype;
    ir::Expr x = ir::make_cast(t, std::make_shared<ir::BufferLoadNode>(sb, si, span), span);
    if (kind == ir::ReduceKind::AbsSum || kind == ir::ReduceKind::AbsMax) x = ir::make_call("abs", {x}, t, span);
    ir::Expr acc = std::make_shared<ir::BufferLoadNode>(db, di, span);
    ir::Expr combined = kind == ir::ReduceKind::Max || kind == ir::ReduceKind::AbsMax ? ir::make_binary(ir::BinaryOp::Max, acc, x)
                        : kind == ir::ReduceKind::Min                                 ? ir::make_binary(ir::BinaryOp::Min, acc, x)
                                                                                      : add_(acc, x);
    ir::Stmt body = std::make_shared<ir::ForNode>(r, ir::int_imm(0), src->shape[static_cast<size_t>(dim)], ir::ForKind::Serial,
                                                  std::make_shared<ir::BufferStoreNode>(db, di, combined, span), span);
    if (clear) {
        // The identity of the reduction (a max of absolute values starts at 0).
        const double big = t.is_float() ? INFINITY : static_cast<double>(std::numeric_limits<int32_t>::max());
        const double start = kind == ir::ReduceKind::Max ? -big : kind == ir::ReduceKind::Min ? big : 0.0;
        ir::Expr init = t.is_float() ? ir::float_imm(start, t, span) : ir::int_imm(static_cast<int64_t>(start), t, span);
        body = ir::make_seq({std::make_shared<ir::BufferStoreNode>(db, di, init, span), body}, span);
    }
    for (size_t k = vars.size(); k-- > 0;) body = std::make_shared<ir::ForNode>(vars[k], ir::int_imm(0), outer[k], ir::ForKind::Parallel, body, span);
    ev.stager.emit(body);
    return true;
}

void register_tile_views(Reg& r) {
    add(r, "reshape", "T.reshape(buffer, shape)", "the buffer's elements seen with another shape (row-major, same element count)",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.reshape", {"buffer", "shape"});
            return make_view(ev, rd.require(0), rd.span(0), rd.require(1), rd.span(1), nullptr, a.span, "T.reshape", a.span);
        });
    add(r, "view", "T.view(buffer, shape=None, dtype=None)", "the buffer's elements seen with another shape (the buffer's own dtype)",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.view", {"buffer", "shape", "dtype"});
            const Value* shape = rd.get(1);
            if (!shape || shape->is_none()) {
                ir::Buffer b = ev.as_buffer(rd.require(0), rd.span(0), "T.view");
                std::vector<Value> dims;
                for (const auto& d : b->shape) dims.push_back(Value::expr(d));
                Value same = Value::tuple(dims);
                return make_view(ev, rd.require(0), rd.span(0), same, a.span, rd.get(2), rd.span(2), "T.view", a.span);
            }
            return make_view(ev, rd.require(0), rd.span(0), *shape, rd.span(1), rd.get(2), rd.span(2), "T.view", a.span);
        });
}

}  // namespace tp::eval
