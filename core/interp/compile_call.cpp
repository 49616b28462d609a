// Intrinsic calls (ir/intrinsics.h) in the interpreter: math in double, rounded to the call's
// dtype like the GPU's half/float overloads; T.infinity / max_value / min_value per dtype.
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
        case DataType::Float: return t.bits == 16 ? 65504.0 : t.bits == 32 ? FLT_MAX : DBL_MAX;
        case DataType::BFloat: return bf16_bits_to_double(0x7F7F);
        case DataType::Float8E4M3: return 448.0;
        case DataType::Float8E5M2: return 57344.0;
        case DataType::Int: return std::ldexp(1.0, t.bits - 1) - 1;
        case DataType::UInt: return std::ldexp(1.0, t.bits) - 1;
        case DataType::Bool: return 1;
        default: return 0;
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

struct ConstCall : CExpr {
    double v;
    double f(Frame&) const override { return v; }
    int64_t i(Frame&) const override { return std::isfinite(v) ? static_cast<int64_t>(v) : 0; }
};

}  // namespace

CExprP compile_call(Program& p, const ir::CallNode& c, std::vector<CExprP> args) {
    const std::string& op = c.op;
    if (op == "infinity" || op == "max_value" || op == "min_value") {
        auto n = std::make_unique<ConstCall>();
        if (op == "infinity") n->v = c.dtype.is_float() ? std::numeric_limits<double>::infinity() : dtype_max(c.dtype);
        else n->v = op == "max_value" ? dtype_max(c.dtype) : dtype_min(c.dtype);
        return n;
    }
    if (op == "__syncthreads") {  // the block runs as one program here: earlier writes are already visible
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
    d.file = p.file;
    d.span = c.span;
    throw RunError{std::move(d)};
}

}  // namespace tp::interp
