// Striped fragments in runs of V (fragment_layout.h): the lowering's slot -> element formula
// (FragLayout::striped_elem, used by T.Parallel loops) against the templates'
// (tp::striped_elem in tp_layout.cuh, used by reduce_striped and the vector copies), both a
// bijection of (thread, slot) onto the elements that matches the documented inverse
// (thread (e / V) % T, slot (e / (V*T)) * V + e % V); and the run length layout inference
// picks for fragments copied to/from global or shared memory.
#include <gtest/gtest.h>

#include <vector>

#define TP_HD inline
#include "codegen/cuda/runtime/tp_layout.cuh"
#include "transform/fragment_layout.h"
#include "transform/layout_inference.h"
#include "test_util.h"

using namespace tp;
using namespace tp::ir;
using namespace tp::test_util;
using tp::transform::FragLayout;

namespace {

template <int T, int V>
void check_bijection(int64_t elems) {
    FragLayout f;
    f.kind = FragLayout::Striped;
    f.threads = T, f.vec = V, f.elems = elems;
    std::vector<int> seen(elems, 0);
    for (int tid = 0; tid < T; ++tid) {
        for (int s = 0; s < f.local_size(); ++s) {
            auto e = as_const_int(f.striped_elem(int_imm(tid), int_imm(s)));
            ASSERT_TRUE(e.has_value());
            ASSERT_EQ(*e, (tp::striped_elem<T, V>(tid, s))) << "T=" << T << " V=" << V << " tid=" << tid << " s=" << s;
            if (*e >= elems) {
                // Only the last round of a V = 1 layout may run past the end (guarded e < elems).
                ASSERT_EQ(V, 1);
                ASSERT_NE(elems % T, 0);
                continue;
            }
            ASSERT_GE(*e, 0);
            ++seen[*e];
            ASSERT_EQ((*e / V) % T, tid) << "owner of " << *e;
            ASSERT_EQ((*e / (V * T)) * V + *e % V, s) << "slot of " << *e;
        }
    }
    for (int64_t e = 0; e < elems; ++e) ASSERT_EQ(seen[e], 1) << "element " << e << " T=" << T << " V=" << V;
}

// Layouts of a kernel of `threads` threads that copies each (src, dst) pair.
std::map<const BufferNode*, FragLayout> infer(int64_t threads, const std::vector<std::pair<Buffer, Buffer>>& copies,
                                              const std::vector<Buffer>& allocs) {
    std::vector<Stmt> body;
    for (const auto& [s, d] : copies) body.push_back(std::make_shared<CopyOpNode>(whole(s), whole(d)));
    Stmt seq = make_seq(body);
    for (const Buffer& b : allocs) seq = std::make_shared<AllocateNode>(b, nullptr, seq);
    Var bx = std::make_shared<VarNode>("bx", DataType::int32(), VarKind::BlockIdx);
    PrimFunc f;
    f.name = "k";
    f.body = std::make_shared<KernelLaunchNode>(std::vector<Expr>{int_imm(1)}, std::vector<Var>{bx}, std::vector<int64_t>{threads},
                                                std::vector<Var>{}, seq);
    DiagnosticEngine diags(SourceFile::from_string("k.py", ""));
    auto l = transform::infer_fragment_layouts(f, diags);
    EXPECT_EQ(diags.error_count(), 0);
    return l;
}

}  // namespace

TEST(StripedLayout, SlotToElementIsABijectionMatchingTheTemplates) {
    check_bijection<256, 8>(8192);
    check_bijection<256, 8>(16384);
    check_bijection<128, 4>(512);
    check_bijection<128, 8>(3072);
    check_bijection<32, 2>(64);
    check_bijection<256, 1>(1000);
    check_bijection<128, 1>(100);
    check_bijection<64, 1>(4096);
}

TEST(StripedLayout, VectorOneIsTheHistoricalFormula) {
    for (int tid = 0; tid < 256; tid += 5)
        for (int s = 0; s < 32; ++s) ASSERT_EQ((tp::striped_elem<256, 1>(tid, s)), s * 256 + tid);
}

TEST(StripedLayout, InferencePicksRunsFromTheNarrowestGlobalTensor) {
    Buffer X = buf("X", DataType::float16(), {64, 8192}, Scope::Global);
    Buffer Y = buf("Y", DataType::float32(), {64, 8192}, Scope::Global);
    Buffer x = buf("x", DataType::float32(), {1, 8192}, Scope::Fragment);
    Buffer y = buf("y", DataType::float32(), {8192}, Scope::Fragment);  // same count: same V
    auto l = infer(256, {{X, x}, {x, Y}}, {x, y, X, Y});
    EXPECT_EQ(l.at(x.get()).kind, FragLayout::Striped);
    EXPECT_EQ(l.at(x.get()).vec, 8);  // fp16 is the narrowest: 8 x 2 bytes
    EXPECT_EQ(l.at(y.get()).vec, 8);
    EXPECT_EQ(l.at(x.get()).local_size(), 32);
}

TEST(StripedLayout, InferenceKeepsScalarStripesWhenRunsDoNotFit) {
    // A row of 1000 is no whole round (8 * 256) but whole runs of 8: runs, the last round partial
    // (local slots for whole rounds: 8 a thread, 125 threads holding data).
    Buffer X = buf("X", DataType::float16(), {64, 1000}, Scope::Global);
    Buffer x = buf("x", DataType::float32(), {1, 1000}, Scope::Fragment);
    auto lx = infer(256, {{X, x}}, {x, X}).at(x.get());
    EXPECT_EQ(lx.vec, 8);
    EXPECT_EQ(lx.local_size(), 8);
    // A row of 1001 is no whole number of runs: scalar stripes.
    Buffer Y = buf("Y", DataType::float16(), {64, 1001}, Scope::Global);
    Buffer y = buf("y", DataType::float32(), {1, 1001}, Scope::Fragment);
    EXPECT_EQ(infer(256, {{Y, y}}, {y, Y}).at(y.get()).vec, 1);

    // A row of 1026 is no multiple of 8 (nor 4): whole rounds of runs of 2 (4-byte accesses).
    Buffer W = buf("W", DataType::float16(), {64, 1026}, Scope::Global);
    Buffer w = buf("w", DataType::float32(), {8, 1026}, Scope::Fragment);
    EXPECT_EQ(infer(2, {{W, w}}, {w, W}).at(w.get()).vec, 2);
    // 256 elements on 128 threads: no whole round of 8, so whole rounds of 2, every thread busy.
    Buffer R = buf("R", DataType::float16(), {64, 256}, Scope::Global);
    Buffer r = buf("r", DataType::float32(), {1, 256}, Scope::Fragment);
    EXPECT_EQ(infer(128, {{R, r}}, {r, R}).at(r.get()).vec, 2);

    Buffer S = buf("S", DataType::float16(), {1, 2048}, Scope::Shared);
    Buffer G = buf("G", DataType::float16(), {64, 2048}, Scope::Global);
    Buffer s = buf("s", DataType::float32(), {1, 2048}, Scope::Fragment);  // also copied to shared: no runs
    EXPECT_EQ(infer(256, {{G, s}, {s, S}}, {s, S, G}).at(s.get()).vec, 1);

    Buffer I = buf("I", DataType::int32(), {64, 2048}, Scope::Global);
    Buffer k = buf("k", DataType::int32(), {1, 2048}, Scope::Fragment);  // the vector copy converts floats only
    EXPECT_EQ(infer(256, {{I, k}}, {k, I}).at(k.get()).vec, 1);

    Buffer n = buf("n", DataType::float32(), {1, 2048}, Scope::Fragment);  // never copied: no reason for runs
    EXPECT_EQ(infer(256, {}, {n}).at(n.get()).vec, 1);
}
