// tilec: the headless TilePlay. One row per command in the table below; each command lives
// in its own cmd_<name>.cpp.
#include <cstdio>
#include <exception>

#include "cli_common.h"

namespace {

const tilec::AddCommand kCommands[] = {
    tilec::add_compile_command,   tilec::add_worker_command, tilec::add_doctor_command,  tilec::add_bench_command,
    tilec::add_run_command,       tilec::add_sweep_command,  tilec::add_inspect_command, tilec::add_tutorial_command,
    tilec::add_reference_command, tilec::add_tune_command,   tilec::add_lessons_command,
};

}  // namespace

int main(int argc, char** argv) {
    tp::prepare_process();
    CLI::App app{"tilec: compile, run, check and time TileLang kernels (TilePlay " TILEPLAY_VERSION ")"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "tilec " TILEPLAY_VERSION);
    int exit_code = tilec::kOk;
    for (auto add : kCommands) add(app, exit_code);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : tilec::kUsage;
    } catch (const tp::InternalError& e) {
        std::fprintf(stderr, "tilec: internal compiler error: %s (%s:%d%s%s)\n", e.what(), e.file.c_str(), e.line,
                     e.pass.empty() ? "" : ", pass ", e.pass.c_str());
        return tilec::kInternalError;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tilec: internal error: %s\n", e.what());
        return tilec::kInternalError;
    }
    return exit_code;
}
