// `tilec reference`: every T.* construct the front end supports, with its signature and one
// line on what it does, rendered from the evaluator's registry (so it cannot drift from what
// the compiler accepts). `--card` folds dtypes and scalar math into name lists; `--json` too.
#include <cstdio>

#include "cli_common.h"
#include "tileplay/tutorial.h"

namespace tilec {

void add_reference_command(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand("reference", "List every supported T.* construct with its signature and what it does");
    auto json = std::make_shared<bool>(false);
    auto card = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "print the entries as JSON (name, signature, doc, category)");
    cmd->add_flag("--card", *card, "the compact card the tutorial ends with");
    cmd->callback([&exit_code, json, card] {
        if (*json) std::printf("%s\n", tp::reference_json().dump(2).c_str());
        else std::fputs(tp::reference_text(*card).c_str(), stdout);
        exit_code = kOk;
    });
}

}  // namespace tilec
