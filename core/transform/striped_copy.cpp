// Vector copies between global memory and striped fragments (see striped_copy.h).
#include "transform/striped_copy.h"

#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

// fp32, 16-bit floats and fp8: the types tp_copy_striped.cuh packs into words.
bool vec_type(DataType t) {
    return t == DataType::float32() || t == DataType::float16() || t == DataType::bfloat16() || t.code == DataType::Float8E4M3 ||
           t.code == DataType::Float8E5M2;
}

// [lo, lo + ext) provably inside [0, dim).
bool const_inside(const Expr& lo, int64_t ext, const Expr& dim) {
    auto l = as_const_int(lo), d = as_const_int(dim);
    return l && d && *l >= 0 && *l + ext <= *d;
}

}  // namespace

Stmt striped_global_copy(const BufferRegion& frag, const BufferRegion& mem, const FragLayout& l, const Buffer& frag_local,
                         const Buffer& mem_buf, bool load, const Expr& tid, Span span) {
    const int64_t V = l.vec;
    if (l.kind != FragLayout::Striped || V <= 1 || mem.buffer->scope != Scope::Global || !whole_buffer(frag)) return nullptr;
    if (!vec_type(mem.buffer->dtype) || !vec_type(frag.buffer->dtype)) return nullptr;
    int64_t bytes = V * mem.buffer->dtype.bytes();
    if (bytes != 4 && bytes != 8 && bytes != 16 && bytes != 32 && bytes != 64) return nullptr;
    // copy_nest pairs the non-unit dims of both sides in order; the fragment's row-major
    // element e = r * cols + c must be the region's (row r, column c).
    auto fd = non_unit_dims(frag), md = non_unit_dims(mem);
    size_t frank = frag.buffer->shape.size();
    if (fd.empty() || fd.size() > 2 || fd.size() != md.size() || fd.back() != frank - 1) return nullptr;
    auto t = tile_2d(mem);
    if (!t) return nullptr;
    int64_t cols = *as_const_int(frag.buffer->shape.back());
    int64_t rows = fd.size() == 2 ? *as_const_int(frag.buffer->shape[fd[0]]) : 1;
    if (t->cols != cols || t->rows != rows || rows * cols != l.elems || cols % V != 0 || l.elems % V != 0)
        return nullptr;
    // Every run starts 16-byte aligned: row length and first column are multiples of V (the
    // outer strides are multiples of the row length).
    size_t mrank = mem.buffer->shape.size();
    if (!is_multiple_of(mem.buffer->shape.back(), V) || !is_multiple_of(t->origin_col, V)) return nullptr;

    // Unit dims (the row of a 1-row tile, leading dims) are not in rows_valid / cols_valid:
    // guard them as copy_nest would, unless provably inside.
    size_t row_dim = md.size() == 2 ? md[0] : mrank;
    Expr guard;
    for (size_t d = 0; d + 1 < mrank; ++d) {
        if (d == row_dim || const_inside(mem.region[d].min, 1, mem.buffer->shape[d])) continue;
        Expr c = make_binary(BinaryOp::LT, mem.region[d].min, mem.buffer->shape[d]);
        guard = guard ? make_binary(BinaryOp::And, guard, c) : c;
    }
    bool in_bounds = const_inside(t->origin_col, cols, mem.buffer->shape.back()) &&
                     (row_dim == mrank || const_inside(t->origin_row, rows, mem.buffer->shape[row_dim]));

    std::string fn = std::string(load ? "tp::striped_load_global<" : "tp::striped_store_global<") + std::to_string(l.elems) +
                     ", " + std::to_string(cols) + ", " + std::to_string(l.threads) + ", " + std::to_string(V) + ", " +
                     cuda_bool(in_bounds) + ">";
    Stmt call = device_call(fn, {buffer_addr(frag_local, {int_imm(0)}, load, span), buffer_addr(mem_buf, t->origin, !load, span), t->ld,
                                 t->rows_valid, t->cols_valid, tid},
                            span);
    if (!guard) return call;
    Stmt other;
    if (load) {
        // Outside the tensor the fragment reads zeros, as the per-element copy gives.
        Var i = std::make_shared<VarNode>("tp_f", DataType::int32(), VarKind::Loop, span);
        Stmt zero = std::make_shared<BufferStoreNode>(frag_local, std::vector<Expr>{i}, make_cast(frag_local->dtype, int_imm(0), span), span);
        int64_t n = l.local_size();
        other = std::make_shared<ForNode>(i, int_imm(0), int_imm(n), n <= 256 ? ForKind::Unrolled : ForKind::Serial, zero, span);
    }
    return std::make_shared<IfThenElseNode>(guard, call, other, span);
}

}  // namespace tp::transform
