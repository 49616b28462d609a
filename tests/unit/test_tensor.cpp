// HostTensor: small-float rounding, integer wrap, seeded fill, comparison and .npy round trips.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "tensor/npy.h"
#include "tensor/tensor.h"

using tp::HostTensor;
using tp::ir::DataType;

TEST(Tensor, HalfRoundsToNearestEven) {
    EXPECT_EQ(tp::double_to_half_bits(1.0), 0x3C00);
    EXPECT_EQ(tp::double_to_half_bits(-2.0), 0xC000);
    EXPECT_EQ(tp::double_to_half_bits(65504.0), 0x7BFF);
    EXPECT_EQ(tp::double_to_half_bits(65520.0), 0x7C00);  // halfway to 65536 rounds up to inf
    EXPECT_EQ(tp::double_to_half_bits(65519.0), 0x7BFF);
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
    EXPECT_EQ(tp::double_to_half_bits(1.0 + std::ldexp(1.0, -11)), 0x3C00);
    // 1 + 3*2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even): rounds up.
    EXPECT_EQ(tp::double_to_half_bits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
    EXPECT_EQ(tp::double_to_half_bits(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
    EXPECT_EQ(tp::double_to_half_bits(std::ldexp(1.0, -26)), 0x0000);
    EXPECT_DOUBLE_EQ(tp::half_bits_to_double(0x3555), 0.333251953125);
    EXPECT_TRUE(std::isnan(tp::half_bits_to_double(tp::double_to_half_bits(NAN))));
    EXPECT_TRUE(std::isinf(tp::half_bits_to_double(0xFC00)));
}

TEST(Tensor, Bf16AndFp8Conversions) {
    EXPECT_EQ(tp::double_to_bf16_bits(1.0), 0x3F80);
    EXPECT_EQ(tp::double_to_bf16_bits(1.0 + std::ldexp(1.0, -8)), 0x3F80);       // tie to even
    EXPECT_EQ(tp::double_to_bf16_bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);   // tie up to even
    EXPECT_DOUBLE_EQ(tp::bf16_bits_to_double(0x4049), 3.140625);
    EXPECT_DOUBLE_EQ(tp::fp8_e4m3_bits_to_double(0x7E), 448.0);
    EXPECT_EQ(tp::double_to_fp8_e4m3_bits(1000.0), 0x7E);  // saturates
    EXPECT_TRUE(std::isnan(tp::fp8_e4m3_bits_to_double(0x7F)));
    EXPECT_DOUBLE_EQ(tp::fp8_e5m2_bits_to_double(0x7B), 57344.0);
    EXPECT_EQ(tp::double_to_fp8_e5m2_bits(1e9), 0x7B);
    EXPECT_DOUBLE_EQ(tp::round_to_dtype(0.3, DataType(DataType::Float8E4M3, 8)), 0.3125);
}

TEST(Tensor, IntegersWrapLikeCCasts) {
    EXPECT_EQ(tp::round_to_dtype(2147483648.0, DataType::int32()), -2147483648.0);
    EXPECT_EQ(tp::round_to_dtype(-1.0, DataType(DataType::UInt, 8)), 255.0);
    EXPECT_EQ(tp::round_to_dtype(3.9, DataType::int32()), 3.0);
    EXPECT_EQ(tp::round_to_dtype(-3.9, DataType::int32()), -3.0);
    HostTensor t(DataType(DataType::Int, 8), {2});
    t.set(0, 130);
    EXPECT_EQ(t.get(0), -126);
}

TEST(Tensor, SeededFillIsDeterministicAndNormal) {
    HostTensor a(DataType::float32(), {64, 64}), b(DataType::float32(), {64, 64}), c(DataType::float32(), {64, 64});
    a.fill_random(7);
    b.fill_random(7);
    c.fill_random(8);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_NE(a.bytes, c.bytes);
    double mean = 0, var = 0;
    for (int64_t i = 0; i < a.numel(); ++i) mean += a.get(i);
    mean /= a.numel();
    for (int64_t i = 0; i < a.numel(); ++i) var += (a.get(i) - mean) * (a.get(i) - mean);
    var /= a.numel();
    EXPECT_NEAR(mean, 0.0, 0.05);
    EXPECT_NEAR(var, 1.0, 0.1);
    HostTensor ints(DataType::int32(), {1000});
    ints.fill_random(1);
    bool neg = false;
    for (int64_t i = 0; i < ints.numel(); ++i) {
        EXPECT_GE(ints.get(i), -4);
        EXPECT_LE(ints.get(i), 4);
        neg |= ints.get(i) < 0;
    }
    EXPECT_TRUE(neg);
}

// Large fills are split across threads; each chunk must start at its own draw so the values
// match the one-thread sequence exactly (GPU runs and the CPU interpreter share inputs by seed).
TEST(Tensor, ParallelFillMatchesTheSerialSequence) {
    auto mix = [](uint64_t& s) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    const uint64_t seed = 5;
    const int64_t n = (int64_t{3} << 20) + 1;  // odd, several chunks
    HostTensor h(DataType::float16(), {n});
    h.fill_random(seed);
    uint64_t s = seed * 0x2545F4914F6CDD1Dull + 0x1234567ull;
    int64_t mismatches = 0;
    for (int64_t i = 0; i < n; i += 2) {
        double u1 = (static_cast<double>(mix(s) >> 11) + 0.5) * 0x1.0p-53;
        double u2 = (static_cast<double>(mix(s) >> 11) + 0.5) * 0x1.0p-53;
        double r = std::sqrt(-2.0 * std::log(u1));
        mismatches += h.get(i) != tp::half_bits_to_double(tp::double_to_half_bits(r * std::cos(2 * M_PI * u2)));
        if (i + 1 < n)
            mismatches += h.get(i + 1) != tp::half_bits_to_double(tp::double_to_half_bits(r * std::sin(2 * M_PI * u2)));
    }
    EXPECT_EQ(mismatches, 0);
    HostTensor ints(DataType::int32(), {n});
    ints.fill_random(seed);
    s = seed * 0x2545F4914F6CDD1Dull + 0x1234567ull;
    mismatches = 0;
    for (int64_t i = 0; i < n; ++i) mismatches += ints.get(i) != static_cast<double>(static_cast<int64_t>(mix(s) % 9) - 4);
    EXPECT_EQ(mismatches, 0);
}

TEST(Tensor, CompareReportsFroAndMaxAbs) {
    HostTensor ref(DataType::float32(), {4}), out(DataType::float32(), {4});
    for (int i = 0; i < 4; ++i) {
        ref.set(i, 1.0);
        out.set(i, 1.0);
    }
    out.set(2, 1.5);
    auto r = tp::compare_tensors(out, ref);
    EXPECT_NEAR(r.rel_fro, 0.25, 1e-12);  // sqrt(0.25) / sqrt(4)
    EXPECT_DOUBLE_EQ(r.max_abs, 0.5);
    EXPECT_EQ(r.worst_index, 2);
    EXPECT_FALSE(r.pass);
    std::vector<uint8_t> mask = {1, 1, 0, 1};
    EXPECT_TRUE(tp::compare_tensors(out, ref, -1, &mask).pass);
    out.set(1, NAN);
    EXPECT_EQ(tp::compare_tensors(out, ref, 10.0).nonfinite, 1);
    EXPECT_FALSE(tp::compare_tensors(out, ref, 10.0).pass);
    // NaN against NaN agrees (and is counted); NaN against a number, or NaN everywhere, does not.
    ref.set(1, NAN);
    auto both = tp::compare_tensors(out, ref, 10.0);
    EXPECT_EQ(both.nonfinite, 0);
    EXPECT_EQ(both.both_nan, 1);
    EXPECT_TRUE(both.pass);
    HostTensor all_nan(DataType::float32(), {2});
    all_nan.set(0, NAN);
    all_nan.set(1, NAN);
    EXPECT_FALSE(tp::compare_tensors(all_nan, all_nan).pass);
    EXPECT_DOUBLE_EQ(tp::default_tolerance(DataType::float16()), 1e-2);
    EXPECT_DOUBLE_EQ(tp::default_tolerance(DataType::bfloat16()), 2e-2);
}

TEST(Npy, RoundTripsEveryDtype) {
    for (DataType t : {DataType::float16(), DataType::float32(), DataType::float64(), DataType::int32(), DataType::int64(),
                       DataType(DataType::UInt, 8), DataType::boolean(), DataType::bfloat16()}) {
        HostTensor a(t, {3, 5});
        a.fill_random(3);
        HostTensor b;
        std::string err;
        ASSERT_TRUE(tp::decode_npy(tp::encode_npy(a), b, &err)) << err;
        std::string enc = tp::encode_npy(a);
        EXPECT_EQ((enc.size() - a.nbytes()) % 64, 0u);  // header padded to 64 bytes
        if (t == DataType::bfloat16()) {
            EXPECT_EQ(b.dtype, DataType(DataType::UInt, 16));  // raw bits
        } else {
            EXPECT_EQ(b.dtype, t);
        }
        EXPECT_EQ(b.shape, a.shape);
        EXPECT_EQ(b.bytes, a.bytes);
    }
}

TEST(Npy, HeaderMatchesNumpyAndLoadConverts) {
    HostTensor a(DataType::float16(), {7});
    std::string enc = tp::encode_npy(a);
    EXPECT_NE(enc.find("{'descr': '<f2', 'fortran_order': False, 'shape': (7,), }"), std::string::npos);
    auto dir = std::filesystem::temp_directory_path() / ("tp_npy_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    HostTensor bf(DataType::bfloat16(), {2, 2});
    bf.fill_random(5);
    ASSERT_TRUE(tp::write_npy((dir / "B.npy").string(), bf));
    HostTensor back;
    std::string err;
    ASSERT_TRUE(tp::load_npy_as((dir / "B.npy").string(), DataType::bfloat16(), {2, 2}, back, &err)) << err;
    EXPECT_EQ(back.bytes, bf.bytes);
    EXPECT_FALSE(tp::load_npy_as((dir / "B.npy").string(), DataType::bfloat16(), {4}, back, &err));
    EXPECT_NE(err.find("shape mismatch"), std::string::npos);
    HostTensor f32(DataType::float32(), {3});
    f32.set(0, 1.0 / 3.0);
    ASSERT_TRUE(tp::write_npy((dir / "A.npy").string(), f32));
    ASSERT_TRUE(tp::load_npy_as((dir / "A.npy").string(), DataType::float16(), {3}, back, &err));
    EXPECT_EQ(back.dtype, DataType::float16());
    EXPECT_DOUBLE_EQ(back.get(0), 0.333251953125);
    EXPECT_FALSE(tp::read_npy((dir / "missing.npy").string(), back, &err));
    std::string junk = "not numpy";
    EXPECT_FALSE(tp::decode_npy(junk, back, &err));
    std::filesystem::remove_all(dir);
}
