// libFuzzer target for the evaluator and the compiler: the bytes are a DSL file, compiled
// through evaluation, every pass and CUDA emission for sm_80 or sm_90a (by the input's
// length), with its `# tileplay:` header's cpu-args as fallback defines like `tilec run
// --device cpu`; the header's FLOP and byte formulas are evaluated too. Any crash, hang or sanitizer report is a bug, and so is an internal error: bad
// input must end in a located user diagnostic, and a failed compile must say why.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "tileplay/compiler.h"
#include "tileplay/sample_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;  // an empty source would make compile() read `path` from disk
    tp::CompileRequest req;
    req.path = "fuzz_input.py";
    req.source.assign(reinterpret_cast<const char*>(data), size);
    req.target = size % 2 ? "sm_90a" : "sm_80";
    req.stop_after = tp::Stage::Cuda;
    // A twentieth of the default budget: under ASan the default's 20M steps outlast the 20 s
    // per-input timeout, so every long trace-time loop was reported as a hang. The budget still
    // has to stop it, with its located error.
    req.trace_step_limit = 1000000;
    tp::SampleHeader header = tp::parse_sample_header(req.source);
    req.fallback_defines = header.cpu_args;
    // The header's formulas, as `tilec bench` evaluates them over the bound sizes.
    std::map<std::string, double> vars;
    for (const auto& [name, value] : header.cpu_args) vars[name] = std::strtod(value.c_str(), nullptr);
    (void)tp::eval_formula(header.flops, vars);
    (void)tp::eval_formula(header.bytes, vars);
    tp::CompileResult r = tp::compile(req);
    if (r.internal_error) {
        std::fprintf(stderr, "internal error (%s:%d, pass %s): %s\n", r.internal_error->file.c_str(),
                     r.internal_error->line, r.internal_error->pass.c_str(), r.internal_error->what());
        std::abort();
    }
    if (!r.ok && r.diagnostics.empty()) {
        std::fprintf(stderr, "compile failed without a diagnostic\n");
        std::abort();
    }
    (void)r.render_diagnostics(false, true);
    return 0;
}
