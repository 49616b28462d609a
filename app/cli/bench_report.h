// How `tilec bench` shows its results: one text row per benchmarked configuration (our time
// and rate, both checks, the best peer's ratio with its spread over rounds, every peer, the
// clocks), and the Markdown table the README carries, generated so that no figure is typed
// by hand.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tilec {

// One configuration's result record as the bench command builds it.
std::string bench_row_text(const nlohmann::json& rec);

// Whether a record failed: an error, the interpreter check, or a semantic check that ran and
// disagreed. A semantic check that could not run is not a failure, and not a pass either.
bool bench_record_failed(const nlohmann::json& rec);

// The suite as a Markdown table with a caption naming the GPU, clocks and method.
std::string bench_markdown(const nlohmann::json& report, const std::string& command_line);

// Writes `table` into `path`: between `<!-- bench-table:begin -->` and `<!-- bench-table:end -->`
// when the file has both markers (the README), else the whole file. False with `why`.
bool write_markdown(const std::string& path, const std::string& table, std::string& why);

}  // namespace tilec
