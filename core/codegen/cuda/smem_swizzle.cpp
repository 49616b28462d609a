// tp::SmemTile's swizzle as IR (see smem_swizzle.h).
#include "codegen/cuda/smem_swizzle.h"

namespace tp::codegen {

using namespace ir;

SmemSwizzle smem_swizzle(int64_t cols, int elem_bytes, bool panels_layout) {
    SmemSwizzle s;
    const int64_t panel_cols = 128 / elem_bytes;
    s.panels = panels_layout && cols > panel_cols;
    s.pitch = s.panels ? panel_cols : cols;
    s.vec = 16 / elem_bytes;
    const int64_t chunks = s.pitch / s.vec;
    s.rows_per_key = chunks >= 8 ? 1 : 8 / chunks;
    s.mask = chunks >= 8 ? 7 : chunks - 1;
    return s;
}

// "panels": a tile wider than 128 bytes stored as 128-byte-wide panels of all its rows.
Expr swizzled_smem_offset(const Buffer& b, const std::vector<Expr>& idx) {
    size_t n = idx.size();
    int64_t rows = *as_const_int(b->shape[n - 2]), cols = *as_const_int(b->shape[n - 1]);
    const SmemSwizzle s = smem_swizzle(cols, b->dtype.bytes(), b->layout == "panels");
    const int64_t pitch = s.pitch, vec = s.vec;
    const Expr& r = idx[n - 2];
    Expr c = s.panels ? make_binary(BinaryOp::FloorMod, idx[n - 1], int_imm(pitch)) : idx[n - 1];
    Expr chunk = make_binary(BinaryOp::FloorDiv, c, int_imm(vec));
    Expr key = make_binary(BinaryOp::BitAnd, make_binary(BinaryOp::FloorDiv, r, int_imm(s.rows_per_key)), int_imm(s.mask));
    Expr sw = make_binary(BinaryOp::BitXor, chunk, key);
    Expr off =
        make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, r, int_imm(pitch)),
                    make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, sw, int_imm(vec)), make_binary(BinaryOp::FloorMod, c, int_imm(vec))));
    if (s.panels)
        off = make_binary(BinaryOp::Add,
                          make_binary(BinaryOp::Mul, make_binary(BinaryOp::FloorDiv, idx[n - 1], int_imm(pitch)), int_imm(rows * pitch)), off);
    Expr stage;
    for (size_t i = 0; i + 2 < n; ++i) stage = stage ? make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, stage, b->shape[i]), idx[i]) : idx[i];
    if (stage) off = make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, stage, int_imm(rows * cols)), off);
    return off;
}

}  // namespace tp::codegen
