// The slow paths of T.copy and T.fill as ordinary C++ the generated code calls: a region that
// crosses its buffer's edge is walked element by element with the interpreter's rules (global
// elements outside the tensor read as 0 and are not written; any other is a fault), so the
// JIT compiles only the fast path of each op. Values go through double and the core's own
// conversions, as in the interpreter.
#include <cstdint>
#include <cstring>
#include <vector>

#include "jit/emit.h"

#include "jit/region_helpers.h"
#include "tensor/tensor.h"

namespace tp::jit {

namespace {

using ir::DataType;

DataType dtype_of(const int64_t* desc) { return DataType(static_cast<DataType::Code>(desc[0]), static_cast<uint8_t>(desc[1])); }

template <class T>
T load_as(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class T>
void store_as(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
}

double get(const uint8_t* base, DataType t, int64_t i) {
    const uint8_t* p = base + i * t.bytes();
    switch (t.code) {
        case DataType::Float:
            if (t.bits == 16) return half_bits_to_double(load_as<uint16_t>(p));
            if (t.bits == 32) return load_as<float>(p);
            return load_as<double>(p);
        case DataType::BFloat:
            return bf16_bits_to_double(load_as<uint16_t>(p));
        case DataType::Int:
            switch (t.bits) {
                case 8:
                    return load_as<int8_t>(p);
                case 16:
                    return load_as<int16_t>(p);
                case 32:
                    return load_as<int32_t>(p);
                default:
                    return static_cast<double>(load_as<int64_t>(p));
            }
        case DataType::UInt:
            switch (t.bits) {
                case 8:
                    return *p;
                case 16:
                    return load_as<uint16_t>(p);
                case 32:
                    return load_as<uint32_t>(p);
                default:
                    return static_cast<double>(load_as<uint64_t>(p));
            }
        case DataType::Bool:
            return *p ? 1.0 : 0.0;
        case DataType::Float8E4M3:
            return fp8_e4m3_bits_to_double(*p);
        case DataType::Float8E5M2:
            return fp8_e5m2_bits_to_double(*p);
        default:
            return 0.0;
    }
}

void set(uint8_t* base, DataType t, int64_t i, double v) {
    uint8_t* p = base + i * t.bytes();
    switch (t.code) {
        case DataType::Float:
            if (t.bits == 16) return store_as<uint16_t>(p, double_to_half_bits(v));
            if (t.bits == 32) return store_as<float>(p, static_cast<float>(v));
            return store_as<double>(p, v);
        case DataType::BFloat:
            return store_as<uint16_t>(p, double_to_bf16_bits(v));
        case DataType::Bool:
            *p = v != 0 ? 1 : 0;
            return;
        case DataType::Float8E4M3:
            *p = double_to_fp8_e4m3_bits(v);
            return;
        case DataType::Float8E5M2:
            *p = double_to_fp8_e5m2_bits(v);
            return;
        default: {
            const auto w = static_cast<int64_t>(round_to_dtype(v, t));
            switch (t.bits) {
                case 8:
                    return store_as<uint8_t>(p, static_cast<uint8_t>(w));
                case 16:
                    return store_as<uint16_t>(p, static_cast<uint16_t>(w));
                case 32:
                    return store_as<uint32_t>(p, static_cast<uint32_t>(w));
                default:
                    return store_as<int64_t>(p, w);
            }
        }
    }
}

// Flat index of `idx` when every coordinate is inside `shape`, else -1 (flat_or_neg).
int64_t flat_or_neg(const int64_t* shape, int64_t rank, const int64_t* idx) {
    int64_t f = 0;
    for (int64_t d = 0; d < rank; ++d) {
        if (idx[d] < 0 || idx[d] >= shape[d]) return -1;
        f = f * shape[d] + idx[d];
    }
    return f;
}

// Walks the paired iteration space of `map` row-major (regions.h's for_each_pair).
template <class Fn>
void for_each(const int64_t* map, const int64_t* smin, int64_t srank, const int64_t* dmin, int64_t drank, Fn&& fn) {
    const int64_t n = map[0];
    const int64_t *ext = map + 1, *sdim = map + 1 + kRegionMaxRank, *ddim = map + 1 + 2 * kRegionMaxRank;
    int64_t si[kRegionMaxRank], di[kRegionMaxRank], k[kRegionMaxRank] = {};
    for (int64_t x = 0; x < srank; ++x) si[x] = smin[x];
    for (int64_t x = 0; x < drank; ++x) di[x] = dmin[x];
    for (int64_t x = 0; x < n; ++x)
        if (ext[x] <= 0) return;
    while (true) {
        if (!fn(si, di)) return;
        int64_t x = n - 1;
        for (; x >= 0; --x) {
            if (++k[x] < ext[x]) {
                if (sdim[x] >= 0) ++si[sdim[x]];
                if (ddim[x] >= 0) ++di[ddim[x]];
                break;
            }
            k[x] = 0;
            if (sdim[x] >= 0) si[sdim[x]] = smin[sdim[x]];
            if (ddim[x] >= 0) di[ddim[x]] = dmin[ddim[x]];
        }
        if (x < 0) return;
    }
}

}  // namespace

}  // namespace tp::jit

using namespace tp::jit;

extern "C" int32_t tp_jit_copy_region(const uint8_t* src, const int64_t* sdesc, uint8_t* dst, const int64_t* ddesc, const int64_t* map,
                                      uint8_t* written) {
    const DataType st = dtype_of(sdesc), dt = dtype_of(ddesc);
    const bool sglobal = sdesc[2] != 0, dglobal = ddesc[2] != 0;
    const int64_t *sshape = sdesc + 4, *smin = sdesc + 4 + kRegionMaxRank, *dshape = ddesc + 4, *dmin = ddesc + 4 + kRegionMaxRank;
    int32_t fault = 0;
    for_each(map, smin, sdesc[3], dmin, ddesc[3], [&](const int64_t* si, const int64_t* di) {
        const int64_t sf = flat_or_neg(sshape, sdesc[3], si);
        if (sf < 0 && !sglobal) return !(fault = 1);
        const double x = sf >= 0 ? get(src, st, sf) : 0.0;
        const int64_t df = flat_or_neg(dshape, ddesc[3], di);
        if (df < 0 && !dglobal) return !(fault = 1);
        if (df >= 0) {
            set(dst, dt, df, x);
            if (written) written[df] = 1;
        }
        return true;
    });
    return fault;
}

// A copy whose extents are known only at run time: the regions are paired here, as the
// interpreter's map_regions does (a pairing that fails is a fault: the interpreter's re-run
// reports the shape mismatch), then walked as above.
extern "C" int32_t tp_jit_copy_dynamic(const uint8_t* src, const int64_t* sdesc, const int64_t* sext, uint8_t* dst, const int64_t* ddesc,
                                       const int64_t* dext, uint8_t* written) {
    std::vector<int64_t> se(sext, sext + sdesc[3]), de(dext, dext + ddesc[3]);
    std::vector<int> sn, dn;
    if (!pair_region_dims(se, de, sn, dn)) return 1;
    int64_t map[1 + 3 * kRegionMaxRank] = {};
    map[0] = static_cast<int64_t>(sn.size());
    for (size_t x = 0; x < sn.size(); ++x) {
        map[1 + x] = se[static_cast<size_t>(sn[x])];
        map[1 + kRegionMaxRank + x] = sn[x];
        map[1 + 2 * kRegionMaxRank + x] = dn[x];
    }
    return tp_jit_copy_region(src, sdesc, dst, ddesc, map, written);
}

extern "C" int32_t tp_jit_fill_region(uint8_t* dst, const int64_t* ddesc, const int64_t* map, double value, uint8_t* written) {
    const DataType dt = dtype_of(ddesc);
    const bool dglobal = ddesc[2] != 0;
    const int64_t *dshape = ddesc + 4, *dmin = ddesc + 4 + kRegionMaxRank;
    int32_t fault = 0;
    for_each(map, dmin, ddesc[3], dmin, ddesc[3], [&](const int64_t*, const int64_t* di) {
        const int64_t df = flat_or_neg(dshape, ddesc[3], di);
        if (df < 0 && !dglobal) return !(fault = 1);
        if (df >= 0) {
            set(dst, dt, df, value);
            if (written) written[df] = 1;
        }
        return true;
    });
    return fault;
}
