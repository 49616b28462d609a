// Host-side checks of the layout contract in tp_layout.cuh (no GPU needed): swizzled
// shared tiles are bijective and bank-conflict free for ldmatrix row groups, the
// accumulator layout covers each block element exactly once, warp partitions follow
// TileLang's GemmWarpPolicy rule, and block rasterization is a permutation.
#include <cstdio>
#include <set>
#include <vector>

#include "tp_layout.cuh"

static int failures = 0;
#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            ++failures;                                    \
            std::printf("[FAIL] %s: ", #cond);             \
            std::printf(__VA_ARGS__);                      \
            std::printf("\n");                             \
        }                                                  \
    } while (0)

template <int COLS, int EB>
void check_tile() {
    using Tile = tp::SmemTile<COLS, EB>;
    constexpr int kRows = 64;
    std::vector<int> seen(kRows * COLS, 0);
    for (int r = 0; r < kRows; ++r)
        for (int c = 0; c < COLS; ++c) {
            int o = Tile::offset(r, c);
            EXPECT(o >= 0 && o < kRows * COLS, "COLS=%d offset out of range", COLS);
            if (o >= 0 && o < kRows * COLS) seen[o]++;
            // a 16-byte chunk stays contiguous (ldmatrix rows, cp.async, vector stores)
            EXPECT(o - Tile::offset(r, c - c % Tile::kVec) == c % Tile::kVec, "COLS=%d chunk split", COLS);
        }
    for (int v : seen) EXPECT(v == 1, "COLS=%d not a bijection", COLS);
    // ldmatrix / cp.async phase: 8 rows of one 8-row group at the same logical chunk must hit
    // 8 distinct 16-byte bank groups (conflict free) whenever the tile is swizzled.
    if (Tile::kSwizzled || Tile::kChunks == 1) {
        for (int r0 = 0; r0 < kRows; r0 += 8)
            for (int ch = 0; ch < Tile::kChunks; ++ch) {
                std::set<int> banks;
                for (int r = r0; r < r0 + 8; ++r) banks.insert((Tile::offset(r, ch * Tile::kVec) * EB / 16) % 8);
                EXPECT(banks.size() == 8, "COLS=%d EB=%d rows %d.. chunk %d: %zu bank groups", COLS, EB, r0, ch,
                       banks.size());
            }
    }
    std::printf("[ OK ] SmemTile<%d, %d> swizzled=%d\n", COLS, EB, int(Tile::kSwizzled));
}

template <int BM, int BN, int WM, int WN>
void check_acc() {
    using L = tp::AccLayout<BM, BN, WM, WN>;
    std::vector<int> seen(BM * BN, 0);
    for (int tid = 0; tid < L::kThreads; ++tid)
        for (int i = 0; i < L::kSize; ++i) {
            int r = L::row(tid, i), c = L::col(tid, i);
            EXPECT(r >= 0 && r < BM && c >= 0 && c < BN, "acc %dx%d out of tile", BM, BN);
            if (r >= 0 && r < BM && c >= 0 && c < BN) seen[r * BN + c]++;
            EXPECT(L::slot_row(tid, L::row_slot(i)) == r, "row slot mismatch");
            EXPECT(L::slot_col(tid, L::col_slot(i)) == c, "col slot mismatch");
            if (i % 2 == 0) EXPECT(L::col(tid, i + 1) == c + 1 && L::row(tid, i + 1) == r, "pair not adjacent");
        }
    for (int v : seen) EXPECT(v == 1, "acc %dx%d warps %dx%d not a partition", BM, BN, WM, WN);
    std::printf("[ OK ] AccLayout<%d, %d, %d, %d>\n", BM, BN, WM, WN);
}

static void check_policy(int M, int N, int warps, tp::WarpPolicy p, int em, int en) {
    tp::WarpGrid g = tp::warp_partition(M, N, warps, p);
    EXPECT(g.m == em && g.n == en, "warp_partition(%d, %d, %d, %d) = %dx%d, expected %dx%d", M, N, warps, int(p), g.m,
           g.n, em, en);
}

static void check_raster(int gx, int gy, int panel, bool col) {
    std::set<std::pair<int, int>> seen;
    for (int by = 0; by < gy; ++by)
        for (int bx = 0; bx < gx; ++bx) {
            tp::BlockXY b = tp::rasterize(bx, by, gx, gy, panel, col);
            EXPECT(b.x >= 0 && b.x < gx && b.y >= 0 && b.y < gy, "rasterize out of grid");
            seen.insert({b.x, b.y});
        }
    EXPECT(int(seen.size()) == gx * gy, "rasterize(%d, %d, panel %d, col %d) not a permutation", gx, gy, panel, col);
}

int main() {
    check_tile<8, 2>();
    check_tile<16, 2>();
    check_tile<32, 2>();
    check_tile<64, 2>();
    check_tile<128, 2>();
    check_tile<256, 2>();
    check_tile<96, 2>();  // 12 chunks: not swizzled, still a bijection
    check_tile<32, 4>();
    check_tile<64, 4>();
    check_acc<128, 128, 2, 2>();
    check_acc<128, 256, 2, 4>();
    check_acc<64, 64, 4, 1>();
    check_acc<64, 40, 2, 1>();
    check_acc<64, 64, 1, 4>();
    using P = tp::WarpPolicy;
    check_policy(128, 128, 4, P::Square, 2, 2);
    check_policy(128, 256, 8, P::Square, 2, 4);
    check_policy(128, 128, 8, P::Square, 2, 4);
    check_policy(64, 64, 4, P::FullRow, 4, 1);
    check_policy(64, 64, 4, P::FullCol, 1, 4);
    check_policy(16, 64, 4, P::FullRow, 1, 4);
    check_policy(128, 8, 4, P::FullCol, 4, 1);
    check_policy(16, 8, 4, P::Square, 0, 0);  // no partition: caller must diagnose
    std::printf("[ OK ] warp_partition cases\n");
    for (int gx : {1, 3, 32})
        for (int gy : {1, 5, 32})
            for (int panel : {1, 4, 8, 10})
                for (bool col : {false, true}) check_raster(gx, gy, panel, col);
    tp::BlockXY first = tp::rasterize(1, 0, 32, 32, 8);  // second block walks down the panel
    EXPECT(first.x == 0 && first.y == 1, "row-order panel walk: got (%d, %d)", first.x, first.y);
    std::printf("[ OK ] rasterize permutations\n");
    std::printf("layout_test: %s\n", failures ? "CHECK FAILURES" : "all checks passed");
    return failures ? 1 : 0;
}
