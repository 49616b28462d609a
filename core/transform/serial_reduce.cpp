// T.reduce_* from a shared or global source as a serial loop per destination element; see
// serial_reduce.h.
#include "transform/serial_reduce.h"

#include <map>

#include "ir/functor.h"
#include "ops/access.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

Expr combine(ReduceKind k, const Expr& acc, Expr v, Span span) {
    if (k == ReduceKind::AbsSum || k == ReduceKind::AbsMax) v = make_call("abs", {v}, v->dtype, span);
    switch (k) {
        case ReduceKind::Max:
        case ReduceKind::AbsMax: return make_binary(BinaryOp::Max, acc, v, span);
        case ReduceKind::Min: return make_binary(BinaryOp::Min, acc, v, span);
        default: return make_binary(BinaryOp::Add, acc, v, span);
    }
}

class Expand : public IRMutator {
protected:
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
        const bool into_memory = n.dst->scope == Scope::Shared || n.dst->scope == Scope::Local;
        if (n.src->scope != Scope::Fragment || !into_memory) return expand(n, s);
        // From registers into memory: the registers reach the reduction through a shared tile.
        Buffer& tile = tiles[n.src.get()];
        if (!tile) tile = std::make_shared<BufferNode>(n.src->name + "_red", n.src->dtype, n.src->shape, Scope::Shared, n.src->span);
        auto from_tile = std::make_shared<ReduceOpNode>(n.reduce_kind, tile, n.dst, n.dim, n.clear, n.span);
        Stmt loops = expand(*from_tile, from_tile);
        if (loops == from_tile) return s;
        return make_seq({std::make_shared<CopyOpNode>(ops::whole_region(n.src), ops::whole_region(tile), n.span), loops}, n.span);
    }

    // The fragment's shared tile is allocated beside it.
    Stmt visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        Stmt body = mutate(n.body);
        if (auto it = tiles.find(n.buffer.get()); it != tiles.end()) body = std::make_shared<AllocateNode>(it->second, nullptr, body, n.span);
        if (body == n.body) return s;
        return std::make_shared<AllocateNode>(n.buffer, n.init, body, n.span);
    }

private:
    std::map<const BufferNode*, Buffer> tiles;  // fragment reduced into memory -> its shared tile

    Stmt expand(const ReduceOpNode& n, const Stmt& s) {
        bool readable = n.src->scope == Scope::Shared || n.src->scope == Scope::Global;
        bool writable = n.dst->scope == Scope::Fragment || n.dst->scope == Scope::Shared || n.dst->scope == Scope::Local;
        size_t rank = n.src->shape.size();
        if (!readable || !writable || rank == 0 || n.dim < 0 || static_cast<size_t>(n.dim) >= rank) return s;
        // dst is src's shape without `dim`, with `dim` kept as extent 1, or one element.
        std::vector<Expr> extents;
        for (size_t d = 0; d < rank; ++d)
            if (d != static_cast<size_t>(n.dim)) extents.push_back(n.src->shape[d]);
        size_t drank = n.dst->shape.size();
        if (drank != extents.size() && drank != rank && !(extents.empty() && drank == 1)) return s;
        if (extents.empty()) extents.push_back(int_imm(1));
        auto vars = nest_vars(extents.size(), n.span);
        Var r = std::make_shared<VarNode>("tp_r", DataType::int32(), VarKind::Loop, n.span);
        auto src_at = [&](const Expr& red) {
            std::vector<Expr> idx;
            size_t v = 0;
            for (size_t d = 0; d < rank; ++d) idx.push_back(d == static_cast<size_t>(n.dim) ? red : Expr(vars[v++]));
            return make_cast(n.dst->dtype, std::make_shared<BufferLoadNode>(n.src, idx, n.span), n.span);
        };
        std::vector<Expr> didx;
        if (drank == rank) {
            size_t v = 0;
            for (size_t d = 0; d < rank; ++d) didx.push_back(d == static_cast<size_t>(n.dim) ? int_imm(0) : Expr(vars[v++]));
        } else {
            for (const auto& v : vars) didx.push_back(v);
        }
        Expr acc = std::make_shared<BufferLoadNode>(n.dst, didx, n.span);
        auto store = [&](Expr v) { return std::make_shared<BufferStoreNode>(n.dst, didx, std::move(v), n.span); };
        // A clearing reduction starts from the first element, which needs no identity value
        // (-inf has no integer counterpart).
        Expr first = src_at(int_imm(0));
        if (n.reduce_kind == ReduceKind::AbsSum || n.reduce_kind == ReduceKind::AbsMax) first = make_call("abs", {first}, first->dtype, n.span);
        Expr start = n.clear ? int_imm(1) : int_imm(0);
        Expr red = n.src->shape[static_cast<size_t>(n.dim)];
        Stmt loop = std::make_shared<ForNode>(r, start, make_binary(BinaryOp::Sub, red, start, n.span), ForKind::Serial,
                                              store(combine(n.reduce_kind, acc, src_at(r), n.span)), n.span);
        Stmt body = n.clear ? make_seq({store(first), loop}, n.span) : loop;
        return parallel_nest(vars, extents, body, n.span);
    }
};

}  // namespace

PrimFuncPtr serial_reduce(const PrimFuncPtr& func) {
    Expand e;
    return mutate_func(func, e);
}

}  // namespace tp::transform
