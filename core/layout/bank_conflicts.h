// Shared-memory bank conflicts of one warp-wide instruction, the rule the layout model counts:
//   - 32 banks of 4 bytes; byte address a is in bank (a / 4) % 32.
//   - The hardware serves a warp's request in phases of at most 128 bytes: accesses of 4 bytes
//     or less take one phase of 32 lanes, 8-byte accesses two phases of 16 lanes, 16-byte
//     accesses (cp.async 16, ld/st.shared.v4, and ldmatrix, whose 8 lanes of one 8x8 matrix
//     give 16-byte rows) four phases of 8 lanes.
//   - In a phase, lanes reading the same 4-byte word are served together (broadcast); distinct
//     words in one bank are served one after another. A phase therefore takes as many
//     wavefronts as the most distinct words any bank holds for it.
//   - The degree of a request is its worst phase's wavefronts: 1 is conflict free, 32 is one
//     bank hit by 32 different words. Wavefronts of the request: the sum over its phases; the
//     ideal is one per phase that has an active lane.
#pragma once

#include <cstdint>
#include <vector>

namespace tp::layout {

struct LaneAddress {
    int lane = 0;      // 0..31
    int64_t byte = 0;  // shared-memory byte address
};

struct RequestCost {
    int degree = 0;  // 0 when no lane is active
    int wavefronts = 0;
    int ideal = 0;
};

RequestCost request_cost(const std::vector<LaneAddress>& lanes, int bytes_per_lane);

}  // namespace tp::layout
