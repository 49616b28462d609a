// The T.print and fp8 helpers of the generated code (value_helpers.h): the interpreter's own
// formatting and conversion routines, so the JIT's output and bits are the interpreter's.
#include "jit/value_helpers.h"

#include <cstring>
#include <string>

#include "interp/cpu_backend.h"
#include "jit/emit.h"
#include "tensor/tensor.h"

namespace {

tp::ir::DataType dtype_of(int64_t packed) {
    return tp::ir::DataType(static_cast<tp::ir::DataType::Code>(packed >> 16), static_cast<uint8_t>(packed & 0xFFFF));
}

double element(const uint8_t* p, tp::ir::DataType t, int64_t i) {
    using C = tp::ir::DataType;
    const uint8_t* e = p + i * t.bytes();
    auto u = [&](auto v) {
        std::memcpy(&v, e, sizeof v);
        return v;
    };
    switch (t.code) {
        case C::Float:
            if (t.bits == 16) return tp::half_bits_to_double(u(uint16_t{}));
            return t.bits == 32 ? static_cast<double>(u(float{})) : u(double{});
        case C::BFloat:
            return tp::bf16_bits_to_double(u(uint16_t{}));
        case C::Float8E4M3:
            return tp::fp8_e4m3_bits_to_double(*e);
        case C::Float8E5M2:
            return tp::fp8_e5m2_bits_to_double(*e);
        case C::Bool:
            return *e != 0 ? 1.0 : 0.0;
        case C::Int:
            if (t.bits == 8) return u(int8_t{});
            if (t.bits == 16) return u(int16_t{});
            if (t.bits == 32) return u(int32_t{});
            return static_cast<double>(u(int64_t{}));
        default:
            if (t.bits == 8) return u(uint8_t{});
            if (t.bits == 16) return u(uint16_t{});
            if (t.bits == 32) return u(uint32_t{});
            return static_cast<double>(u(uint64_t{}));
    }
}

std::string* prints_of(void* state) { return static_cast<tp::jit::State*>(state)->prints; }

}  // namespace

extern "C" void tp_jit_print_scalar(void* state, const char* msg, int64_t dtype, double value, int64_t bx, int64_t by, int64_t bz) {
    std::string* out = prints_of(state);
    if (!out) return;
    const tp::ir::DataType t = dtype_of(dtype);
    const int64_t block[3] = {bx, by, bz};
    *out += tp::interp::print_line_prefix(block, msg) + ": dtype=" + t.print_name() + " value=" + tp::interp::print_value(value, t) + "\n";
}

extern "C" void tp_jit_print_buffer(void* state, const char* msg, const char* name, int64_t dtype, const uint8_t* data, int64_t n,
                                    const int64_t* block) {
    std::string* out = prints_of(state);
    if (!out) return;
    const tp::ir::DataType t = dtype_of(dtype);
    const std::string prefix = tp::interp::print_line_prefix(block, msg) + ": buffer=" + name + ", index=";
    const std::string dt = ", dtype=" + t.print_name() + " value=";
    for (int64_t i = 0; i < n; ++i) *out += prefix + std::to_string(i) + dt + tp::interp::print_value(element(data, t, i), t) + "\n";
}

extern "C" double tp_jit_fp8_round(double v, int32_t code) {
    if (code == tp::ir::DataType::Float8E4M3) return tp::fp8_e4m3_bits_to_double(tp::double_to_fp8_e4m3_bits(v));
    return tp::fp8_e5m2_bits_to_double(tp::double_to_fp8_e5m2_bits(v));
}

extern "C" int32_t tp_jit_fp8_bits(double v, int32_t code) {
    return code == tp::ir::DataType::Float8E4M3 ? tp::double_to_fp8_e4m3_bits(v) : tp::double_to_fp8_e5m2_bits(v);
}
