// Helpers for the lowering passes (see tile_lowering.h).
#include "transform/tile_lowering.h"

#include <algorithm>

#include "ir/functor.h"
#include "ops/access.h"

namespace tp::transform {

const ir::CallNode* evaluated_call(const ir::Stmt& s, const char* op) {
    auto* e = s ? s->as<ir::EvaluateNode>() : nullptr;
    auto* c = e ? e->value->as<ir::CallNode>() : nullptr;
    return c && c->op == op ? c : nullptr;
}

const ir::BufferLoadNode* addressed(const ir::Expr& arg) {
    auto* c = arg ? arg->as<ir::CallNode>() : nullptr;
    if (!c || (c->op != "tp.addr_r" && c->op != "tp.addr_w") || c->args.empty()) return nullptr;
    return c->args[0]->as<ir::BufferLoadNode>();
}

ir::PrimFuncPtr rewrite_lists(const ir::PrimFuncPtr& func, const std::function<std::vector<ir::Stmt>(std::vector<ir::Stmt>)>& rewrite) {
    struct Lists : ir::IRMutator {
        const std::function<std::vector<ir::Stmt>(std::vector<ir::Stmt>)>* rewrite;
        ir::Stmt visit_SeqStmt(const ir::SeqStmtNode& n, const ir::Stmt& s) override {
            ir::Stmt inner = IRMutator::visit_SeqStmt(n, s);
            std::vector<ir::Stmt> list;
            ir::flatten_seq(inner, list);
            std::vector<ir::Stmt> out = (*rewrite)(list);
            if (out == list) return inner;
            return ir::make_seq(out, n.span);
        }
    } l;
    l.rewrite = &rewrite;
    return ir::mutate_func(func, l);
}

ir::Stmt with_consumer(const ir::WarpRolesNode& n, const ir::Stmt& s, const std::function<ir::Stmt(const ir::Stmt&)>& f) {
    ir::Stmt c = f(n.consumer);
    if (c == n.consumer) return s;
    return n.with(n.producer, c);
}

using namespace ir;

Stmt device_call(const std::string& callee, std::vector<Expr> args, Span span, bool async) {
    args.insert(args.begin(), std::make_shared<StringImmNode>(callee, span));
    return std::make_shared<EvaluateNode>(make_call(async ? "tp.call_async" : "tp.call", std::move(args), DataType::void_(), span), span);
}

Expr buffer_addr(const Buffer& b, std::vector<Expr> indices, bool written, Span span) {
    Expr load = std::make_shared<BufferLoadNode>(b, std::move(indices), span);
    return make_call(written ? "tp.addr_w" : "tp.addr_r", {load}, DataType(DataType::Handle, 64), span);
}

std::string device_callee(const Stmt& s, bool* async) {
    auto* e = s ? s->as<EvaluateNode>() : nullptr;
    auto* c = e ? e->value->as<CallNode>() : nullptr;
    if (!c || (c->op != "tp.call" && c->op != "tp.call_async") || c->args.empty()) return {};
    auto* name = c->args[0]->as<StringImmNode>();
    if (!name) return {};
    if (async) *async = c->op == "tp.call_async";
    return name->value;
}

std::vector<size_t> non_unit_dims(const BufferRegion& r) {
    std::vector<size_t> d;
    for (size_t i = 0; i < r.region.size(); ++i)
        if (as_const_int(r.region[i].extent) != 1) d.push_back(i);
    return d;
}

bool same_extent(const Expr& a, const Expr& b) {
    if (a == b) return true;
    auto x = as_const_int(a), y = as_const_int(b);
    return x && y && *x == *y;
}

std::pair<std::vector<Expr>, Expr> region_access(const BufferRegion& r, const std::vector<Var>& vars) {
    std::vector<Expr> idx;
    Expr cond;
    size_t k = 0;
    for (size_t i = 0; i < r.region.size(); ++i) {
        const Range& rg = r.region[i];
        Expr e = as_const_int(rg.extent) == 1 ? rg.min : make_binary(BinaryOp::Add, rg.min, vars[k++]);
        idx.push_back(e);
        if (r.buffer->scope != Scope::Global) continue;
        auto mn = as_const_int(rg.min), ext = as_const_int(rg.extent), dim = as_const_int(r.buffer->shape[i]);
        if (mn && ext && dim && *mn >= 0 && *mn + *ext <= *dim) continue;
        Expr c = make_binary(BinaryOp::LT, e, r.buffer->shape[i]);
        cond = cond ? make_binary(BinaryOp::And, cond, c) : c;
    }
    return {idx, cond};
}

std::vector<Var> nest_vars(size_t n, Span span) {
    static const char* names[] = {"i", "j", "k", "l", "m", "n"};
    std::vector<Var> v;
    for (size_t i = 0; i < n; ++i)
        v.push_back(std::make_shared<VarNode>(std::string("tp_") + (i < 6 ? names[i] : "d" + std::to_string(i)),
                                              DataType::int32(), VarKind::Loop, span));
    return v;
}

Stmt parallel_nest(const std::vector<Var>& vars, const std::vector<Expr>& extents, Stmt body, Span span) {
    for (size_t i = vars.size(); i-- > 0;)
        body = std::make_shared<ForNode>(vars[i], int_imm(0), extents[i], ForKind::Parallel, body, span);
    return body;
}

Stmt region_nest(const BufferRegion& src, const BufferRegion& dst, Span span, const ElementBody& element) {
    auto sd = non_unit_dims(src), dd = non_unit_dims(dst);
    if (sd.size() != dd.size()) return nullptr;
    for (size_t i = 0; i < sd.size(); ++i)
        if (!same_extent(src.region[sd[i]].extent, dst.region[dd[i]].extent)) return nullptr;
    std::vector<Expr> extents;
    for (size_t d : dd) extents.push_back(dst.region[d].extent);
    auto vars = nest_vars(extents.size(), span);
    auto [sidx, scond] = region_access(src, vars);
    auto [didx, dcond] = region_access(dst, vars);
    Expr value = make_cast(dst.buffer->dtype, std::make_shared<BufferLoadNode>(src.buffer, sidx, span), span);
    return parallel_nest(vars, extents, element(value, scond, didx, dcond), span);
}

Stmt copy_nest(const BufferRegion& src, const BufferRegion& dst, Span span) {
    return region_nest(src, dst, span, [&](Expr value, const Expr& scond, const std::vector<Expr>& didx, const Expr& dcond) {
        if (scond) value = make_select(scond, value, make_cast(dst.buffer->dtype, int_imm(0)), span);
        Stmt body = std::make_shared<BufferStoreNode>(dst.buffer, didx, value, span);
        return dcond ? std::make_shared<IfThenElseNode>(dcond, body, nullptr, span) : body;
    });
}

Stmt fill_nest(const BufferRegion& dst, const Expr& value, Span span) {
    std::vector<Expr> extents;
    for (size_t d : non_unit_dims(dst)) extents.push_back(dst.region[d].extent);
    auto vars = nest_vars(extents.size(), span);
    auto [idx, cond] = region_access(dst, vars);
    Stmt body = std::make_shared<BufferStoreNode>(dst.buffer, idx, make_cast(dst.buffer->dtype, value, span), span);
    if (cond) body = std::make_shared<IfThenElseNode>(cond, body, nullptr, span);
    return parallel_nest(vars, extents, body, span);
}

std::optional<Tile2D> tile_2d(const BufferRegion& r) {
    auto nd = non_unit_dims(r);
    size_t rank = r.region.size();
    if (rank == 0 || nd.size() > 2) return std::nullopt;
    // Columns must be the buffer's last (contiguous) dim; a single non-unit dim elsewhere is
    // a column vector, which the templates do not take.
    if (!nd.empty() && nd.back() != rank - 1) return std::nullopt;
    Tile2D t;
    for (const auto& rg : r.region) t.origin.push_back(rg.min);
    size_t col_dim = rank - 1;
    auto cols = as_const_int(r.region[col_dim].extent);
    if (!cols) return std::nullopt;
    t.cols = *cols;
    if (nd.size() == 2) {
        size_t row_dim = nd[0];
        auto rows = as_const_int(r.region[row_dim].extent);
        if (!rows) return std::nullopt;
        t.rows = *rows;
        Expr ld = int_imm(1);
        for (size_t d = row_dim + 1; d < rank; ++d) ld = make_binary(BinaryOp::Mul, ld, r.buffer->shape[d]);
        t.ld = ld;
        t.origin_row = r.region[row_dim].min;
        t.rows_valid = make_binary(BinaryOp::Sub, r.buffer->shape[row_dim], r.region[row_dim].min);
    } else {
        t.rows = 1;
        t.ld = r.buffer->shape[col_dim];
        t.origin_row = int_imm(0);
        t.rows_valid = int_imm(1);
    }
    t.origin_col = r.region[col_dim].min;
    t.cols_valid = make_binary(BinaryOp::Sub, r.buffer->shape[col_dim], r.region[col_dim].min);
    return t;
}

bool whole_buffer(const BufferRegion& r) {
    if (r.region.size() != r.buffer->shape.size()) return false;
    for (size_t i = 0; i < r.region.size(); ++i) {
        if (as_const_int(r.region[i].min) != 0) return false;
        auto e = as_const_int(r.region[i].extent), d = as_const_int(r.buffer->shape[i]);
        if (!e || !d || *e != *d) return false;
    }
    return true;
}

bool is_multiple_of(const Expr& e, int64_t n) {
    if (n <= 1) return true;
    if (auto c = as_const_int(e)) return *c % n == 0;
    if (auto* b = e->as<BinaryNode>()) {
        if (b->op == BinaryOp::Mul) return is_multiple_of(b->a, n) || is_multiple_of(b->b, n);
        if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) return is_multiple_of(b->a, n) && is_multiple_of(b->b, n);
    }
    return false;
}

bool tile_in_bounds(const BufferRegion& r, const Tile2D& t, int64_t vec) {
    std::vector<int64_t> shape;
    for (const auto& d : r.buffer->shape) {
        auto c = as_const_int(d);
        if (!c) return false;
        shape.push_back(*c);
    }
    size_t rank = shape.size();
    auto nd = non_unit_dims(r);
    if (nd.size() == 2 && (shape[nd[0]] % t.rows != 0 || !is_multiple_of(t.origin_row, t.rows))) return false;
    if (shape[rank - 1] % t.cols != 0 || !is_multiple_of(t.origin_col, t.cols) || t.cols % vec != 0) return false;
    // Every row of the tile starts 16-byte aligned: all strides are whole chunks.
    int64_t stride = 1;
    for (size_t d = rank; d-- > 1;) {
        stride *= shape[d];
        if (stride % vec != 0) return false;
    }
    return true;
}

bool swizzle_applies(DataType t, int64_t cols) {
    int vec = 16 / std::max(1, t.bytes());
    // 16-bit tiles, and fp8 gemm operand tiles (the same byte layout as their 16-bit view).
    const bool fp8 = t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2;
    if ((t.bytes() != 2 && !fp8) || cols % vec != 0) return false;
    int64_t chunks = cols / vec;
    return chunks % 8 == 0 || chunks == 4 || chunks == 2;
}

std::string cuda_bool(bool b) { return b ? "true" : "false"; }

std::set<const BufferNode*> global_reads(const PrimFunc& f) {
    struct Reads : ops::OpAccessVisitor {
        std::set<const BufferNode*> out;
        void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
            if (n.buffer->scope == Scope::Global) out.insert(n.buffer.get());
            IRVisitor::visit_BufferLoad(n, e);
        }
        void visit_Call(const CallNode& n, const Expr& e) override {
            if (n.op == "tp.addr_w") return;  // an address written through, not read
            IRVisitor::visit_Call(n, e);
        }
        void on_op(const StmtNode&, const ops::OpAccess& a) override {
            for (const auto& r : a.reads)
                if (r.buffer->scope == Scope::Global) out.insert(r.buffer.get());
        }
    } r;
    r.visit(f.body);
    return r.out;
}

}  // namespace tp::transform
