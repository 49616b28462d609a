// `tilec inspect --pipeline FILE`: the pipeline view of each T.Pipelined loop
// (tileplay/pipeline_view.h) as text (roles, their events per phase, where they wait) or JSON.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tilec {

struct PipelineArgs {
    std::string file, kernel, target;
    std::vector<std::pair<std::string, std::string>> defines;
    bool json = false;
    bool all = false;  // also the scalar bookkeeping (ring slot and phase counters)
};

int run_inspect_pipeline(const PipelineArgs& a, const std::string& source);

}  // namespace tilec
