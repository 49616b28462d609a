// Helpers the GPU test files share: where the samples are, a worker load of a sample with its
// header's GPU problem size, and whether the worker's device is a Hopper (sm_90) GPU.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tileplay/sample_header.h"
#include "tileplay/worker_client.h"

namespace gpu_test {

// The source tree: $TILEPLAY_SOURCE_DIR on the GPU machine (the build was made elsewhere).
inline std::string source_dir() {
    const char* env = std::getenv("TILEPLAY_SOURCE_DIR");
    return env && *env ? env : TILEPLAY_SOURCE_DIR;
}

// samples/<name> with `defines`; parameters they leave out come from the header's args line.
inline tp::LoadSpec sample(const std::string& name, std::vector<std::pair<std::string, std::string>> defines = {}) {
    tp::LoadSpec s;
    s.path = source_dir() + "/samples/" + name;
    s.defines = std::move(defines);
    std::ifstream in(s.path);
    std::stringstream text;
    text << in.rdbuf();
    s.fallback_defines = tp::parse_sample_header(text.str()).args;
    return s;
}

// The worker's device is a Hopper GPU ("arch" sm_90; its auto "target" is sm_90a).
inline bool on_hopper(tp::WorkerClient& c) {
    auto h = c.hello();
    if (!h.ok || !h.body.contains("device") || !h.body["device"].is_object()) return false;
    return h.body["device"].value("arch", h.body["device"].value("target", std::string())) == "sm_90";
}

}  // namespace gpu_test
