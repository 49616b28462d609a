// C entry points the generated code calls for T.print and fp8 conversions
// (value_helpers.cpp); jit_api.cpp registers them with the JIT by address. A dtype crosses as
// (code << 16 | bits) of ir::DataType.
#pragma once

#include <cstdint>

// Appends the interpreter's T.print line(s) to the block's text (State::prints).
extern "C" void tp_jit_print_scalar(void* state, const char* msg, int64_t dtype, double value, int64_t bx, int64_t by, int64_t bz);
extern "C" void tp_jit_print_buffer(void* state, const char* msg, const char* name, int64_t dtype, const uint8_t* data, int64_t n,
                                    const int64_t* block);
// A double rounded to fp8 (code: ir::DataType::Float8E4M3 or Float8E5M2), and its bits.
extern "C" double tp_jit_fp8_round(double v, int32_t code);
extern "C" int32_t tp_jit_fp8_bits(double v, int32_t code);
