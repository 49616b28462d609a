// `tilec doctor`: what this machine can do. One line per item, `ok` or `missing` with the fix:
// GPU (name, compute capability, SMs, memory), driver and toolkit versions, NVRTC, cuBLAS,
// nvdisasm, python3 with torch and its CUDA. Exits 0 even without a GPU: that is a report.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "tileplay/doctor.h"

namespace tilec {

void add_doctor_command(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand("doctor", "Check the GPU, driver, toolkit, NVRTC, cuBLAS and PyTorch");
    auto json = std::make_shared<bool>(false);
    auto no_torch = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "print the report as JSON");
    cmd->add_flag("--no-torch", *no_torch, "skip the python3/torch probe (it can take seconds)");
    cmd->callback([&exit_code, json, no_torch] {
        std::vector<tp::DoctorLine> lines = tp::doctor_report(!*no_torch);
        if (*json) {
            nlohmann::json j = nlohmann::json::array();
            for (const auto& l : lines) j.push_back({{"item", l.item}, {"ok", l.ok}, {"text", l.text}});
            std::printf("%s\n", j.dump(2).c_str());
        } else {
            for (const auto& l : lines)
                std::printf("%-9s %-7s %s\n", l.item.c_str(), l.ok ? "ok" : "missing", l.text.c_str());
        }
        exit_code = kOk;
    });
}

}  // namespace tilec
