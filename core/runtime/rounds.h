// Our kernel and its peers timed in alternating rounds. Each round times every peer a few
// times (its order reversed every other round, so no peer always runs right after another);
// a peer's ratio is the median over rounds of (its round median / ours in that round). Clock
// and thermal drift between rounds then hits both sides of each ratio alike, which a ratio of
// two overall medians taken minutes apart does not give. The peers may live in other
// processes (the torch worker): a peer is only a function that returns n timed samples.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/timing.h"

namespace tp::runtime {

struct RoundPeer {
    std::string name;
    // n samples in milliseconds; throws (CudaError, std::runtime_error) when it cannot.
    std::function<std::vector<double>(int n)> sample;
};

struct RatioStats {
    int rounds = 0;
    double median = 0, min = 0, max = 0;
    double spread_pct = 0;  // (p90 - p10) / median of the per-round ratios, percent
    std::vector<double> per_round;
};

struct RoundsResult {
    std::vector<TimingStats> stats;   // every sample of each peer, in peer order
    std::vector<RatioStats> vs_first; // peer i's time over peer 0's, per round; [0] is 1
};

// Splits `iters` samples into rounds: at most `max_rounds`, at least one sample each.
struct RoundPlan {
    int rounds = 1, per_round = 1;
};
RoundPlan plan_rounds(int iters, int max_rounds = 10);

// Times the peers in `plan.rounds` rounds of `plan.per_round` samples each. Peer 0 is ours.
// `progress(round, rounds)` after each round.
RoundsResult time_in_rounds(const std::vector<RoundPeer>& peers, const RoundPlan& plan,
                            const std::function<void(int, int)>& progress = {});

// The median, extremes and spread of a set of per-round ratios.
RatioStats summarize_ratios(std::vector<double> per_round);

}  // namespace tp::runtime
