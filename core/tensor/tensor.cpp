// HostTensor element access, small-float conversions, seeded random fill and comparison.
#include "tensor/tensor.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace tp {

namespace {

// Generic IEEE-like encoder for a float format with E exponent bits and M mantissa bits.
// `ieee`: the all-ones exponent means inf/NaN; otherwise (e4m3fn) only all-ones is NaN.
// Rounding is round-to-nearest-even (nearbyint in the default rounding mode on exact
// scaled values).
uint32_t encode_small_float(double x, int E, int M, bool ieee, bool saturate) {
    const int bias = (1 << (E - 1)) - 1;
    const uint32_t exp_all = (1u << E) - 1;
    const uint32_t mant_all = (1u << M) - 1;
    const uint32_t sign = std::signbit(x) ? (1u << (E + M)) : 0u;
    if (std::isnan(x)) return ieee ? ((exp_all << M) | (1u << (M - 1))) : ((exp_all << M) | mant_all);
    const uint32_t max_biased = ieee ? exp_all - 1 : exp_all;
    const uint32_t max_mant = ieee ? mant_all : mant_all - 1;
    const uint32_t max_finite = (max_biased << M) | max_mant;
    const uint32_t overflow = sign | ((ieee && !saturate) ? (exp_all << M) : max_finite);
    double a = std::fabs(x);
    if (std::isinf(a)) return overflow;
    if (a < std::ldexp(1.0, 1 - bias)) {
        // Subnormal (rounding up to 2^M lands exactly on the smallest normal's encoding).
        auto q = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, bias - 1 + M)));
        return sign | q;
    }
    int e2 = 0;
    std::frexp(a, &e2);
    int e = e2 - 1;
    auto q = static_cast<uint64_t>(std::nearbyint((std::ldexp(a, -e) - 1.0) * static_cast<double>(1u << M)));
    if (q == (1u << M)) {
        q = 0;
        ++e;
    }
    int64_t biased = e + bias;
    if (biased > static_cast<int64_t>(max_biased)) return overflow;
    if (biased == static_cast<int64_t>(max_biased) && q > max_mant) return overflow;
    return sign | (static_cast<uint32_t>(biased) << M) | static_cast<uint32_t>(q);
}

double decode_small_float(uint32_t bits, int E, int M, bool ieee) {
    const int bias = (1 << (E - 1)) - 1;
    const uint32_t exp_all = (1u << E) - 1;
    const uint32_t mant_all = (1u << M) - 1;
    bool neg = (bits >> (E + M)) & 1u;
    uint32_t ex = (bits >> M) & exp_all;
    uint32_t mant = bits & mant_all;
    double v;
    if (ieee && ex == exp_all) v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (!ieee && ex == exp_all && mant == mant_all) v = std::numeric_limits<double>::quiet_NaN();
    else if (ex == 0) v = std::ldexp(static_cast<double>(mant), 1 - bias - M);
    else v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -M), static_cast<int>(ex) - bias);
    return neg ? -v : v;
}

// splitmix64: a small, portable generator so seeded inputs are identical everywhere.
struct SplitMix {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
};

template <class T> T load_as(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template <class T> void store_as(uint8_t* p, T v) { std::memcpy(p, &v, sizeof(T)); }

// Wraps an integer value to `bits` (two's complement when signed), like a C cast.
int64_t wrap_int(double v, int bits, bool is_signed) {
    if (std::isnan(v)) return 0;
    long double t = std::trunc(static_cast<long double>(v));
    uint64_t u;
    if (t >= 18446744073709551616.0L || t <= -9223372036854775808.0L) u = t < 0 ? 0x8000000000000000ull : 0xFFFFFFFFFFFFFFFFull;
    else if (t < 0) u = static_cast<uint64_t>(static_cast<int64_t>(t));
    else u = static_cast<uint64_t>(t);
    if (bits < 64) {
        u &= (1ull << bits) - 1;
        if (is_signed && (u >> (bits - 1)) & 1u) return static_cast<int64_t>(u | ~((1ull << bits) - 1));
    }
    return static_cast<int64_t>(u);
}

}  // namespace

uint16_t double_to_half_bits(double v) { return static_cast<uint16_t>(encode_small_float(v, 5, 10, true, false)); }
double half_bits_to_double(uint16_t b) { return decode_small_float(b, 5, 10, true); }
uint16_t double_to_bf16_bits(double v) { return static_cast<uint16_t>(encode_small_float(v, 8, 7, true, false)); }
double bf16_bits_to_double(uint16_t b) { return decode_small_float(b, 8, 7, true); }
uint8_t double_to_fp8_e4m3_bits(double v) { return static_cast<uint8_t>(encode_small_float(v, 4, 3, false, true)); }
double fp8_e4m3_bits_to_double(uint8_t b) { return decode_small_float(b, 4, 3, false); }
uint8_t double_to_fp8_e5m2_bits(double v) { return static_cast<uint8_t>(encode_small_float(v, 5, 2, true, true)); }
double fp8_e5m2_bits_to_double(uint8_t b) { return decode_small_float(b, 5, 2, true); }

double round_to_dtype(double v, ir::DataType t) {
    using C = ir::DataType;
    switch (t.code) {
        case C::Float:
            if (t.bits == 16) return half_bits_to_double(double_to_half_bits(v));
            if (t.bits == 32) return static_cast<double>(static_cast<float>(v));
            return v;
        case C::BFloat: return bf16_bits_to_double(double_to_bf16_bits(v));
        case C::Float8E4M3: return fp8_e4m3_bits_to_double(double_to_fp8_e4m3_bits(v));
        case C::Float8E5M2: return fp8_e5m2_bits_to_double(double_to_fp8_e5m2_bits(v));
        case C::Int: return static_cast<double>(wrap_int(v, t.bits, true));
        case C::UInt: return t.bits == 64 ? static_cast<double>(static_cast<uint64_t>(wrap_int(v, 64, false)))
                                          : static_cast<double>(wrap_int(v, t.bits, false));
        case C::Bool: return v != 0 ? 1.0 : 0.0;
        default: return v;
    }
}

std::optional<int64_t> checked_numel(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (auto d : shape)
        if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
    return n;
}

std::optional<int64_t> checked_nbytes(ir::DataType t, const std::vector<int64_t>& shape) {
    auto n = checked_numel(shape);
    int64_t b = 0;
    if (!n || __builtin_mul_overflow(*n, static_cast<int64_t>(dtype_size(t)), &b)) return std::nullopt;
    return b;
}

HostTensor::HostTensor(ir::DataType t, std::vector<int64_t> s) : dtype(t), shape(std::move(s)) {
    auto n = checked_nbytes(dtype, shape);
    if (!n) throw std::length_error("tensor " + describe() + " is too large: its byte count overflows 64 bits");
    bytes.assign(static_cast<size_t>(*n), 0);
}

int64_t HostTensor::numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

double HostTensor::get(int64_t i) const {
    using C = ir::DataType;
    const uint8_t* p = bytes.data() + static_cast<size_t>(i) * dtype_size(dtype);
    switch (dtype.code) {
        case C::Float:
            if (dtype.bits == 16) return half_bits_to_double(load_as<uint16_t>(p));
            if (dtype.bits == 32) return load_as<float>(p);
            return load_as<double>(p);
        case C::BFloat: return bf16_bits_to_double(load_as<uint16_t>(p));
        case C::Float8E4M3: return fp8_e4m3_bits_to_double(*p);
        case C::Float8E5M2: return fp8_e5m2_bits_to_double(*p);
        case C::Int:
            switch (dtype.bits) {
                case 8: return load_as<int8_t>(p);
                case 16: return load_as<int16_t>(p);
                case 32: return load_as<int32_t>(p);
                default: return static_cast<double>(load_as<int64_t>(p));
            }
        case C::UInt:
            switch (dtype.bits) {
                case 8: return *p;
                case 16: return load_as<uint16_t>(p);
                case 32: return load_as<uint32_t>(p);
                default: return static_cast<double>(load_as<uint64_t>(p));
            }
        case C::Bool: return *p ? 1.0 : 0.0;
        default: return 0.0;
    }
}

void HostTensor::set(int64_t i, double v) {
    using C = ir::DataType;
    uint8_t* p = bytes.data() + static_cast<size_t>(i) * dtype_size(dtype);
    switch (dtype.code) {
        case C::Float:
            if (dtype.bits == 16) store_as<uint16_t>(p, double_to_half_bits(v));
            else if (dtype.bits == 32) store_as<float>(p, static_cast<float>(v));
            else store_as<double>(p, v);
            return;
        case C::BFloat: store_as<uint16_t>(p, double_to_bf16_bits(v)); return;
        case C::Float8E4M3: *p = double_to_fp8_e4m3_bits(v); return;
        case C::Float8E5M2: *p = double_to_fp8_e5m2_bits(v); return;
        case C::Int:
        case C::UInt: {
            int64_t w = wrap_int(v, dtype.bits, dtype.code == C::Int);
            switch (dtype.bits) {
                case 8: store_as<uint8_t>(p, static_cast<uint8_t>(w)); return;
                case 16: store_as<uint16_t>(p, static_cast<uint16_t>(w)); return;
                case 32: store_as<uint32_t>(p, static_cast<uint32_t>(w)); return;
                default: store_as<int64_t>(p, w); return;
            }
        }
        case C::Bool: *p = v != 0 ? 1 : 0; return;
        default: return;
    }
}

int64_t HostTensor::flat_index(const std::vector<int64_t>& idx) const {
    if (idx.size() != shape.size()) throw std::out_of_range("HostTensor: index count does not match the rank");
    int64_t f = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
        if (idx[d] < 0 || idx[d] >= shape[d]) throw std::out_of_range("HostTensor: index out of range");
        f = f * shape[d] + idx[d];
    }
    return f;
}

double HostTensor::at(const std::vector<int64_t>& idx) const { return get(flat_index(idx)); }

std::vector<double> HostTensor::to_doubles() const {
    std::vector<double> v(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) v[static_cast<size_t>(i)] = get(i);
    return v;
}

void HostTensor::from_doubles(const std::vector<double>& v) {
    if (static_cast<int64_t>(v.size()) != numel()) throw std::invalid_argument("HostTensor::from_doubles: size mismatch");
    for (int64_t i = 0; i < numel(); ++i) set(i, v[static_cast<size_t>(i)]);
}

namespace {

// Runs fn(begin, end) over [0, n) split across the cores. Large inputs (a 4096^3 GEMM has 48M
// elements) would otherwise take seconds to fill, once per benchmarked config.
template <class F> void parallel_chunks(int64_t n, F fn) {
    const int64_t min_chunk = int64_t{1} << 20;
    int64_t parts = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), (n + min_chunk - 1) / min_chunk);
    if (parts <= 1) {
        fn(int64_t{0}, n);
        return;
    }
    std::vector<std::thread> pool;
    const int64_t step = (n + parts - 1) / parts;
    for (int64_t b = 0; b < n; b += step) pool.emplace_back(fn, b, std::min(n, b + step));
    for (auto& t : pool) t.join();
}

}  // namespace

void HostTensor::fill_random(uint64_t seed) {
    // SplitMix is counter based: draw k (from 1) is mix(s0 + k * gamma), so any chunk can start
    // at its own draw and every thread count gives the same values as the serial loop.
    const uint64_t s0 = seed * 0x2545F4914F6CDD1Dull + 0x1234567ull;
    auto rng_at = [s0](uint64_t draw) { return SplitMix{s0 + draw * 0x9E3779B97F4A7C15ull}; };
    const int64_t n = numel();
    if (dtype.is_float()) {
        const int64_t pairs = (n + 1) / 2;
        parallel_chunks(pairs, [&](int64_t p0, int64_t p1) {
            SplitMix rng = rng_at(static_cast<uint64_t>(2 * p0));
            for (int64_t p = p0; p < p1; ++p) {
                // Box-Muller: two normals per pair of uniforms.
                const int64_t i = 2 * p;
                double u1 = rng.uniform(), u2 = rng.uniform();
                double r = std::sqrt(-2.0 * std::log(u1));
                set(i, r * std::cos(2 * M_PI * u2));
                if (i + 1 < n) set(i + 1, r * std::sin(2 * M_PI * u2));
            }
        });
        return;
    }
    parallel_chunks(n, [&](int64_t b, int64_t e) {
        SplitMix rng = rng_at(static_cast<uint64_t>(b));
        for (int64_t i = b; i < e; ++i) {
            const uint64_t r = rng.next();
            if (dtype.is_bool()) set(i, static_cast<double>(r & 1u));
            else if (dtype.code == ir::DataType::UInt) set(i, static_cast<double>(r % 9));
            else set(i, static_cast<double>(static_cast<int64_t>(r % 9) - 4));
        }
    });
}

HostTensor HostTensor::converted(ir::DataType t) const {
    HostTensor r(t, shape);
    for (int64_t i = 0; i < numel(); ++i) r.set(i, get(i));
    return r;
}

std::string HostTensor::describe() const {
    std::ostringstream os;
    os << dtype.name() << '[';
    for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
    os << ']';
    return os.str();
}

double default_tolerance(ir::DataType t) {
    using C = ir::DataType;
    switch (t.code) {
        case C::Float: return t.bits == 16 ? 1e-2 : t.bits == 32 ? 1e-4 : 1e-10;
        case C::BFloat: return 2e-2;
        case C::Float8E4M3:
        case C::Float8E5M2: return 1.25e-1;
        default: return 0.0;
    }
}

CompareResult compare_tensors(const HostTensor& out, const HostTensor& ref, double tol, const std::vector<uint8_t>* mask) {
    CompareResult r;
    r.tol = tol >= 0 ? tol : default_tolerance(out.dtype);
    if (out.shape != ref.shape) {
        r.shape_mismatch = true;
        return r;
    }
    long double diff2 = 0, ref2 = 0;
    for (int64_t i = 0; i < out.numel(); ++i) {
        if (mask && !(*mask)[static_cast<size_t>(i)]) continue;
        double o = out.get(i), e = ref.get(i);
        ++r.compared;
        bool of = std::isfinite(o), ef = std::isfinite(e);
        if (!of || !ef) {
            // Equal infinities (same sign) match, and so does NaN against NaN (a fully masked
            // softmax row is 0/0 in both); anything else involving NaN/inf fails.
            if (std::isnan(o) && std::isnan(e)) {
                ++r.both_nan;
                continue;
            }
            if (!(std::isinf(o) && std::isinf(e) && (o > 0) == (e > 0))) {
                ++r.nonfinite;
                if (r.worst_index < 0) r.worst_index = i;
            }
            continue;
        }
        double d = std::fabs(o - e);
        diff2 += static_cast<long double>(d) * d;
        ref2 += static_cast<long double>(e) * e;
        if (d > r.max_abs || r.worst_index < 0) {
            if (d > r.max_abs) r.max_abs = d;
            if (r.nonfinite == 0) r.worst_index = i;
        }
    }
    r.rel_fro = ref2 > 0 ? static_cast<double>(std::sqrt(diff2 / ref2)) : static_cast<double>(std::sqrt(diff2));
    // Integer outputs must match exactly; floats by relative Frobenius error.
    bool exact = r.tol == 0.0;
    r.pass = r.nonfinite == 0 && (exact ? r.max_abs == 0.0 : r.rel_fro <= r.tol);
    // NaN everywhere on both sides compared nothing: no evidence of agreement.
    if (r.compared > 0 && r.both_nan == r.compared) r.pass = false;
    return r;
}

std::string format_sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1e", v);
    return buf;
}

}  // namespace tp
