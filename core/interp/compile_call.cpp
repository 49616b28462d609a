// Intrinsic calls (ir/intrinsics.h) in the interpreter: math in double, rounded to the call's
// dtype like the GPU's half/float overloads; T.infinity / max_value / min_value per dtype.
#include <bit>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>

#include "interp/program.h"
#include "tensor/tensor.h"

namespace tp::interp {

namespace {

using ir::DataType;

double dtype_max(DataType t) {
    switch (t.code) {
        case DataType::Float:
            return t.bits == 16 ? 65504.0 : t.bits == 32 ? FLT_MAX : DBL_MAX;
        case DataType::BFloat:
            return bf16_bits_to_double(0x7F7F);
        case DataType::Float8E4M3:
            return 448.0;
        case DataType::Float8E5M2:
            return 57344.0;
        case DataType::Int:
            return std::ldexp(1.0, t.bits - 1) - 1;
        case DataType::UInt:
            return std::ldexp(1.0, t.bits) - 1;
        case DataType::Bool:
            return 1;
        default:
            return 0;
    }
}
double dtype_min(DataType t) {
    if (t.is_float()) return -dtype_max(t);
    if (t.code == DataType::Int) return -std::ldexp(1.0, t.bits - 1);
    return 0;
}

// A call computed on doubles; integer-typed calls (abs, min_value on ints...) go through f too.
struct MathCall : CExpr {
    std::function<double(const double*)> fn;
    std::vector<CExprP> args;
    double f(Frame& fr) const override {
        double a[3] = {0, 0, 0};
        for (size_t k = 0; k < args.size() && k < 3; ++k) a[k] = args[k]->f(fr);
        return round_value(fn(a), dtype);
    }
    int64_t i(Frame& fr) const override {
        double v = f(fr);
        return v != v ? 0 : static_cast<int64_t>(v);
    }
};

// T.reinterpret: the argument's bits in its own dtype, read back as the call's dtype.
struct Reinterpret : CExpr {
    CExprP arg;
    static uint64_t bits_of(const CExpr& e, Frame& fr) {
        DataType t = e.dtype;
        const uint64_t mask = t.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits) - 1;
        switch (t.code) {
            case DataType::Float:
                if (t.bits == 16) return double_to_half_bits(e.f(fr));
                if (t.bits == 32) return std::bit_cast<uint32_t>(static_cast<float>(e.f(fr)));
                return std::bit_cast<uint64_t>(e.f(fr));
            case DataType::BFloat:
                return double_to_bf16_bits(e.f(fr));
            case DataType::Float8E4M3:
                return double_to_fp8_e4m3_bits(e.f(fr));
            case DataType::Float8E5M2:
                return double_to_fp8_e5m2_bits(e.f(fr));
            default:
                return static_cast<uint64_t>(e.i(fr)) & mask;
        }
    }
    // The value of `b` as the call's dtype: a float, or an integer (sign-extended for Int).
    double value(uint64_t b) const {
        switch (dtype.code) {
            case DataType::Float:
                if (dtype.bits == 16) return half_bits_to_double(static_cast<uint16_t>(b));
                if (dtype.bits == 32) return std::bit_cast<float>(static_cast<uint32_t>(b));
                return std::bit_cast<double>(b);
            case DataType::BFloat:
                return bf16_bits_to_double(static_cast<uint16_t>(b));
            case DataType::Float8E4M3:
                return fp8_e4m3_bits_to_double(static_cast<uint8_t>(b));
            case DataType::Float8E5M2:
                return fp8_e5m2_bits_to_double(static_cast<uint8_t>(b));
            default:
                return static_cast<double>(integer(b));
        }
    }
    int64_t integer(uint64_t b) const {
        if (dtype.code == DataType::Int && dtype.bits < 64 && (b >> (dtype.bits - 1)) & 1)
            return static_cast<int64_t>(b | (~uint64_t{0} << dtype.bits));
        return static_cast<int64_t>(b);
    }
    double f(Frame& fr) const override { return value(bits_of(*arg, fr)); }
    int64_t i(Frame& fr) const override {
        if (dtype.is_float()) return static_cast<int64_t>(f(fr));
        return integer(bits_of(*arg, fr));
    }
};

// T.tvm_warp_shuffle: an exchange between the block's threads, which only thread mode runs.
struct WarpShuffle : CExpr {
    CExprP value, lane, width;
    double get(Frame& fr) const {
        if (!fr.fibers)
            throw_diag(fr, DiagKind::NotYetLowered, span,
                       {"T.tvm_warp_shuffle in a kernel whose blocks do not run as threads (a tile op under a branch on the thread index)",
                        "CPU interpreter"});
        const double v = dtype.is_float() ? value->f(fr) : static_cast<double>(value->i(fr));
        return warp_exchange(fr, v, lane->i(fr), width->i(fr), this, span);
    }
    double f(Frame& fr) const override { return get(fr); }
    int64_t i(Frame& fr) const override { return static_cast<int64_t>(get(fr)); }
};

// Philox4x32-10 (Salmon et al., SC'11) on cuRAND's Philox state layout: see tp_rand.cuh.
void philox_block(RngState& s) {
    uint32_t c[4] = {s.ctr[0], s.ctr[1], s.ctr[2], s.ctr[3]};
    uint32_t k[2] = {s.key[0], s.key[1]};
    for (int r = 0; r < 10; ++r) {
        if (r) k[0] += 0x9E3779B9u, k[1] += 0xBB67AE85u;
        const uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
        const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1];
        c[0] = n0, c[1] = static_cast<uint32_t>(p1), c[2] = n2, c[3] = static_cast<uint32_t>(p0);
    }
    for (int i = 0; i < 4; ++i) s.out[i] = c[i];
}

void philox_add(RngState& s, uint64_t lo_add, uint64_t hi_add) {
    uint64_t lo = (uint64_t{s.ctr[1]} << 32 | s.ctr[0]) + lo_add;
    uint64_t hi = (uint64_t{s.ctr[3]} << 32 | s.ctr[2]) + hi_add + (lo < lo_add ? 1 : 0);
    s.ctr[0] = static_cast<uint32_t>(lo), s.ctr[1] = static_cast<uint32_t>(lo >> 32);
    s.ctr[2] = static_cast<uint32_t>(hi), s.ctr[3] = static_cast<uint32_t>(hi >> 32);
}

// T.rng_init(seed, seq, off): key = seed, counter = seq << 64 | off / 4, first word off % 4.
struct RngInit : CExpr {
    CExprP seed, seq, off;
    int64_t i(Frame& fr) const override {
        const auto sd = static_cast<uint64_t>(seed->i(fr)), sq = static_cast<uint64_t>(seq->i(fr)), of = static_cast<uint64_t>(off->i(fr));
        RngState& s = fr.rng;
        s.key[0] = static_cast<uint32_t>(sd), s.key[1] = static_cast<uint32_t>(sd >> 32);
        for (auto& c : s.ctr) c = 0;
        philox_add(s, of / 4, sq);
        s.pos = static_cast<int>(of % 4);
        philox_block(s);
        return 0;
    }
    double f(Frame& fr) const override { return static_cast<double>(i(fr)); }
};

struct RngRand : CExpr {
    int64_t i(Frame& fr) const override {
        RngState& s = fr.rng;
        if (s.pos < 0) throw_diag(fr, DiagKind::TypeMismatch, span, {"`T.rng_rand` before `T.rng_init` in this thread"});
        const uint32_t v = s.out[s.pos];
        if (++s.pos == 4) {
            s.pos = 0;
            philox_add(s, 1, 0);
            philox_block(s);
        }
        return v;
    }
    double f(Frame& fr) const override { return static_cast<double>(i(fr)); }
};

struct ConstCall : CExpr {
    double v;
    double f(Frame&) const override { return v; }
    int64_t i(Frame&) const override { return std::isfinite(v) ? static_cast<int64_t>(v) : 0; }
};

}  // namespace

CExprP compile_call(Program& p, const ir::CallNode& c, std::vector<CExprP> args) {
    const std::string& op = c.op;
    if (op == "warp_shuffle" && args.size() == 3) {
        auto n = std::make_unique<WarpShuffle>();
        n->value = std::move(args[0]);
        n->lane = std::move(args[1]);
        n->width = std::move(args[2]);
        return n;
    }
    if (op == "rng_init" || op == "rng_rand") {
        // Each GPU thread draws from its own generator in its own order; the interpreter holds one
        // per thread it runs: exact for a one-thread block, or per-thread code of a block run as
        // its threads, not for T.Parallel iterations or tile ops the lowering spreads over threads.
        if (p.block_threads != 1 && !(p.thread_mode && p.block_wide_depth == 0)) {
            Diagnostic d;
            d.kind = DiagKind::NotYetLowered;
            d.severity = Severity::Error;
            d.message = format_diag(DiagKind::NotYetLowered, {"T." + op + " in block-wide code of a block of " + std::to_string(p.block_threads) +
                                                                  " threads (each thread draws from its own generator)",
                                                              "CPU interpreter"});
            d.file = p.file;
            d.span = c.span;
            throw RunError{std::move(d)};
        }
        if (op == "rng_rand") return std::make_unique<RngRand>();
        auto n = std::make_unique<RngInit>();
        n->seed = std::move(args.at(0));
        n->seq = std::move(args.at(1));
        n->off = std::move(args.at(2));
        return n;
    }
    if (op == "infinity" || op == "max_value" || op == "min_value") {
        auto n = std::make_unique<ConstCall>();
        if (op == "infinity")
            n->v = c.dtype.is_float() ? std::numeric_limits<double>::infinity() : dtype_max(c.dtype);
        else
            n->v = op == "max_value" ? dtype_max(c.dtype) : dtype_min(c.dtype);
        return n;
    }
    if (op == "reinterpret" && args.size() == 1) {
        auto n = std::make_unique<Reinterpret>();
        n->arg = std::move(args[0]);
        return n;
    }
    // fence_proxy_async: shared-memory writes are visible to every later read here.
    // iket_event: a performance-monitor event; it changes no kernel data, and the CPU has no
    // monitor to signal.
    if (op == "__syncthreads" || op == "named_barrier" || op == "iket_event" ||
        op == "fence_proxy_async") {  // the block runs as one program here: earlier writes are already visible
        auto n = std::make_unique<ConstCall>();
        n->v = 0;
        return n;
    }
    using F = std::function<double(const double*)>;
    static const std::vector<std::pair<const char*, F>> table = {
        {"exp", [](const double* a) { return std::exp(a[0]); }},
        {"exp2", [](const double* a) { return std::exp2(a[0]); }},
        {"exp10", [](const double* a) { return std::pow(10.0, a[0]); }},
        {"log", [](const double* a) { return std::log(a[0]); }},
        {"log2", [](const double* a) { return std::log2(a[0]); }},
        {"log10", [](const double* a) { return std::log10(a[0]); }},
        {"rsqrt", [](const double* a) { return 1.0 / std::sqrt(a[0]); }},
        {"sqrt", [](const double* a) { return std::sqrt(a[0]); }},
        {"abs", [](const double* a) { return std::fabs(a[0]); }},
        {"tanh", [](const double* a) { return std::tanh(a[0]); }},
        {"erf", [](const double* a) { return std::erf(a[0]); }},
        {"gelu_erf", [](const double* a) { return 0.5 * a[0] * std::erfc(-a[0] / std::sqrt(2.0)); }},
        {"sigmoid", [](const double* a) { return 1.0 / (1.0 + std::exp(-a[0])); }},
        {"sin", [](const double* a) { return std::sin(a[0]); }},
        {"cos", [](const double* a) { return std::cos(a[0]); }},
        {"tan", [](const double* a) { return std::tan(a[0]); }},
        {"floor", [](const double* a) { return std::floor(a[0]); }},
        {"ceil", [](const double* a) { return std::ceil(a[0]); }},
        {"round", [](const double* a) { return std::nearbyint(a[0]); }},
        {"trunc", [](const double* a) { return std::trunc(a[0]); }},
        {"pow", [](const double* a) { return std::pow(a[0], a[1]); }},
        {"fmod", [](const double* a) { return std::fmod(a[0], a[1]); }},
        {"clamp", [](const double* a) { return std::fmin(std::fmax(a[0], a[1]), a[2]); }},
        {"fma", [](const double* a) { return std::fma(a[0], a[1], a[2]); }},
        {"isnan", [](const double* a) { return std::isnan(a[0]) ? 1.0 : 0.0; }},
        {"isinf", [](const double* a) { return std::isinf(a[0]) ? 1.0 : 0.0; }},
    };
    for (const auto& [name, fn] : table) {
        if (op != name) continue;
        auto n = std::make_unique<MathCall>();
        n->fn = fn;
        n->args = std::move(args);
        return n;
    }
    Diagnostic d;
    d.kind = DiagKind::NotYetLowered;
    d.severity = Severity::Error;
    d.message = format_diag(DiagKind::NotYetLowered, {"T." + op, "CPU interpreter"});
    if (op == "call_extern") {  // user CUDA (T.import_source): the interpreter has no semantics for it
        d.kind = DiagKind::ExternCodeOnCpu;
        d.message = format_diag(DiagKind::ExternCodeOnCpu, {static_cast<const ir::StringImmNode&>(*c.args[0]).value});
    }
    d.file = p.file;
    d.span = c.span;
    throw RunError{std::move(d)};
}

}  // namespace tp::interp
