// Alternating rounds of peers and per-round ratios; see rounds.h.
#include "runtime/rounds.h"

#include <algorithm>

namespace tp::runtime {

RoundPlan plan_rounds(int iters, int max_rounds) {
    RoundPlan p;
    iters = std::max(1, iters);
    p.rounds = std::clamp(iters, 1, std::max(1, max_rounds));
    p.per_round = (iters + p.rounds - 1) / p.rounds;
    return p;
}

RatioStats summarize_ratios(std::vector<double> per_round) {
    RatioStats r;
    r.per_round = per_round;
    r.rounds = static_cast<int>(per_round.size());
    if (per_round.empty()) return r;
    TimingStats s = summarize_times(std::move(per_round));  // same quantiles as the times
    r.median = s.median_ms;
    r.min = s.min_ms;
    r.max = s.max_ms;
    r.spread_pct = s.spread_pct;
    return r;
}

RoundsResult time_in_rounds(const std::vector<RoundPeer>& peers, const RoundPlan& plan,
                            const std::function<void(int, int)>& progress) {
    RoundsResult out;
    const size_t n = peers.size();
    std::vector<std::vector<double>> all(n);
    std::vector<std::vector<double>> ratios(n);
    for (int round = 0; round < plan.rounds; ++round) {
        std::vector<double> med(n, 0);
        for (size_t k = 0; k < n; ++k) {
            size_t i = round % 2 == 0 ? k : n - 1 - k;
            std::vector<double> s = peers[i].sample(plan.per_round);
            all[i].insert(all[i].end(), s.begin(), s.end());
            med[i] = summarize_times(std::move(s)).median_ms;
        }
        for (size_t i = 0; i < n; ++i)
            if (med[0] > 0 && med[i] > 0) ratios[i].push_back(med[i] / med[0]);
        if (progress) progress(round + 1, plan.rounds);
    }
    for (size_t i = 0; i < n; ++i) {
        out.stats.push_back(summarize_times(std::move(all[i])));
        out.vs_first.push_back(summarize_ratios(std::move(ratios[i])));
    }
    return out;
}

}  // namespace tp::runtime
