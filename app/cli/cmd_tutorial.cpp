// `tilec tutorial [--device cpu|gpu|auto]`: runs every section of the tutorial in order, each in
// its own child process with a timeout, prints a status table (section, status, time, key
// figure) as the sections finish, writes the results as JSON and ends with the reference card.
// Exit 0 when every section whose sample is present passed.
#include <cstdio>
#include <fstream>

#include "cli_common.h"
#include "tileplay/tutorial.h"

namespace tilec {

namespace {

struct TutorialArgs {
    std::string device = "auto", samples, json_out = "tutorial.json";
    std::vector<std::string> only;
    double timeout = 0;
    bool no_card = false;
};

int run_tutorial_cmd(const TutorialArgs& a) {
    tp::TutorialOptions o;
    o.device = a.device;
    o.samples_dir = a.samples;
    o.timeout_s = a.timeout;
    o.only = a.only;
    for (const auto& id : a.only) {
        bool known = false;
        for (const auto& s : tp::tutorial_sections()) known |= s.id == id;
        if (!known) {
            std::string ids;
            for (const auto& s : tp::tutorial_sections()) ids += (ids.empty() ? "" : ", ") + s.id;
            std::fprintf(stderr, "tilec tutorial: error: no section `%s`; sections: %s\n", id.c_str(), ids.c_str());
            return kUsage;
        }
    }
    bool first = true;
    tp::TutorialReport rep = tp::run_tutorial(o, [&](const tp::SectionResult& s) {
        if (first) std::fputs(tp::format_status_header().c_str(), stdout);
        first = false;
        std::fputs(tp::format_status_row(s).c_str(), stdout);
        std::fflush(stdout);
    });
    if (rep.device == "none") {
        std::fprintf(stderr, "tilec tutorial: error: %s; `--device cpu` runs the tutorial on the CPU interpreter\n",
                     rep.device_reason.c_str());
        return kUserError;
    }
    int passed = 0, missing = 0, other = 0;
    for (const auto& s : rep.sections) (s.status == "passed" ? passed : s.status == "missing sample" ? missing : other)++;
    std::printf("\n%d passed, %d not passed, %d missing sample; device: %s (%s)%s\n", passed, other, missing,
                rep.device.c_str(), rep.device_reason.c_str(),
                rep.device == "cpu" ? "; times are the CPU interpreter's at the samples' cpu-args" : "");
    if (!a.json_out.empty()) {
        std::ofstream f(a.json_out);
        f << rep.to_json().dump(2) << "\n";
        if (!f) std::fprintf(stderr, "tilec tutorial: error: cannot write `%s`\n", a.json_out.c_str());
        else std::printf("results: %s\n", a.json_out.c_str());
    }
    if (!a.no_card) std::printf("\n%s", tp::reference_text(true).c_str());
    return rep.all_present_passed() ? kOk : kUserError;
}

}  // namespace

void add_tutorial_command(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<TutorialArgs>();
    auto* cmd = app.add_subcommand("tutorial", "Run every section of the tutorial, print a status table and the reference card");
    cmd->add_option("--device", a->device, "cpu, gpu or auto")->check(CLI::IsMember({"cpu", "gpu", "auto"}))->capture_default_str();
    cmd->add_option("--samples", a->samples, "folder of the samples (default: the source tree's)");
    cmd->add_option("--json", a->json_out, "write the results as JSON to this file")->capture_default_str();
    cmd->add_option("--timeout", a->timeout, "seconds a section may run (default 300 on a GPU, 120 on the CPU)");
    cmd->add_option("--only", a->only, "run only these sections, comma-separated (ids: environment, vector_add, gemm, ...)")->delimiter(',');
    cmd->add_flag("--no-card", a->no_card, "do not print the reference card at the end");
    cmd->callback([a, &exit_code] { exit_code = run_tutorial_cmd(*a); });
}

}  // namespace tilec
