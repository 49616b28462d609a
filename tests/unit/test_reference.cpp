// The C++ CPU references: GEMM transposes agree with explicit transposition, GELU matches
// known values, softmax rows sum to one, attention layouts agree and causal masking holds,
// and the baseline names of sample headers map to the right reference.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/ir.h"
#include "reference/reference.h"
#include "tileplay/interp.h"

using namespace tp;
using ir::DataType;

namespace {

HostTensor rnd(std::vector<int64_t> shape, uint64_t seed, DataType t = DataType::float32()) {
    HostTensor x(t, std::move(shape));
    x.fill_random(seed);
    return x;
}

HostTensor transpose2d(const HostTensor& a) {
    HostTensor t(a.dtype, {a.shape[1], a.shape[0]});
    for (int64_t i = 0; i < a.shape[0]; ++i)
        for (int64_t j = 0; j < a.shape[1]; ++j) t.set(j * a.shape[0] + i, a.at({i, j}));
    return t;
}

}  // namespace

TEST(Reference, GemmSmallExactAndTransposes) {
    HostTensor A(DataType::float32(), {2, 3}), B(DataType::float32(), {3, 2});
    A.from_doubles({1, 2, 3, 4, 5, 6});
    B.from_doubles({7, 8, 9, 10, 11, 12});
    HostTensor C = reference::gemm(A, B, false, false, DataType::float32());
    EXPECT_EQ(C.to_doubles(), (std::vector<double>{58, 64, 139, 154}));
    HostTensor X = rnd({5, 7}, 1), Y = rnd({7, 4}, 2);
    HostTensor ref = reference::gemm(X, Y, false, false, DataType::float64());
    for (auto [ta, tb] : {std::pair{true, false}, {false, true}, {true, true}}) {
        HostTensor g = reference::gemm(ta ? transpose2d(X) : X, tb ? transpose2d(Y) : Y, ta, tb, DataType::float64());
        EXPECT_LT(compare_tensors(g, ref, 1e-12).rel_fro, 1e-12);
    }
    EXPECT_THROW(reference::gemm(X, X, false, false, DataType::float32()), std::invalid_argument);
}

TEST(Reference, GeluAndBias) {
    EXPECT_NEAR(reference::gelu_exact(1.0), 0.8413447460685429, 1e-12);
    EXPECT_NEAR(reference::gelu_exact(-1.0), -0.15865525393145707, 1e-12);
    HostTensor A = rnd({4, 3}, 3), B = rnd({3, 5}, 4), bias = rnd({5}, 5);
    HostTensor g = reference::gemm_bias_gelu(A, B, bias, false, false, DataType::float64());
    HostTensor m = reference::gemm(A, B, false, false, DataType::float64());
    for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 5; ++j) EXPECT_NEAR(g.at({i, j}), reference::gelu_exact(m.at({i, j}) + bias.get(j)), 1e-12);
}

TEST(Reference, SoftmaxRowsSumToOneAndAreShiftInvariant) {
    HostTensor x = rnd({3, 17}, 6, DataType::float64());
    HostTensor y = reference::softmax(x, DataType::float64());
    for (int64_t r = 0; r < 3; ++r) {
        double s = 0;
        for (int64_t j = 0; j < 17; ++j) s += y.at({r, j});
        EXPECT_NEAR(s, 1.0, 1e-12);
    }
    HostTensor big = x;
    for (int64_t i = 0; i < big.numel(); ++i) big.set(i, x.get(i) + 1000.0);
    EXPECT_LT(compare_tensors(reference::softmax(big, DataType::float64()), y, 1e-9).rel_fro, 1e-9);
}

TEST(Reference, AttentionLayoutsAgreeAndCausalMasks) {
    const int64_t B = 1, S = 6, H = 2, D = 4;
    HostTensor q = rnd({B, S, H, D}, 7, DataType::float64()), k = rnd({B, S, H, D}, 8, DataType::float64()),
               v = rnd({B, S, H, D}, 9, DataType::float64());
    auto to_bhsd = [&](const HostTensor& t) {
        HostTensor o(t.dtype, {B, H, S, D});
        for (int64_t s = 0; s < S; ++s)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t d = 0; d < D; ++d) o.set(((h * S) + s) * D + d, t.at({0, s, h, d}));
        return o;
    };
    HostTensor o1 = reference::attention(q, k, v, false, 0, reference::Layout::BSHD, DataType::float64());
    HostTensor o2 = reference::attention(to_bhsd(q), to_bhsd(k), to_bhsd(v), false, 0, reference::Layout::BHSD, DataType::float64());
    EXPECT_LT(compare_tensors(to_bhsd(o1), o2, 1e-12).rel_fro, 1e-12);
    // Causal: the first query sees only the first key, so its output is V's first row.
    HostTensor oc = reference::attention(q, k, v, true, 0, reference::Layout::BSHD, DataType::float64());
    for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d) EXPECT_NEAR(oc.at({0, 0, h, d}), v.at({0, 0, h, d}), 1e-12);
    // The last query sees every key: causal and full attention agree there.
    for (int64_t d = 0; d < D; ++d) EXPECT_NEAR(oc.at({0, S - 1, 1, d}), o1.at({0, S - 1, 1, d}), 1e-12);
}

TEST(Reference, BaselineNamesMapToReferences) {
    ir::PrimFunc f;
    auto mk = [](const std::string& n, std::vector<int64_t> shape) {
        std::vector<ir::Expr> sh;
        for (auto d : shape) sh.push_back(ir::int_imm(d));
        return std::make_shared<ir::BufferNode>(n, DataType::float32(), sh, ir::Scope::Global);
    };
    f.params = {{"A", mk("A", {4, 3}), nullptr, false}, {"B", mk("B", {3, 2}), nullptr, false}, {"C", mk("C", {4, 2}), nullptr, true}};
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(f, 1, {}, args, nullptr));
    EXPECT_EQ(cpu_reference({"cublas.gemm"}, f, args).name, "gemm");
    EXPECT_TRUE(cpu_reference({"torch: A @ B"}, f, args).available);
    EXPECT_EQ(cpu_reference({"torch: A @ B"}, f, args).output, "C");
    ReferenceResult none = cpu_reference({}, f, args);
    EXPECT_FALSE(none.available);
    EXPECT_EQ(none.error, "the sample header names no baseline");
    ReferenceResult add = cpu_reference({"torch: A + B"}, f, args);
    EXPECT_FALSE(add.available);  // [4, 3] + [3, 2] cannot be added
    EXPECT_NE(add.error.find("differ"), std::string::npos);
}

// torch's SDPA(is_causal=True) aligns the diagonal to the top-left also when seq_q != seq_kv:
// query i sees keys 0..i. The samples name that baseline, so the reference must agree.
TEST(Reference, CausalMaskIsTopLeftWhenSequencesDiffer) {
    const int64_t Sq = 2, Sk = 5, D = 3;
    HostTensor q(DataType::float64(), {1, 1, Sq, D}), k(DataType::float64(), {1, 1, Sk, D}), v(DataType::float64(), {1, 1, Sk, D});
    q.fill_random(1);
    k.fill_random(2);
    v.fill_random(3);
    HostTensor o = reference::attention(q, k, v, true, 0, reference::Layout::BHSD, DataType::float64());
    for (int64_t d = 0; d < D; ++d) EXPECT_NEAR(o.at({0, 0, 0, d}), v.at({0, 0, 0, d}), 1e-12);
    // Query 1 sees keys 0 and 1 only: its output is a convex mix of V rows 0 and 1.
    double s0 = 0, s1 = 0;
    for (int64_t d = 0; d < D; ++d) s0 += q.at({0, 0, 1, d}) * k.at({0, 0, 0, d}), s1 += q.at({0, 0, 1, d}) * k.at({0, 0, 1, d});
    double scale = 1.0 / std::sqrt(static_cast<double>(D));
    double w0 = std::exp(s0 * scale), w1 = std::exp(s1 * scale);
    for (int64_t d = 0; d < D; ++d)
        EXPECT_NEAR(o.at({0, 0, 1, d}), (w0 * v.at({0, 0, 0, d}) + w1 * v.at({0, 0, 1, d})) / (w0 + w1), 1e-12);
}
