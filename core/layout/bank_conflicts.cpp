// Wavefront counting for one warp request (the rule is in bank_conflicts.h).
#include "layout/bank_conflicts.h"

#include <algorithm>
#include <set>

namespace tp::layout {

RequestCost request_cost(const std::vector<LaneAddress>& lanes, int bytes_per_lane) {
    const int bytes = std::max(1, bytes_per_lane);
    const int phase_lanes = bytes <= 4 ? 32 : std::max(1, 128 / bytes);
    RequestCost cost;
    for (int phase = 0; phase * phase_lanes < 32; ++phase) {
        std::set<int64_t> words[32];
        bool active = false;
        for (const auto& l : lanes) {
            if (l.lane / phase_lanes != phase) continue;
            active = true;
            for (int64_t w = l.byte / 4; w <= (l.byte + bytes - 1) / 4; ++w) words[w % 32].insert(w);
        }
        if (!active) continue;
        int worst = 1;
        for (const auto& s : words) worst = std::max(worst, int(s.size()));
        cost.degree = std::max(cost.degree, worst);
        cost.wavefronts += worst;
        cost.ideal += 1;
    }
    return cost;
}

}  // namespace tp::layout
