// FragLayout formulas (see fragment_layout.h); kept identical to tp::AccLayout and
// tp::warp_partition in runtime/tp_layout.cuh (tests/unit/test_transform.cpp compares them).
#include "transform/fragment_layout.h"

namespace tp::transform {

using namespace ir;

namespace {
Expr I(int64_t v) { return int_imm(v); }
Expr add(Expr a, Expr b) { return make_binary(BinaryOp::Add, std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return make_binary(BinaryOp::Mul, std::move(a), std::move(b)); }
Expr div(Expr a, int64_t b) { return make_binary(BinaryOp::FloorDiv, std::move(a), I(b)); }
Expr mod(Expr a, int64_t b) { return make_binary(BinaryOp::FloorMod, std::move(a), I(b)); }
}  // namespace

std::string FragLayout::describe() const {
    switch (kind) {
        case Acc: return "mma accumulator " + std::to_string(bm) + "x" + std::to_string(bn) + " on " +
                         std::to_string(warps_m) + "x" + std::to_string(warps_n) + " warps" + (interleave ? " (interleaved rows)" : "");
        case Row: return "rows of a " + std::to_string(bm) + "-row accumulator on " + std::to_string(warps_m) + " warp rows";
        case Col: return "columns of a " + std::to_string(bn) + "-column accumulator on " + std::to_string(warps_n) + " warp columns";
        case Striped: return "striped over " + std::to_string(threads) + " threads" +
                             (vec > 1 ? " in runs of " + std::to_string(vec) : std::string());
        case Replicated: return "replicated in every thread";
        case StripedRow: return "rows of a striped tile, " + std::to_string(threads_per_row()) + " threads a row";
        default: return "none";
    }
}

// The first row of m16 tile `mt` of the thread's warp: warp_m*WM + mt*16, or interleaved
// warp_m*16 + mt*16*WARPS_M (tp::AccLayout::tile_row).
static Expr tile_row(const FragLayout& l, const Expr& tid, const Expr& mt) {
    Expr warp_m = mod(div(tid, 32), l.warps_m);
    if (l.interleave) return add(mul(warp_m, I(16)), mul(mt, I(16 * int64_t(l.warps_m))));
    return add(mul(warp_m, I(l.wm())), mul(mt, I(16)));
}

// row = tile_row(warp, i / (NT*4)) + lane/4 + 8*((i%4)/2), warp_m = (tid/32) % WARPS_M
Expr FragLayout::acc_row(const Expr& tid, const Expr& i) const {
    Expr r = tile_row(*this, tid, div(i, int64_t(nt()) * 4));
    r = add(r, div(mod(tid, 32), 4));
    return add(r, mul(I(8), div(mod(i, 4), 2)));
}
// col = warp_n*WN + ((i/4)%NT)*8 + 2*(lane%4) + i%2, warp_n = (tid/32) / WARPS_M
Expr FragLayout::acc_col(const Expr& tid, const Expr& i) const {
    Expr warp_n = div(div(tid, 32), warps_m);
    Expr c = add(mul(warp_n, I(wn())), mul(mod(div(i, 4), nt()), I(8)));
    c = add(c, mul(I(2), mod(tid, 4)));
    return add(c, mod(i, 2));
}
Expr FragLayout::slot_row(const Expr& tid, const Expr& s) const {
    Expr r = tile_row(*this, tid, div(s, 2));
    return add(add(r, div(mod(tid, 32), 4)), mul(I(8), mod(s, 2)));
}
Expr FragLayout::slot_col(const Expr& tid, const Expr& s) const {
    Expr warp_n = div(div(tid, 32), warps_m);
    Expr c = add(mul(warp_n, I(wn())), mul(div(s, 2), I(8)));
    return add(add(c, mul(I(2), mod(tid, 4))), mod(s, 2));
}
Expr FragLayout::row_slot_of(const Expr& i) const {
    return add(mul(div(i, int64_t(nt()) * 4), I(2)), div(mod(i, 4), 2));
}
Expr FragLayout::col_slot_of(const Expr& i) const {
    return add(mul(mod(div(i, 4), nt()), I(2)), mod(i, 2));
}

bool warp_partition(int M, int N, int num_warps, GemmWarpPolicy policy, int& warps_m, int& warps_n) {
    bool found = false;
    double best = 1e300;
    for (int i = 1; i <= num_warps; ++i) {
        int m = i;
        if (policy == GemmWarpPolicy::FullRow) {
            m = num_warps + 1 - i;
        } else if (policy == GemmWarpPolicy::FullCol) {
            int n = num_warps + 1 - i;
            if (num_warps % n != 0) continue;
            m = num_warps / n;
        }
        if (num_warps % m != 0) continue;
        int n = num_warps / m;
        if (M % (m * 16) != 0 || N % (n * 8) != 0) continue;
        if (policy != GemmWarpPolicy::Square) {
            warps_m = m;
            warps_n = n;
            return true;
        }
        // Same float arithmetic as tp::warp_partition so both pick the same grid.
        float ideal = N > 0 ? static_cast<float>(M) / static_cast<float>(N) : 1.0f;
        float ratio = (static_cast<float>(M) / (m * 16)) / (static_cast<float>(N) / (n * 8));
        float balance = ratio > ideal ? ratio - ideal : ideal - ratio;
        if (balance < best) {
            best = balance;
            warps_m = m;
            warps_n = n;
            found = true;
        }
    }
    return found;
}

// e = (s / V) * (V*T) + tid * V + s % V; V = 1 keeps the historical round * T + tid.
Expr FragLayout::striped_elem(const Expr& tid, const Expr& s) const {
    if (vec <= 1) return add(mul(s, I(threads)), tid);
    return add(add(mul(div(s, vec), I(vec * threads)), mul(tid, I(vec))), mod(s, vec));
}

// row = (s * V*T + tid * V) / L: the row of the thread's run in round s.
Expr FragLayout::striped_row(const Expr& tid, const Expr& s) const {
    return div(add(mul(s, I(vec * threads)), mul(tid, I(vec))), row_len);
}

}  // namespace tp::transform
