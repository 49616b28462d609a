// Scalar data types of Tile IR, with TileLang's names ("float16", "bfloat16", ...) and the
// CUDA C++ spellings the code generator uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tp::ir {

struct DataType {
    enum Code : uint8_t { Int, UInt, Float, BFloat, Bool, Float8E4M3, Float8E5M2, Handle, Void };
    Code code = Void;
    uint8_t bits = 0;
    uint16_t lanes = 1;

    constexpr DataType() = default;
    constexpr DataType(Code c, uint8_t b, uint16_t l = 1) : code(c), bits(b), lanes(l) {}

    static constexpr DataType int32() { return {Int, 32}; }
    static constexpr DataType int64() { return {Int, 64}; }
    static constexpr DataType float16() { return {Float, 16}; }
    static constexpr DataType bfloat16() { return {BFloat, 16}; }
    static constexpr DataType float32() { return {Float, 32}; }
    static constexpr DataType float64() { return {Float, 64}; }
    static constexpr DataType boolean() { return {Bool, 1}; }
    static constexpr DataType void_() { return {Void, 0}; }

    bool is_int() const { return code == Int || code == UInt; }
    bool is_float() const { return code == Float || code == BFloat || code == Float8E4M3 || code == Float8E5M2; }
    bool is_bool() const { return code == Bool; }
    bool is_void() const { return code == Void; }
    int bytes() const { return code == Bool ? 1 : (bits * lanes + 7) / 8; }
    DataType with_lanes(uint16_t l) const { return {code, bits, l}; }

    // "float16", "bfloat16", "float32", "int32", "uint8", "bool", "float8_e4m3", ...
    std::string name() const;
    // CUDA C++ type: "half_t", "bfloat16_t", "float", "int", ... (see the runtime headers)
    std::string cuda_name() const;
    // The name T.print shows (TileLang's debug printer): "float", "half_t", "uint", "fp8_e4_t"...
    // The CPU interpreter and the CUDA printf share it so both print the same lines.
    std::string print_name() const;
    // Parses TileLang/numpy/torch spellings: "float16", "fp16", "half", "float", "bf16", "e4m3_float8"...
    static std::optional<DataType> parse(const std::string& s);

    friend bool operator==(const DataType&, const DataType&) = default;
};

}  // namespace tp::ir
