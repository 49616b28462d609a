// C entry points the generated code calls for the element-by-element slow path of T.copy and
// T.fill (region_helpers.cpp); jit_api.cpp registers them with the JIT by address.
//
// A buffer descriptor is i64[4 + 2 * kRegionMaxRank]: dtype code, bits, global (0/1), rank,
// the shape, the region's mins. A map is i64[1 + 3 * kRegionMaxRank]: the number of paired
// dims, their extents, and for each the src and dst dim it walks (-1: none).
#pragma once

#include <cstdint>

namespace tp::jit {
constexpr int64_t kRegionMaxRank = 8;
}

// Return 1 on a fault (an element outside a buffer that is not global), else 0.
extern "C" int32_t tp_jit_copy_region(const uint8_t* src, const int64_t* sdesc, uint8_t* dst, const int64_t* ddesc, const int64_t* map,
                                      uint8_t* written);
// The same with extents known only at run time (i64[rank] each side), paired here.
extern "C" int32_t tp_jit_copy_dynamic(const uint8_t* src, const int64_t* sdesc, const int64_t* sext, uint8_t* dst, const int64_t* ddesc,
                                       const int64_t* dext, uint8_t* written);
extern "C" int32_t tp_jit_fill_region(uint8_t* dst, const int64_t* ddesc, const int64_t* map, double value, uint8_t* written);
