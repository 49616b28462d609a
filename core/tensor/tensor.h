// HostTensor: a dense row-major array in host memory (dtype, shape, raw bytes) used for kernel
// arguments on the CPU interpreter, the GPU runtime's host side, .npy files and checking.
// Elements are read and written as double; stores round to the dtype (fp16/bf16/fp8 with
// round-to-nearest-even, integers wrap like a C cast). Included by public headers, so it
// reaches ir/dtype.h through a relative path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../ir/dtype.h"

namespace tp {

// Bit-level conversions between double and the small float formats. fp16/bf16 overflow to
// inf (like __float2half_rn); fp8 saturates to the largest finite value (like CUDA's
// __NV_SATFINITE conversions that TileLang's fp8 casts use). e4m3 is the "fn" variant (no inf).
uint16_t double_to_half_bits(double v);
double half_bits_to_double(uint16_t b);
uint16_t double_to_bf16_bits(double v);
double bf16_bits_to_double(uint16_t b);
uint8_t double_to_fp8_e4m3_bits(double v);
double fp8_e4m3_bits_to_double(uint8_t b);
uint8_t double_to_fp8_e5m2_bits(double v);
double fp8_e5m2_bits_to_double(uint8_t b);

// The value `v` becomes once stored in `t` and read back (rounding, int wrap, bool 0/1).
double round_to_dtype(double v, ir::DataType t);

// Element size in bytes of a scalar dtype (bool is one byte).
inline size_t dtype_size(ir::DataType t) { return static_cast<size_t>(t.bytes()); }

// Elements and bytes of a dense tensor of that shape, or nullopt when a dim is negative or
// the count overflows 63 bits. Every size that comes from a user (a shape, a .npy header) is
// checked with this before anything is allocated.
std::optional<int64_t> checked_numel(const std::vector<int64_t>& shape);
std::optional<int64_t> checked_nbytes(ir::DataType t, const std::vector<int64_t>& shape);

struct HostTensor {
    ir::DataType dtype = ir::DataType::float32();
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;  // numel() * dtype_size(dtype), row-major

    HostTensor() = default;
    // Zero-filled tensor of the given dtype and shape; std::length_error when checked_nbytes
    // refuses the shape (a wrapped count would allocate less than the kernel writes).
    HostTensor(ir::DataType t, std::vector<int64_t> s);

    int64_t numel() const;
    size_t nbytes() const { return bytes.size(); }
    uint8_t* data() { return bytes.data(); }
    const uint8_t* data() const { return bytes.data(); }

    // Flat (row-major) element access as double.
    double get(int64_t flat) const;
    void set(int64_t flat, double v);  // rounds to dtype
    // Multi-index access; the index count must equal shape.size().
    double at(const std::vector<int64_t>& idx) const;
    int64_t flat_index(const std::vector<int64_t>& idx) const;

    std::vector<double> to_doubles() const;
    void from_doubles(const std::vector<double>& v);  // size must equal numel()

    // Seeded fill: floats ~ N(0, 1) (rounded to dtype), signed ints in [-4, 4], unsigned in
    // [0, 8], bool 0/1. The same seed gives the same values on every machine.
    void fill_random(uint64_t seed);

    // Converts to another dtype element by element (value-preserving up to rounding).
    HostTensor converted(ir::DataType t) const;

    // "float16[256, 128]"
    std::string describe() const;
};

// Relative Frobenius error ||out - ref|| / ||ref|| and max |out - ref| over all elements, or
// only where mask[i] != 0 when a mask (numel bytes) is given. NaN/inf mismatches count as
// failures. tol comes from default_tolerance(out.dtype) unless set.
struct CompareResult {
    double rel_fro = 0;
    double max_abs = 0;
    double tol = 0;
    int64_t compared = 0;     // elements compared
    int64_t nonfinite = 0;    // elements where out is NaN/inf but ref is finite (or vice versa)
    int64_t both_nan = 0;     // elements NaN in both: the same non-number, counted as agreeing
    int64_t worst_index = -1; // flat index of the max abs error
    bool pass = false;
    bool shape_mismatch = false;
};

// fp16 1e-2, bf16 2e-2, fp8 1.25e-1, fp32 1e-4, fp64 1e-10, ints 0 (exact).
double default_tolerance(ir::DataType t);

CompareResult compare_tensors(const HostTensor& out, const HostTensor& ref, double tol = -1,
                              const std::vector<uint8_t>* mask = nullptr);

// Formats a number the way reports print it: "1.2e-04".
std::string format_sci(double v);

}  // namespace tp
