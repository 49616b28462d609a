// Applies T.Layout annotations of global tensors to every access; see global_layout.h.
#include "transform/global_layout.h"

#include <map>

#include "ir/functor.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

struct Failure {
    GlobalLayoutError error;
};

// [lo, hi] of an index expression over vars ranging over [0, extent).
struct Bound {
    Expr lo, hi;
};
using VarExtents = std::map<const VarNode*, Expr>;

bool nonneg(const Expr& e) {
    auto c = as_const_int(e);
    return c && *c >= 0;
}

std::optional<Bound> bound_of(const Expr& e, const VarExtents& vars);

std::optional<Bound> bound_binary(const BinaryNode& n, const VarExtents& vars) {
    auto a = bound_of(n.a, vars), b = bound_of(n.b, vars);
    if (!a || !b) return std::nullopt;
    auto c = as_const_int(n.b);
    auto bin = [](BinaryOp op, const Expr& x, const Expr& y) { return make_binary(op, x, y); };
    switch (n.op) {
        case BinaryOp::Add: return Bound{bin(BinaryOp::Add, a->lo, b->lo), bin(BinaryOp::Add, a->hi, b->hi)};
        case BinaryOp::Sub: return Bound{bin(BinaryOp::Sub, a->lo, b->hi), bin(BinaryOp::Sub, a->hi, b->lo)};
        case BinaryOp::Mul:
            // Both factors non-negative: the product is monotone in each.
            if (!nonneg(a->lo) || !nonneg(b->lo)) return std::nullopt;
            return Bound{bin(BinaryOp::Mul, a->lo, b->lo), bin(BinaryOp::Mul, a->hi, b->hi)};
        case BinaryOp::Div:
        case BinaryOp::FloorDiv:
            if (!c || *c <= 0 || !nonneg(a->lo)) return std::nullopt;
            return Bound{bin(BinaryOp::FloorDiv, a->lo, n.b), bin(BinaryOp::FloorDiv, a->hi, n.b)};
        case BinaryOp::Mod:
        case BinaryOp::FloorMod: {
            if (!c || *c <= 0 || !nonneg(a->lo)) return std::nullopt;
            auto lo = as_const_int(a->lo), hi = as_const_int(a->hi);
            // A range inside one period keeps its order; anything wider covers the period.
            if (lo && hi && *lo / *c == *hi / *c) return Bound{int_imm(*lo % *c), int_imm(*hi % *c)};
            return Bound{int_imm(0), int_imm(*c - 1)};
        }
        case BinaryOp::Min: return Bound{bin(BinaryOp::Min, a->lo, b->lo), bin(BinaryOp::Min, a->hi, b->hi)};
        case BinaryOp::Max: return Bound{bin(BinaryOp::Max, a->lo, b->lo), bin(BinaryOp::Max, a->hi, b->hi)};
        default: return std::nullopt;
    }
}

std::optional<Bound> bound_of(const Expr& e, const VarExtents& vars) {
    if (e->as<IntImmNode>()) return Bound{e, e};
    if (auto* v = e->as<VarNode>()) {
        auto it = vars.find(v);
        if (it == vars.end()) return Bound{e, e};  // a kernel parameter: one value
        return Bound{int_imm(0), make_binary(BinaryOp::Sub, it->second, int_imm(1))};
    }
    if (auto* c = e->as<CastNode>()) return bound_of(c->value, vars);
    if (auto* b = e->as<BinaryNode>()) return bound_binary(*b, vars);
    return std::nullopt;
}

struct Substitute : IRMutator {
    std::map<const VarNode*, Expr> values;
    Expr visit_Var(const VarNode& n, const Expr& e) override {
        auto it = values.find(&n);
        return it == values.end() ? e : it->second;
    }
};

// One laid-out tensor: its map, the extents of the map's image, the tensor's shape.
struct Remap {
    const IndexMap* map = nullptr;
    std::vector<Expr> out_shape;
    std::vector<Expr> shape;

    // The logical indices of the tensor element whose row-major offset is the offset of
    // map(idx) in the image: what `buffer[idx]` becomes.
    std::vector<Expr> operator()(const std::vector<Expr>& idx, Span span) const {
        Substitute sub;
        for (size_t i = 0; i < idx.size(); ++i) sub.values[map->vars[i].get()] = idx[i];
        Expr flat;
        for (size_t k = 0; k < out_shape.size(); ++k) {
            Expr o = sub.mutate(map->outputs[k]);
            flat = flat ? make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, flat, out_shape[k], span), o, span) : o;
        }
        std::vector<Expr> out(shape.size());
        for (size_t d = shape.size(); d-- > 1;) {
            out[d] = make_binary(BinaryOp::FloorMod, flat, shape[d], span);
            flat = make_binary(BinaryOp::FloorDiv, flat, shape[d], span);
        }
        if (!shape.empty()) out[0] = flat;
        return out;
    }
};

class Rewriter : public IRMutator {
public:
    std::map<const BufferNode*, Remap> remaps;

protected:
    const Remap* find(const Buffer& b) const {
        auto it = remaps.find(b.get());
        return it == remaps.end() ? nullptr : &it->second;
    }
    [[noreturn]] static void fail(Span span, const std::string& what, const Buffer& b) {
        throw Failure{{span, what + " of `" + b->name + "`, a global tensor with a `T.Layout`, is not supported; "
                                    "copy it through a shared or fragment buffer"}};
    }

    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        Expr m = IRMutator::visit_BufferLoad(n, e);
        auto* load = m->as<BufferLoadNode>();
        const Remap* r = find(load->buffer);
        return r ? std::make_shared<BufferLoadNode>(load->buffer, (*r)(load->indices, n.span), n.span) : m;
    }
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        Stmt m = IRMutator::visit_BufferStore(n, s);
        auto* st = m->as<BufferStoreNode>();
        const Remap* r = find(st->buffer);
        return r ? std::make_shared<BufferStoreNode>(st->buffer, (*r)(st->indices, n.span), st->value, n.span) : m;
    }
    // Tile ops on a laid-out tensor become element nests, whose accesses are then remapped.
    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        if (!find(n.src.buffer) && !find(n.dst.buffer)) return IRMutator::visit_CopyOp(n, s);
        Stmt nest = copy_nest(n.src, n.dst, n.span);
        if (!nest) fail(n.span, "a `T.copy` between regions of different shapes", find(n.src.buffer) ? n.src.buffer : n.dst.buffer);
        return mutate(nest);
    }
    Stmt visit_FillOp(const FillOpNode& n, const Stmt& s) override {
        if (!find(n.dst.buffer)) return IRMutator::visit_FillOp(n, s);
        return mutate(fill_nest(n.dst, n.value, n.span));
    }
    Stmt visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        auto* src = std::get_if<BufferRegion>(&n.src);
        if (!find(n.dst.buffer) && !(src && find(src->buffer))) return IRMutator::visit_AtomicAddOp(n, s);
        if (!src) {
            // One element: the region's mins are its indices.
            std::vector<Expr> idx;
            for (const auto& r : n.dst.region) idx.push_back(mutate(r.min));
            BufferRegion d{n.dst.buffer, {}};
            for (const auto& i : (*find(n.dst.buffer))(idx, n.span)) d.region.push_back({i, int_imm(1)});
            return std::make_shared<AtomicAddOpNode>(d, mutate(std::get<Expr>(n.src)), n.span);
        }
        Stmt nest = region_nest(*src, n.dst, n.span, [&](Expr value, const Expr& scond, const std::vector<Expr>& didx, const Expr& dcond) {
            if (scond) value = make_select(scond, value, make_cast(n.dst.buffer->dtype, int_imm(0)), n.span);
            BufferRegion d{n.dst.buffer, {}};
            for (const auto& i : didx) d.region.push_back({i, int_imm(1)});
            Stmt body = std::make_shared<AtomicAddOpNode>(d, value, n.span);
            return dcond ? std::make_shared<IfThenElseNode>(dcond, body, nullptr, n.span) : body;
        });
        if (!nest) fail(n.span, "a `T.atomic_add` between regions of different shapes", n.dst.buffer);
        return mutate(nest);
    }
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        for (const auto* r : {&n.A, &n.B, &n.C})
            if (find(r->buffer)) fail(n.span, "a `T.gemm` operand", r->buffer);
        return IRMutator::visit_GemmOp(n, s);
    }
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
        for (const auto* b : {&n.src, &n.dst})
            if (find(*b)) fail(n.span, "a `T.reduce` operand", *b);
        return IRMutator::visit_ReduceOp(n, s);
    }
    Stmt visit_PrintOp(const PrintOpNode& n, const Stmt& s) override {
        if (auto* b = std::get_if<Buffer>(&n.value); b && find(*b)) fail(n.span, "`T.print`", *b);
        return IRMutator::visit_PrintOp(n, s);
    }
};

int64_t product_or_zero(const std::vector<Expr>& dims) {
    int64_t p = 1;
    for (const auto& d : dims) {
        auto c = as_const_int(d);
        if (!c) return 0;
        p *= *c;
    }
    return p;
}

}  // namespace

std::optional<std::vector<Expr>> layout_output_shape(const IndexMap& map, const std::vector<Expr>& shape, GlobalLayoutError* error) {
    VarExtents vars;
    for (size_t i = 0; i < map.vars.size() && i < shape.size(); ++i) vars[map.vars[i].get()] = shape[i];
    std::vector<Expr> out;
    for (size_t k = 0; k < map.outputs.size(); ++k) {
        auto b = bound_of(map.outputs[k], vars);
        if (!b || !nonneg(b->lo)) {
            if (error) *error = {map.outputs[k]->span.begin.line ? map.outputs[k]->span : map.span,
                                 "output " + std::to_string(k) + " of the `T.Layout` (`" + print(map.outputs[k]) +
                                     "`) has no provable non-negative range; use +, -, *, // and % by constants of the indices"};
            return std::nullopt;
        }
        out.push_back(make_binary(BinaryOp::Add, b->hi, int_imm(1)));
    }
    return out;
}

std::optional<Stmt> apply_global_layouts(const Stmt& body, const std::vector<GlobalLayout>& layouts, GlobalLayoutError* error) {
    Rewriter rw;
    for (const auto& l : layouts) {
        if (l.map.vars.size() != l.buffer->shape.size()) {
            if (error) *error = {l.map.span, "the `T.Layout` takes " + std::to_string(l.map.vars.size()) + " indices but `" +
                                                 l.buffer->name + "` has " + std::to_string(l.buffer->shape.size()) + " dims"};
            return std::nullopt;
        }
        auto out_shape = layout_output_shape(l.map, l.buffer->shape, error);
        if (!out_shape) return std::nullopt;
        int64_t image = product_or_zero(*out_shape), size = product_or_zero(l.buffer->shape);
        if (image && size && image > size) {
            if (error) *error = {l.map.span, "the `T.Layout` maps `" + l.buffer->name + "` onto " + std::to_string(image) +
                                                 " elements but the tensor has " + std::to_string(size)};
            return std::nullopt;
        }
        rw.remaps[l.buffer.get()] = Remap{&l.map, *out_shape, l.buffer->shape};
    }
    try {
        return rw.mutate(body);
    } catch (const Failure& f) {
        if (error) *error = f.error;
        return std::nullopt;
    }
}

}  // namespace tp::transform
