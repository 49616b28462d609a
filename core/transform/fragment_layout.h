// Register layouts of fragments (T.alloc_fragment) after layout inference: which thread holds
// which element, as IR expressions, mirroring tp::AccLayout in runtime/tp_layout.cuh so
// lowered T.Parallel loops and the Tensor-Core templates agree on every element's owner.
//   Acc:     the mma.sync m16n8 accumulator of a BM x BN tile on WARPS_M x WARPS_N warps
//            (interleaved m16 tiles for wgmma's 64-row blocks, as tp::AccLayout's INTERLEAVE)
//   Row:     one value per row of such a tile (reduce over dim=1), replicated in the threads
//            that own the row; Col: the same per column (reduce over dim=0)
//   Striped: any other fragment: element e (row-major) lives in thread (e / V) % T at slot
//            (e / (V*T)) * V + e % V, so each thread holds runs of V contiguous elements (one
//            16-byte global access per run); V = 1 (thread e % T, slot e / T) unless the
//            fragment is copied to/from global memory and elems % (V*T) == 0
//   Replicated: every thread holds every element (reductions of striped fragments), so any
//            loop may index it anywhere; loops that write it run whole in every thread
//   StripedRow: one value per row of a striped ROWS x L tile whose runs never cross a row and
//            whose rounds hold whole rows (L % V == 0, V*T % L == 0): slot s of thread tid
//            holds row (s*V*T + tid*V) / L, the row of the thread's run in round s, replicated
//            in the L/V threads of that row. A row reduction then needs no shared memory, and
//            an element loop reads its row's value from a register (see striped_rows.h)
#pragma once

#include <cstdint>
#include <string>

#include "ir/ir.h"

namespace tp::transform {

struct FragLayout {
    enum Kind { None, Acc, Row, Col, Striped, Replicated, StripedRow } kind = None;
    int bm = 0, bn = 0, warps_m = 1, warps_n = 1;  // Acc / Row / Col: the accumulator tile
    bool interleave = false;                       // m16 tiles 16 * warps_m rows apart (wgmma)
    int64_t elems = 0;                             // Striped / Replicated: elements of the fragment
    int64_t threads = 0;
    int64_t vec = 1;                               // Striped / StripedRow: V, contiguous elements per run
    int64_t row_len = 0;                           // StripedRow: L, the striped tile's row (elems: its rows)

    int wm() const { return bm / warps_m; }
    int wn() const { return bn / warps_n; }
    int mt() const { return wm() / 16; }
    int nt() const { return wn() / 8; }
    int64_t local_size() const {
        switch (kind) {
            case Acc: return int64_t(mt()) * nt() * 4;
            case Row: return int64_t(mt()) * 2;
            case Col: return int64_t(nt()) * 2;
            // Whole rounds of V * T elements; the last one may be partly past `elems` (a row
            // that is no multiple of the round), those slots guarded off.
            case Striped: return vec > 1 ? (elems + vec * threads - 1) / (vec * threads) * vec : (elems + threads - 1) / threads;
            case Replicated: return elems;
            case StripedRow: return elems * row_len / (vec * threads);
            default: return 0;
        }
    }
    // `tp::AccLayout<BM, BN, WARPS_M, WARPS_N>` for the templates.
    std::string acc_type() const {
        return "tp::AccLayout<" + std::to_string(bm) + ", " + std::to_string(bn) + ", " + std::to_string(warps_m) +
               ", " + std::to_string(warps_n) + (interleave ? ", true>" : ">");
    }
    bool same_rows(const FragLayout& o) const { return bm == o.bm && warps_m == o.warps_m && interleave == o.interleave; }
    bool same_cols(const FragLayout& o) const { return bn == o.bn && warps_n == o.warps_n; }
    bool operator==(const FragLayout& o) const {
        return kind == o.kind && bm == o.bm && bn == o.bn && warps_m == o.warps_m && warps_n == o.warps_n && interleave == o.interleave &&
               elems == o.elems && threads == o.threads && vec == o.vec && row_len == o.row_len;
    }
    std::string describe() const;

    // Element coordinates owned by thread `tid` at local index `i` (Acc), row/column slot `s`
    // (Row/Col), as IR; `i` and `s` are loop variables of unrolled per-thread loops.
    ir::Expr acc_row(const ir::Expr& tid, const ir::Expr& i) const;
    ir::Expr acc_col(const ir::Expr& tid, const ir::Expr& i) const;
    ir::Expr slot_row(const ir::Expr& tid, const ir::Expr& s) const;
    ir::Expr slot_col(const ir::Expr& tid, const ir::Expr& s) const;
    // Local index of the row / column slot that accumulator index i belongs to.
    ir::Expr row_slot_of(const ir::Expr& i) const;
    ir::Expr col_slot_of(const ir::Expr& i) const;
    // Striped: the row-major element that thread `tid` holds at slot `s` (tp::striped_elem
    // in runtime/tp_layout.cuh is the same formula for the templates).
    ir::Expr striped_elem(const ir::Expr& tid, const ir::Expr& s) const;
    // StripedRow: the row that thread `tid` holds at slot `s`; and the threads sharing a row.
    ir::Expr striped_row(const ir::Expr& tid, const ir::Expr& s) const;
    int64_t threads_per_row() const { return row_len / vec; }
};

// GemmWarpPolicy -> warp grid, the rule of tp::warp_partition (TileLang's): each warp owns a
// multiple of 16 rows and 8 columns. Returns false when no partition exists.
bool warp_partition(int M, int N, int num_warps, ir::GemmWarpPolicy policy, int& warps_m, int& warps_n);

}  // namespace tp::transform
