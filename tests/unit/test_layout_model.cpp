// The layout model (tileplay/layout.h) against the PTX ISA's own tables, written here from the
// ISA's formulas, not from the compiler's:
//   - mma.m16n8k16 .f16 A, B and C/D fragments: PTX ISA 8.5, section 9.7.14.5.8 "Matrix
//     Fragments for mma.m16n8k16 with floating point type" (groupID = laneid >> 2,
//     threadID_in_group = laneid % 4), and the m16n8k8 .f16 fragments of 9.7.14.5.7, which the
//     sm_75 path issues on the first and second halves of the same registers
//   - wgmma .m64nNk16 accumulator D: 9.7.15.5.1 "Register Fragments and Shared Memory Matrix
//     Layouts", Matrix D (each warp of the warpgroup owns 16 rows)
//   - the 32B / 64B / 128B swizzle modes: 5.5.6 "Tensor-map swizzling modes" (the 16-byte
//     chunk index, address bits [4, 4+b), XOR-ed with bits [7, 7+b) of the address within the
//     swizzle atom; b = 1, 2, 3), which CUTLASS calls Swizzle<b, 4, 3>
//   - bank conflicts: a shared transpose whose column reads hit one bank 32 times unpadded and
//     32 different banks with one float of padding per row
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "layout/bank_conflicts.h"
#include "tileplay/layout.h"

using namespace tp;

namespace {

const char* kMmaKernel = R"(import tilelang.language as T


def mma_tile(M=16, N=8, K=16, threads=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(1, 1, threads=threads) as (bx, by):
            A_s = T.alloc_shared((M, K), "float16")
            B_s = T.alloc_shared((K, N), "float16")
            C_f = T.alloc_fragment((M, N), "float32")
            T.clear(C_f)
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C)

    return main
)";

// The shared transpose kernel of tests/cli/inspect_layout.test, read from its one file.
std::string transpose_kernel() {
    std::ifstream in(TILEPLAY_SOURCE_DIR "/tests/cli/Inputs/shared_transpose.py");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
const std::string kTranspose = transpose_kernel();

// The accumulator stored to a row-major shared tile and copied out: the mma C layout puts the
// 8 rows of a quad group's lanes (groupID) in the same 4 banks, an 8-way conflict.
const char* kStoreKernel = R"(import tilelang.language as T


def store_tile(M=16, N=64, K=16, threads=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(1, 1, threads=threads) as (bx, by):
            A_s = T.alloc_shared((M, K), "float16")
            B_s = T.alloc_shared((K, N), "float16")
            C_f = T.alloc_fragment((M, N), "float32")
            C_s = T.alloc_shared((M, N), "float16")
            T.clear(C_f)
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C_s)
            T.copy(C_s, C)

    return main
)";

LayoutReport model(const char* src, const std::string& buffer, const std::string& target,
                   std::vector<std::pair<std::string, std::string>> defines = {}) {
    CompileRequest req;
    req.path = "layout_test.py";
    req.source = src;
    req.target = target;
    req.defines = std::move(defines);
    LayoutReport r = inspect_layout(req, buffer);
    EXPECT_TRUE(r.ok) << r.error;
    return r;
}

const LayoutAccess* find_access(const BufferLayout& l, const std::string& prefix) {
    for (const auto& a : l.accesses)
        if (a.what.rfind(prefix, 0) == 0) return &a;
    return nullptr;
}

// PTX ISA: element (row, col) of each fragment register element, lane = 4 * groupID + tig.
struct Elem {
    int row, col;
};
Elem isa_a(int lane, int i) {  // a0..a7 of m16n8k16 .f16
    int g = lane >> 2, t = lane % 4;
    int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
    int col = i < 4 ? t * 2 + (i & 1) : t * 2 + 8 + (i & 1);
    return {row, col};
}
Elem isa_b(int lane, int i) {  // b0..b3 of m16n8k16 .f16: (k row, n col)
    int g = lane >> 2, t = lane % 4;
    int row = i < 2 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8;
    return {row, g};
}
Elem isa_c(int lane, int i) {  // c0..c3 / d0..d3 (.f32)
    int g = lane >> 2, t = lane % 4;
    return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
}
Elem isa_a_k8(int lane, int i) {  // a0..a3 of m16n8k8 .f16
    int g = lane >> 2, t = lane % 4;
    return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
}
Elem isa_wgmma_d(int tid, int i) {  // d_i of wgmma .m64nNk16 .f32, tid within the warpgroup
    int warp = tid / 32, lane = tid % 32, g = lane >> 2, t = lane % 4;
    return {16 * warp + g + 8 * ((i >> 1) & 1), (i >> 2) * 8 + t * 2 + (i & 1)};
}

// The 16-byte chunk XOR of the tensor-map swizzle of `mode` bytes on a byte offset.
int64_t isa_swizzle(int64_t byte, int mode) {
    const int64_t mask = mode / 16 - 1;  // 1, 3, 7
    return byte ^ (((byte >> 7) & mask) << 4);
}

}  // namespace

TEST(LayoutModel, MmaAccumulatorMatchesIsaFragmentC) {
    LayoutReport r = model(kMmaKernel, "C_f", "sm_80");
    const BufferLayout& l = r.layout;
    ASSERT_EQ(l.scope, "fragment");
    ASSERT_EQ(l.rows, 16);
    ASSERT_EQ(l.cols, 8);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            Elem e = isa_c(lane, i);
            const auto& os = l.owners[size_t(e.row * 8 + e.col)];
            ASSERT_EQ(os.size(), 1u);
            EXPECT_EQ(os[0].thread, lane) << "c" << i;
            EXPECT_EQ(os[0].reg, i) << "lane " << lane;
        }
}

TEST(LayoutModel, LdmatrixDeliversIsaFragmentsAAndB) {
    LayoutReport ra = model(kMmaKernel, "A_s", "sm_80");
    const LayoutAccess* a = find_access(ra.layout, "ldmatrix");
    ASSERT_NE(a, nullptr);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 8; ++i) {
            Elem e = isa_a(lane, i);
            const LayoutOwner& o = a->touch[size_t(e.row * 16 + e.col)];
            EXPECT_EQ(o.thread, lane) << "a" << i;
            EXPECT_EQ(o.reg, i) << "lane " << lane;
            if (i < 4) {  // the sm_75 m16n8k8 step 0 reads the same registers' first halves
                Elem k8 = isa_a_k8(lane, i);
                EXPECT_EQ(k8.row, e.row);
                EXPECT_EQ(k8.col, e.col);
            }
        }
    LayoutReport rb = model(kMmaKernel, "B_s", "sm_80");
    const LayoutAccess* b = find_access(rb.layout, "ldmatrix");
    ASSERT_NE(b, nullptr);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            Elem e = isa_b(lane, i);
            const LayoutOwner& o = b->touch[size_t(e.row * 8 + e.col)];
            EXPECT_EQ(o.thread, lane) << "b" << i;
            EXPECT_EQ(o.reg, i) << "lane " << lane;
        }
}

// Every m16 x k16 block of a bigger, swizzled A tile on 4 warps holds the same fragment, in the
// warp that owns its rows (the first warp of that row reads it).
TEST(LayoutModel, LdmatrixFragmentsOfSwizzledTile) {
    LayoutReport r = model(kMmaKernel, "A_s", "sm_80", {{"M", "64"}, {"N", "64"}, {"K", "32"}, {"threads", "128"}});
    ASSERT_TRUE(r.layout.swizzle.swizzled);
    const LayoutAccess* a = find_access(r.layout, "ldmatrix");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->degree, 1);                    // the swizzle's purpose: conflict-free ldmatrix
    std::map<std::pair<int, int>, int> expect;  // (row % 16, col % 16) -> lane * 8 + i
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 8; ++i) {
            Elem e = isa_a(lane, i);
            expect[{e.row, e.col}] = lane * 8 + i;
        }
    for (int row = 0; row < 64; ++row)
        for (int col = 0; col < 32; ++col) {
            const LayoutOwner& o = a->touch[size_t(row * 32 + col)];
            ASSERT_GE(o.thread, 0);
            EXPECT_EQ((o.thread % 32) * 8 + o.reg, (expect[{row % 16, col % 16}])) << row << "," << col;
        }
}

TEST(LayoutModel, WgmmaAccumulatorMatchesIsaFragmentD) {
    for (int n : {64, 128}) {
        LayoutReport r = model(kMmaKernel, "C_f", "sm_90a", {{"M", "64"}, {"N", std::to_string(n)}, {"K", "32"}, {"threads", "128"}});
        const BufferLayout& l = r.layout;
        ASSERT_TRUE(l.wgmma) << l.description;
        ASSERT_EQ(l.regs_per_thread, n / 2);
        for (int tid = 0; tid < 128; ++tid)
            for (int i = 0; i < n / 2; ++i) {
                Elem e = isa_wgmma_d(tid, i);
                const auto& os = l.owners[size_t(e.row * n + e.col)];
                ASSERT_EQ(os.size(), 1u);
                EXPECT_EQ(os[0].thread, tid) << "N=" << n << " d" << i;
                EXPECT_EQ(os[0].reg, i) << "N=" << n << " thread " << tid;
            }
    }
    // Two m64 blocks on one warpgroup: registers [N/2, N) are the second wgmma's D, 64 rows down.
    LayoutReport r = model(kMmaKernel, "C_f", "sm_90a", {{"M", "128"}, {"N", "64"}, {"K", "32"}, {"threads", "128"}});
    ASSERT_TRUE(r.layout.wgmma);
    for (int tid = 0; tid < 128; ++tid)
        for (int i = 0; i < 64; ++i) {
            Elem e = isa_wgmma_d(tid, i % 32);
            const auto& os = r.layout.owners[size_t((e.row + 64 * (i / 32)) * 64 + e.col)];
            ASSERT_EQ(os.size(), 1u);
            EXPECT_EQ(os[0].thread, tid);
            EXPECT_EQ(os[0].reg, i);
        }
}

TEST(LayoutModel, SwizzleModesMatchTensorMapSwizzle) {
    // wgmma operand tiles of 128-, 64- and 32-byte rows take the 128B, 64B and 32B modes.
    const std::tuple<int, int, const char*> cases[] = {{64, 128, "Swizzle<3,4,3>"}, {32, 64, "Swizzle<2,4,3>"}, {16, 32, "Swizzle<1,4,3>"}};
    for (const auto& [k, mode, cutlass] : cases) {
        LayoutReport r = model(kMmaKernel, "A_s", "sm_90a", {{"M", "64"}, {"N", "64"}, {"K", std::to_string(k)}, {"threads", "128"}});
        const BufferLayout& l = r.layout;
        ASSERT_EQ(l.cols, k);
        EXPECT_EQ(l.swizzle.mode_bytes, mode);
        EXPECT_EQ(l.swizzle.cutlass.rfind(cutlass, 0), 0u) << l.swizzle.cutlass;
        for (int64_t row = 0; row < l.rows; ++row)
            for (int64_t col = 0; col < l.cols; ++col) {
                int64_t lin = (row * l.cols + col) * 2;
                ASSERT_EQ(l.byte_offset[size_t(row * l.cols + col)], isa_swizzle(lin, mode)) << "mode " << mode << " " << row << "," << col;
            }
    }
    // A B tile 256 columns wide: 128-byte panels of 64 columns, each one 128B-swizzled atom column.
    LayoutReport r = model(kMmaKernel, "B_s", "sm_90a", {{"M", "64"}, {"N", "256"}, {"K", "16"}, {"threads", "128"}});
    const BufferLayout& l = r.layout;
    ASSERT_TRUE(l.swizzle.panels);
    for (int64_t row = 0; row < l.rows; ++row)
        for (int64_t col = 0; col < l.cols; ++col) {
            int64_t panel = col / 64, in_panel = (row * 64 + col % 64) * 2;
            ASSERT_EQ(l.byte_offset[size_t(row * l.cols + col)], panel * l.rows * 128 + isa_swizzle(in_panel, 128));
        }
}

TEST(LayoutModel, TransposeConflictsUnpaddedAndPadded) {
    for (int pad : {0, 1}) {
        LayoutReport r = model(kTranspose.c_str(), "S", "sm_80", {{"PAD", std::to_string(pad)}});
        const LayoutAccess* st = find_access(r.layout, "st.shared");
        const LayoutAccess* ld = find_access(r.layout, "ld.shared");
        ASSERT_NE(st, nullptr);
        ASSERT_NE(ld, nullptr);
        EXPECT_EQ(st->degree, 1) << "row writes: 32 consecutive words";
        EXPECT_EQ(ld->degree, pad ? 1 : 32) << "column reads, pad " << pad;
        EXPECT_EQ(ld->requests, 32);
        EXPECT_EQ(ld->wavefronts, pad ? 32 : 32 * 32);
        EXPECT_EQ(ld->span.begin.line, 13u);  // `B[i, j] = S[j, i]`
        // Every element of the 32 x 32 region is read once, by thread (its row % 32).
        for (int row = 0; row < 32; ++row)
            for (int col = 0; col < 32; ++col) {
                ASSERT_TRUE(ld->touched[size_t(row * (32 + pad) + col)]);
                EXPECT_EQ(ld->touch[size_t(row * (32 + pad) + col)].thread, row);
            }
    }
}

TEST(LayoutModel, AccumulatorStoreToSharedConflicts) {
    LayoutReport r = model(kStoreKernel, "C_s", "sm_80");
    const LayoutAccess* st = find_access(r.layout, "st.shared");
    const LayoutAccess* ld = find_access(r.layout, "ld.shared 16 B");
    ASSERT_NE(st, nullptr);
    ASSERT_NE(ld, nullptr);
    // Lane 4g + t writes the pair (g, 2t), (g, 2t+1) of each m16n8 tile: byte 128 g + 4 t + 16 nt
    // is bank t + 4 nt for every g, so 8 different words share each bank.
    EXPECT_EQ(st->bytes, 4);
    EXPECT_EQ(st->degree, 8);
    EXPECT_EQ(st->span.begin.line, 16u);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            Elem e = isa_c(lane, i);
            const LayoutOwner& o = st->touch[size_t(e.row * 64 + e.col)];
            EXPECT_EQ(o.thread, lane);
            EXPECT_EQ(o.reg, i);
        }
    // copy_s2g reads whole 128-byte rows, 8 lanes a row: one wavefront a phase.
    EXPECT_EQ(ld->degree, 1);
    EXPECT_EQ(ld->span.begin.line, 17u);
}

TEST(LayoutModel, RequestCostPhases) {
    using layout::LaneAddress;
    std::vector<LaneAddress> same_word, stride2, v4;
    for (int l = 0; l < 32; ++l) {
        same_word.push_back({l, 64});        // broadcast
        stride2.push_back({l, l * 8});       // 4-byte accesses two words apart: 2-way
        v4.push_back({l, int64_t(l) * 16});  // 16-byte accesses, consecutive: 4 phases of 128 bytes
    }
    EXPECT_EQ(layout::request_cost(same_word, 4).degree, 1);
    EXPECT_EQ(layout::request_cost(stride2, 4).degree, 2);
    auto c = layout::request_cost(v4, 16);
    EXPECT_EQ(c.degree, 1);
    EXPECT_EQ(c.wavefronts, 4);
    EXPECT_EQ(c.ideal, 4);
}

TEST(LayoutModel, UnknownBufferNamesTheKernelsBuffers) {
    CompileRequest req;
    req.path = "layout_test.py";
    req.source = kMmaKernel;
    req.target = "sm_80";
    LayoutReport r = inspect_layout(req, "nope");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("`nope`"), std::string::npos);
    EXPECT_NE(r.error.find("A_s"), std::string::npos);
    EXPECT_NE(r.error.find("C_f"), std::string::npos);
}

// A row reduction of a striped tile whose runs stay in one row keeps each row's value in that
// row's threads (FragLayout::StripedRow): for every element of the tile, the thread holding it
// must hold its row's value, and only the row's 16 threads do (128 columns in runs of 8: the
// fp16 store asks for 8-element runs), 8 rows on 64 threads: four rows a round, two rounds.
// (8 rows fit no mma accumulator, which a reduced tile of 16 would take.)
TEST(LayoutModel, RowValuesLiveInTheirRowsThreads) {
    const char* src = R"(import tilelang.language as T


def rows(M=32, rows=8):
    @T.prim_func
    def main(X: T.Tensor((M, 128), "float32"), Y: T.Tensor((M, 128), "float16")):
        with T.Kernel(M // rows, threads=64) as bx:
            x = T.alloc_fragment((rows, 128), "float32")
            amax = T.alloc_fragment((rows,), "float32")
            T.copy(X[bx * rows, 0], x)
            T.reduce_absmax(x, amax, dim=1)
            for i, j in T.Parallel(rows, 128):
                x[i, j] = x[i, j] / amax[i]
            T.copy(x, Y[bx * rows, 0])

    return main
)";
    LayoutReport tile = model(src, "x", "sm_80");
    LayoutReport vec = model(src, "amax", "sm_80");
    ASSERT_EQ(vec.layout.owners.size(), 8u);
    EXPECT_EQ(vec.layout.regs_per_thread, 2);
    for (int64_t r = 0; r < 8; ++r) {
        ASSERT_EQ(vec.layout.owners[size_t(r)].size(), 16u) << "row " << r;
        for (const auto& o : vec.layout.owners[size_t(r)]) {
            EXPECT_EQ((o.thread * 8 + (r / 4) * 512) / 128, r);
            EXPECT_EQ(o.reg, r / 4);
        }
    }
    ASSERT_EQ(tile.layout.owners.size(), 8u * 128u);
    for (size_t e = 0; e < tile.layout.owners.size(); ++e) {
        ASSERT_EQ(tile.layout.owners[e].size(), 1u);
        const int t = tile.layout.owners[e][0].thread;
        bool held = false;
        for (const auto& o : vec.layout.owners[e / 128]) held |= o.thread == t;
        EXPECT_TRUE(held) << "element " << e << " in thread " << t;
    }
}
