// Layout formulas shared by the Tensor-Core templates and the code generator:
// XOR-swizzled shared-memory tiles (conflict-free ldmatrix and 16-byte stores), the
// mma.sync accumulator layout (thread, local index) -> (row, col), reduced row/column
// vectors, striped fragments, the GemmWarpPolicy partition and the L2-friendly block
// rasterization.
// Everything here is constexpr/__host__ __device__ so host tests can check it too.
#pragma once

#ifndef TP_HD
#define TP_HD __host__ __device__ __forceinline__
#endif

namespace tp {

// --- shared-memory tile: ROWS_ANY x COLS elements of ELEM_BYTES, row-major, with the
// 16-byte chunk index XOR-swizzled by the row so that 8 consecutive rows read at the same
// logical chunk hit 8 distinct 16-byte bank groups. Formula (V = 16/ELEM_BYTES elements
// per chunk, C = COLS/V chunks per row):
//   C % 8 == 0 : chunk' = chunk ^ (row % 8)
//   C == 4     : chunk' = chunk ^ ((row / 2) % 4)     (64-byte rows, two rows per 128 bytes)
//   C == 2     : chunk' = chunk ^ ((row / 4) % 2)     (32-byte rows)
//   otherwise  : chunk' = chunk                      (C == 1 is conflict free anyway)
//   offset(row, col) = row * COLS + chunk' * V + col % V
// For rows of 128, 64 and 32 bytes these are exactly wgmma's 128B, 64B and 32B swizzles.
// SWIZZLE = 2 ("panels", ROWS given): a tile wider than 128 bytes is stored as COLS / P panels
// of ROWS x P elements (P = 128 / ELEM_BYTES), each a swizzled SmemTile<P>, one after the other:
// the canonical layout wgmma reads with 128B swizzling (rows of a panel 128 bytes apart).
template <int COLS, int ELEM_BYTES = 2, int SWIZZLE = 1, int ROWS = 0>
struct SmemTile {
    static constexpr int kVec = 16 / ELEM_BYTES;  // elements per 16-byte chunk
    static constexpr int kPanelCols = 128 / ELEM_BYTES;
    static constexpr bool kPanels = SWIZZLE == 2 && COLS > kPanelCols;
    static_assert(!kPanels || (ROWS > 0 && COLS % kPanelCols == 0), "a panelled tile needs ROWS and whole 128-byte panels");
    // Elements between consecutive rows (of a panel, when panelled).
    static constexpr int kPitch = kPanels ? kPanelCols : COLS;
    static constexpr int kChunks = kPitch / kVec;
    static constexpr bool kSwizzled =
        SWIZZLE != 0 && kPitch % kVec == 0 && (kChunks % 8 == 0 || kChunks == 4 || kChunks == 2);
    static constexpr int kRowsPerLine = kChunks >= 8 ? 1 : (kChunks > 0 ? 8 / kChunks : 8);
    static constexpr int kXorMask = kChunks >= 8 ? 7 : kChunks - 1;

    static TP_HD constexpr int chunk(int row, int c) {
        return kSwizzled ? (c ^ ((row / kRowsPerLine) & kXorMask)) : c;
    }
    static TP_HD constexpr int in_row(int row, int col) {
        return kSwizzled ? chunk(row, col / kVec) * kVec + col % kVec : col;
    }
    static TP_HD constexpr int offset(int row, int col) {
        if constexpr (kPanels) return (col / kPanelCols) * (ROWS * kPanelCols) + row * kPanelCols + in_row(row, col % kPanelCols);
        return row * COLS + in_row(row, col);
    }
};

// --- which element each thread touches in the tile templates (host-callable, so the
// layout model of core/layout reads the same formulas the templates run) ---------------
struct RowCol {
    int row;
    int col;
};
// ldmatrix.x4 row addresses of tp::GemmSS: lane l gives row l % 8 of 8x8 matrix l / 8.
// A (!TRANS: [BM][BK]) for k step x at the warp's first row r0 (m tile mt adds 16 * mt rows);
// TRANS ([BK][BM]): m tile x, the k step adds 16 * kk rows. col0 is a slice's first column.
TP_HD constexpr RowCol ldsm_a_coord(int lane, int r0, int col0, int x, bool trans) {
    return trans ? RowCol{((lane >> 4) << 3) + (lane & 7), col0 + r0 + x * 16 + (((lane >> 3) & 1) << 3)}
                 : RowCol{r0 + (lane & 15), col0 + x * 16 + (lane >> 4) * 8};
}
// B (!TRANS: [BK][BN], .trans loads) for column-tile pair x of the warp's columns from c0 (the
// k step adds 16 * kk rows; an odd last tile uses matrices 0/1 only); TRANS ([BN][BK]): k step
// x, the pair np adds 16 * np rows.
TP_HD constexpr RowCol ldsm_b_coord(int lane, int c0, int col0, int x, int nt, bool trans) {
    return trans ? RowCol{c0 + ((lane >> 4) << 3) + (lane & 7), col0 + x * 16 + (((lane >> 3) & 1) << 3)}
                 : RowCol{(((lane >> 3) & 1) << 3) + (lane & 7), col0 + c0 + x * 16 + (2 * x + 1 < nt ? (lane >> 4) * 8 : 0)};
}
// 16-byte chunk `idx = tid + it * THREADS` of tp::copy_g2s_async's (and copy_s2g's) tile of
// `chunks` chunks a row: its row and chunk column.
TP_HD constexpr RowCol g2s_chunk(int idx, int chunks) { return RowCol{idx / chunks, idx % chunks}; }

// --- warp partition (GemmWarpPolicy) -------------------------------------------------
enum class WarpPolicy : int { Square = 0, FullRow = 1, FullCol = 2 };

struct WarpGrid {
    int m = 0;  // warps along M (0 when no valid partition exists)
    int n = 0;  // warps along N
};

// Same rule as TileLang: each warp owns a multiple of 16 rows and 8 columns; FullRow puts
// as many warps along M as possible, FullCol along N, Square balances the per-warp tile
// against the block's aspect ratio.
TP_HD constexpr WarpGrid warp_partition(int M, int N, int num_warps, WarpPolicy policy) {
    WarpGrid best{};
    float best_balance = 3.0e38f;
    for (int i = 1; i <= num_warps; ++i) {
        int m = i;
        if (policy == WarpPolicy::FullRow) {
            m = num_warps + 1 - i;  // most warps along M first
        } else if (policy == WarpPolicy::FullCol) {
            int n = num_warps + 1 - i;  // most warps along N first
            if (num_warps % n != 0) continue;
            m = num_warps / n;
        }
        if (num_warps % m != 0) continue;
        int n = num_warps / m;
        if (M % (m * 16) != 0 || N % (n * 8) != 0) continue;
        if (policy != WarpPolicy::Square) return WarpGrid{m, n};
        float ideal = N > 0 ? static_cast<float>(M) / static_cast<float>(N) : 1.0f;
        float ratio = (static_cast<float>(M) / (m * 16)) / (static_cast<float>(N) / (n * 8));
        float balance = ratio > ideal ? ratio - ideal : ideal - ratio;
        if (balance < best_balance) {
            best_balance = balance;
            best = WarpGrid{m, n};
        }
    }
    return best;
}

// --- accumulator of a BM x BN block tile computed by WARPS_M x WARPS_N warps with
// mma m16n8. Warp w sits at warp_m = w % WARPS_M, warp_n = w / WARPS_M and owns the
// WM x WN sub-tile at (warp_m*WM, warp_n*WN). Each thread holds kSize floats, local index
//   i = (mt * NT + nt) * 4 + j,  mt < MT = WM/16, nt < NT = WN/8, j < 4
//   row = warp_m*WM + mt*16 + lane/4 + 8*(j/2)
//   col = warp_n*WN + nt*8 + 2*(lane%4) + (j%2)
// so (i, i+1) for even i are two adjacent columns of one row (vector stores).
// INTERLEAVE (wgmma with several 64-row blocks per warpgroup): a warp's m16 tiles are
// 16 * WARPS_M rows apart instead of adjacent,
//   row = warp_m*16 + mt*16*WARPS_M + lane/4 + 8*(j/2)
// so each warpgroup's m-tile mt is one m64 wgmma block and its NT*4 registers are that
// instruction's accumulator (with MT = 1 both forms are the same).
template <int BM, int BN, int WARPS_M, int WARPS_N, bool INTERLEAVE = false>
struct AccLayout {
    static_assert(BM % (WARPS_M * 16) == 0, "each warp must own a multiple of 16 rows");
    static_assert(BN % (WARPS_N * 8) == 0, "each warp must own a multiple of 8 columns");
    static constexpr int kBM = BM;
    static constexpr int kBN = BN;
    static constexpr int kWarpsM = WARPS_M;
    static constexpr int kWarpsN = WARPS_N;
    static constexpr bool kInterleave = INTERLEAVE;
    static constexpr int kWarps = WARPS_M * WARPS_N;
    static constexpr int kThreads = kWarps * 32;
    static constexpr int WM = BM / WARPS_M;
    static constexpr int WN = BN / WARPS_N;
    static constexpr int MT = WM / 16;
    static constexpr int NT = WN / 8;
    static constexpr int kSize = MT * NT * 4;  // floats per thread
    static constexpr int kRowSlots = MT * 2;   // rows per thread (row vectors)
    static constexpr int kColSlots = NT * 2;   // columns per thread (column vectors)

    static TP_HD constexpr int warp_m(int warp) { return warp % WARPS_M; }
    static TP_HD constexpr int warp_n(int warp) { return warp / WARPS_M; }
    // First row of m16 tile mt of the warp (see INTERLEAVE).
    static TP_HD constexpr int tile_row(int warp, int mt) {
        return INTERLEAVE ? warp_m(warp) * 16 + mt * 16 * WARPS_M : warp_m(warp) * WM + mt * 16;
    }
    static TP_HD constexpr int row(int tid, int i) {
        return tile_row(tid / 32, i / (NT * 4)) + (tid % 32) / 4 + 8 * ((i % 4) / 2);
    }
    static TP_HD constexpr int col(int tid, int i) {
        return warp_n(tid / 32) * WN + ((i / 4) % NT) * 8 + 2 * (tid % 4) + (i % 2);
    }
    // Slot of local index i in this thread's row vector / column vector (see reduce).
    static TP_HD constexpr int row_slot(int i) { return (i / (NT * 4)) * 2 + (i % 4) / 2; }
    static TP_HD constexpr int col_slot(int i) { return ((i / 4) % NT) * 2 + (i % 2); }
    // Block row of row-vector slot s / block column of column-vector slot s.
    static TP_HD constexpr int slot_row(int tid, int s) {
        return tile_row(tid / 32, s / 2) + (tid % 32) / 4 + 8 * (s % 2);
    }
    static TP_HD constexpr int slot_col(int tid, int s) {
        return warp_n(tid / 32) * WN + (s / 2) * 8 + 2 * (tid % 4) + (s % 2);
    }
};

// --- striped fragments (fragments no T.gemm wrote) ------------------------------------
// Element e of the row-major tile lives in thread (e / VEC) % THREADS at local slot
// (e / (VEC*THREADS)) * VEC + e % VEC: runs of VEC contiguous elements per thread, so a
// 16-byte global access fills a run. The inverse, for slot k of thread tid (the same formula
// as transform::FragLayout::striped_elem; VEC = 1 is e = k * THREADS + tid):
template <int THREADS, int VEC = 1>
TP_HD constexpr int striped_elem(int tid, int k) {
    return (k / VEC) * (VEC * THREADS) + tid * VEC + k % VEC;
}

// --- block rasterization for L2 reuse (T.use_swizzle(panel, order)) ------------------
// Blocks are numbered linearly (bx fastest) and dealt out panel by panel: a panel is
// `panel` block-rows (row order; block-columns in column order) walked column by column,
// so consecutive blocks share their B (resp. A) tiles in L2. Returns the remapped (x, y).
struct BlockXY {
    int x;
    int y;
};
TP_HD BlockXY rasterize(int bx, int by, int grid_x, int grid_y, int panel, bool column_order = false) {
    int gx = column_order ? grid_y : grid_x;  // extent along the walked dimension
    int gy = column_order ? grid_x : grid_y;  // extent split into panels
    int linear = column_order ? by + bx * grid_y : bx + by * grid_x;
    panel = panel < 1 ? 1 : panel;
    int per_panel = panel * gx;
    int p = linear / per_panel;
    int o = linear % per_panel;
    int rows = gy - p * panel < panel ? gy - p * panel : panel;
    int x = o / rows;
    int y = p * panel + o % rows;
    return column_order ? BlockXY{y, x} : BlockXY{x, y};
}

// A persistent kernel's work unit `tile` (numbered over a grid_x x grid_y x grid_z grid, x
// fastest) as its block coordinate on `axis` (0 x, 1 y, 2 z), rasterized as tp::rasterize
// deals blocks out when panel > 0 (T.use_swizzle), so a persistent block walks the same
// L2-friendly order the grid's blocks would have been scheduled in.
TP_HD int tile_coord(int tile, int grid_x, int grid_y, int panel, bool column_order, int axis) {
    const int plane = grid_x * grid_y;
    if (axis == 2) return tile / plane;
    const int r = tile % plane, x = r % grid_x, y = r / grid_x;
    if (panel <= 0) return axis == 0 ? x : y;
    const BlockXY b = rasterize(x, y, grid_x, grid_y, panel, column_order);
    return axis == 0 ? b.x : b.y;
}

}  // namespace tp
