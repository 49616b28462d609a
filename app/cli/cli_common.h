// Shared pieces of the tilec commands: the command-table signature, exit codes, and helpers
// for -D parsing, reading files and the sample header's defaults.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tileplay/compiler.h"
#include "tileplay/sample_header.h"
#include "tileplay/worker_client.h"

namespace tilec {

// Exit codes of every command.
enum ExitCode { kOk = 0, kUserError = 1, kUsage = 2, kInternalError = 3 };

// Each command adds its subcommand to `app`; when it is chosen, its callback stores the exit
// code in `exit_code`. One row per command in main.cpp's table.
using AddCommand = void (*)(CLI::App& app, int& exit_code);

void add_compile_command(CLI::App& app, int& exit_code);
void add_worker_command(CLI::App& app, int& exit_code);
void add_doctor_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_sweep_command(CLI::App& app, int& exit_code);
void add_inspect_command(CLI::App& app, int& exit_code);
void add_tutorial_command(CLI::App& app, int& exit_code);
void add_reference_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
void add_lessons_command(CLI::App& app, int& exit_code);

// Reads a whole file; false (and a message on stderr) when it cannot.
bool read_file(const std::string& path, std::string& out);

// Splits "-D NAME=VALUE" strings; reports BadDefine-style usage errors on stderr.
// `dotted`: names may hold dots (pass-config keys such as tl.disable_warp_specialized).
bool parse_defines(const std::vector<std::string>& raw, std::vector<std::pair<std::string, std::string>>& out, bool dotted = false);

// Builds a CompileRequest for FILE with -D values, using the sample header's `args` (or
// `cpu-args` when cpu is true) as fallbacks for parameters the user did not give.
tp::CompileRequest make_request(const std::string& path, const std::string& source, const std::string& kernel,
                                const std::vector<std::pair<std::string, std::string>>& defines,
                                const std::string& target, bool cpu_sizes = false);

// Prints diagnostics (coloured on a terminal unless TILEPLAY_NO_COLOR is set) and returns the
// exit code for a failed compile: 3 for an internal error, 1 otherwise.
// `remarks`: also the fast paths not taken (they often explain the error that follows).
int report_failure(const tp::CompileResult& r, bool remarks = false);

bool use_color();
// An inspect report that could not be made: `{file, ok: false, error}` with --json, else the
// error diagnostics and the reason on stderr. Returns the exit code (kUserError).
int inspect_failed(const std::string& file, bool json, const std::string& error, const std::vector<tp::Diagnostic>& diags,
                   const tp::SourceFile* source);

// `--worker SPEC` on a command that starts a worker: where it runs (local, ssh://[user@]HOST
// [:PORT][/path/to/tilec]); repeatable when `many` (a pool for sweep and tune).
void add_worker_option(CLI::App* cmd, std::vector<std::string>& specs, bool many);

// `base` (its timeouts) placed at each SPEC, or once, locally, when there is none; false with
// a message on stderr naming `command` when a SPEC cannot be read.
bool workers_from_specs(const std::vector<std::string>& specs, const tp::WorkerOptions& base, std::vector<tp::WorkerOptions>& out,
                        const char* command);

}  // namespace tilec
