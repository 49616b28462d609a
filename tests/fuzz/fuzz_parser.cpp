// libFuzzer entry point: arbitrary bytes go through the tokenizer and parser, and when a tree
// comes back through ast::dump too. Any crash, hang or sanitizer report is a front-end bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto file = tp::SourceFile::from_string("fuzz.py", std::move(text));
    tp::DiagnosticEngine diags(file);
    auto module = tp::frontend::parse_module(file, diags);
    if (module) {
        (void)tp::ast::dump(*module, false);
        (void)tp::ast::dump(*module, true);
    } else if (!diags.has_errors()) {
        __builtin_trap();  // a failed parse must always say why
    }
    tp::DiagnosticEngine expr_diags(file);
    (void)tp::frontend::parse_expression(file, expr_diags);
    return 0;
}
