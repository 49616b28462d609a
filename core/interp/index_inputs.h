// Index inputs: the values a run gives integer tensors that the kernel uses as positions in
// other tensors (cu_seqlens offsets, top-k and block index tables), so that random inputs do
// not send a correct kernel out of bounds. allocate_args (core/interp/run.cpp) asks this before
// it fills the inputs; every run (interpreter, GPU, the GPU check) goes through it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tp::interp {

// How one integer tensor parameter is filled.
struct IndexFill {
    enum class Kind { Offsets, Positions, Lengths };
    Kind kind = Kind::Positions;
    // Offsets: a 1-D table read at `i` and `i + 1` as the bounds of a range: filled with evenly
    // spaced offsets 0 ... total (every segment total / (n - 1) long, give or take one).
    // Positions: values in [0, bound).
    // Lengths: a table only compared against positions (`pos >= cache_seqlens[b]`): every value
    // is total, one past the largest position the other tables give, so the mask never hides a
    // block they select. Random lengths would mask whole blocks the (independently drawn) block
    // tables select, and a softmax over a fully masked row is NaN: inputs the files' own
    // generators never make. The masks' arithmetic still runs, on lengths that keep every key.
    int64_t total = 0;
    int64_t bound = 0;
    std::string why;  // the tensor dimension the values index, for the run's notes
};

struct IndexPlan {
    std::map<size_t, IndexFill> fills;       // by parameter position
    std::map<std::string, int64_t> scalars;  // unset scalar grid sizes: the longest segment
    std::vector<std::string> notes;          // one line per choice, for the run's report
};

// The plan for `f` given each parameter's shape (arg_shapes) and the scalars already set.
IndexPlan plan_index_inputs(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes, const std::map<std::string, int64_t>& symbols);

// The values of an IndexFill for a tensor of `numel` elements (seeded, the same on every machine).
std::vector<double> index_fill_values(const IndexFill& fill, int64_t numel, uint64_t seed);

}  // namespace tp::interp
