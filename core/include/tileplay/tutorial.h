// The guided tutorial behind `tilec tutorial`: its sections as data (each a sample and the
// tilec commands that demonstrate it), a runner that executes every command in a child process
// with a timeout so a failure, fault or hang is recorded and the next section still runs, the
// status table, and the T.* reference card generated from the front end's registry.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tp {

// How a section reads its key figure from the JSON its last command printed.
enum class KeyFigure {
    Doctor,   // the GPU found (or its absence) and the toolkit
    RunCheck, // `run --check --json`: time and relative error
    Bench,    // `bench --json`: time, rate, the ratio to the best peer, a failed semantic check
    Sweep,    // `sweep --json` / `tune --json`: the best config
    Printed,  // `run --json`: lines T.print wrote
    Inspect,  // `inspect --json`: Tensor Core / async copy counts and occupancy
};

struct TutorialSection {
    std::string id;      // "vector_add"
    std::string title;   // "vector add vs torch"
    std::string sample;  // file under the samples folder; empty for no sample
    // Arguments after `tilec`, for each device; "{sample}" is replaced by the sample's path.
    std::vector<std::string> gpu_args, cpu_args;
    KeyFigure key = KeyFigure::RunCheck;
    bool needs_tune_command = false;  // uses `tilec tune` when present, else `tilec sweep`
    // When set ("sm_90"), gpu_args need a GPU of that architecture: on any other GPU, and on
    // the CPU, cpu_args run instead (they must not need one) and cpu_key reads their output.
    std::string gpu_arch{};
    std::optional<KeyFigure> cpu_key{};
};

// The tutorial's sections, in order.
const std::vector<TutorialSection>& tutorial_sections();

struct TutorialOptions {
    std::string device = "auto";   // cpu, gpu or auto
    std::string samples_dir;       // empty: $TILEPLAY_SAMPLES, the source tree's, ./samples
    std::string tilec;             // empty: default_tilec_path()
    double timeout_s = 0;          // per command; 0 = 300 on a GPU, 120 on the CPU
    std::vector<std::string> only; // section ids to run (empty = all)
};

struct SectionResult {
    std::string id, title;
    std::string device;  // "gpu" or "cpu": where the section ran (labels its time)
    // "passed", "failed", "timeout", "crashed", "missing sample"
    std::string status;
    double seconds = 0;
    std::string key;    // the key figure, one short line
    std::string error;  // why it did not pass (first lines of the child's stderr)
    nlohmann::json commands = nlohmann::json::array();  // argv, exit status, seconds per command
};

struct TutorialReport {
    std::string device;         // "gpu" or "cpu"
    std::string device_reason;  // "NVIDIA H200 (sm_90)" / "no CUDA device: ..."
    std::string samples_dir;
    std::vector<SectionResult> sections;
    bool all_present_passed() const;
    nlohmann::json to_json() const;
};

// Runs the sections; `on_section` sees each result as it finishes (to print the row).
TutorialReport run_tutorial(const TutorialOptions& opts,
                            const std::function<void(const SectionResult&)>& on_section = {});

// The status table: section, status, time, key figure.
std::string format_status_table(const TutorialReport& r, bool header = true);
std::string format_status_row(const SectionResult& s);
std::string format_status_header();

// Every T.* construct the front end supports, from its registry. Full: category headings,
// each signature with its one-line doc. Card: the same, with dtypes and scalar math folded
// into name lists so it fits on a screen or two.
std::string reference_text(bool card = false);
nlohmann::json reference_json();

}  // namespace tp
