// DataType names: TileLang's spelling (what users write and the printer shows), the CUDA C++
// spelling (what the code generator emits; half_t etc. come from runtime/tp_types.cuh) and a
// parser that accepts the numpy / torch / TileLang aliases found in real kernels.
#include "ir/dtype.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace tp::ir {

std::string DataType::name() const {
    std::string base;
    switch (code) {
        case Int: base = "int" + std::to_string(bits); break;
        case UInt: base = "uint" + std::to_string(bits); break;
        case Float: base = "float" + std::to_string(bits); break;
        case BFloat: base = "bfloat16"; break;
        case Bool: base = "bool"; break;
        case Float8E4M3: base = "float8_e4m3"; break;
        case Float8E5M2: base = "float8_e5m2"; break;
        case Handle: base = "handle"; break;
        case Void: base = "void"; break;
    }
    if (lanes > 1) base.append("x").append(std::to_string(lanes));
    return base;
}

namespace {

std::string scalar_cuda_name(DataType t) {
    switch (t.code) {
        case DataType::Int:
            switch (t.bits) {
                case 8: return "signed char";
                case 16: return "short";
                case 32: return "int";
                case 64: return "long long";
            }
            break;
        case DataType::UInt:
            switch (t.bits) {
                case 8: return "unsigned char";
                case 16: return "unsigned short";
                case 32: return "unsigned int";
                case 64: return "unsigned long long";
            }
            break;
        case DataType::Float:
            switch (t.bits) {
                case 16: return "half_t";
                case 32: return "float";
                case 64: return "double";
            }
            break;
        case DataType::BFloat: return "bfloat16_t";
        case DataType::Bool: return "bool";
        case DataType::Float8E4M3: return "fp8_e4_t";
        case DataType::Float8E5M2: return "fp8_e5_t";
        case DataType::Handle: return "void*";
        case DataType::Void: return "void";
    }
    return std::string("<").append(t.name()).append(">");
}

}  // namespace

std::string DataType::cuda_name() const {
    std::string s = scalar_cuda_name(DataType(code, bits));
    if (lanes == 1) return s;
    // Vector types used for vectorized global access: CUDA's built-in float2/float4/int4...
    if (code == Float && bits == 32 && (lanes == 2 || lanes == 4)) return "float" + std::to_string(lanes);
    if (code == Int && bits == 32 && (lanes == 2 || lanes == 4)) return "int" + std::to_string(lanes);
    if (code == Float && bits == 16 && lanes == 2) return "half2";
    if (code == BFloat && lanes == 2) return "nv_bfloat162";
    return s + "x" + std::to_string(lanes);
}

std::optional<DataType> DataType::parse(const std::string& raw) {
    std::string s;
    for (char c : raw) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Accept "torch.float16", "T.float16", "tl.float16" and quoted names.
    for (const char* prefix : {"torch.", "t.", "tl.", "np.", "numpy.", "tilelang."})
        if (s.rfind(prefix, 0) == 0) s = s.substr(std::string(prefix).size());
    static const std::unordered_map<std::string, DataType> table = {
        {"float16", DataType(Float, 16)}, {"fp16", DataType(Float, 16)}, {"half", DataType(Float, 16)},
        {"f16", DataType(Float, 16)},
        {"float32", DataType(Float, 32)}, {"fp32", DataType(Float, 32)}, {"float", DataType(Float, 32)},
        {"f32", DataType(Float, 32)},
        // TileLang's tf32 is float32 storage that only Tensor-Core multiplies round to 10
        // mantissa bits; here it is float32 (our fp32 T.gemm multiplies in full precision).
        {"tfloat32", DataType(Float, 32)}, {"tf32", DataType(Float, 32)},
        {"float64", DataType(Float, 64)}, {"fp64", DataType(Float, 64)}, {"double", DataType(Float, 64)},
        {"f64", DataType(Float, 64)},
        {"bfloat16", DataType(BFloat, 16)}, {"bf16", DataType(BFloat, 16)},
        {"int8", DataType(Int, 8)}, {"int16", DataType(Int, 16)}, {"int32", DataType(Int, 32)},
        {"int", DataType(Int, 32)}, {"int64", DataType(Int, 64)}, {"long", DataType(Int, 64)},
        {"uint8", DataType(UInt, 8)}, {"uint16", DataType(UInt, 16)}, {"uint32", DataType(UInt, 32)},
        {"uint64", DataType(UInt, 64)}, {"uint", DataType(UInt, 32)}, {"ulong", DataType(UInt, 64)},
        {"short", DataType(Int, 16)}, {"ushort", DataType(UInt, 16)},
        {"int4", DataType(Int, 4)}, {"uint4", DataType(UInt, 4)},
        {"bool", DataType(Bool, 1)}, {"boolean", DataType(Bool, 1)},
        {"float8_e4m3", DataType(Float8E4M3, 8)}, {"float8_e4m3fn", DataType(Float8E4M3, 8)},
        {"e4m3_float8", DataType(Float8E4M3, 8)}, {"fp8_e4m3", DataType(Float8E4M3, 8)},
        {"float8_e5m2", DataType(Float8E5M2, 8)}, {"e5m2_float8", DataType(Float8E5M2, 8)},
        {"fp8_e5m2", DataType(Float8E5M2, 8)},
        {"handle", DataType(Handle, 64)}, {"void", DataType()},
    };
    auto it = table.find(s);
    if (it != table.end()) return it->second;
    return std::nullopt;
}

std::string DataType::print_name() const {
    if (is_bool()) return "bool";
    if (code == Float8E4M3) return "fp8_e4_t";
    if (code == Float8E5M2) return "fp8_e5_t";
    std::string n = cuda_name();
    return n == "unsigned int" ? "uint" : n;
}

}  // namespace tp::ir
