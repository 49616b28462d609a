// The `# tileplay:` comment header of a sample file: which kernel, the GPU and CPU problem
// sizes, FLOP and byte formulas, baselines and tuning space. Parsed without evaluating Python.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tp {

struct SampleHeader {
    std::string kernel;
    std::vector<std::pair<std::string, std::string>> args;      // GPU problem size
    std::vector<std::pair<std::string, std::string>> cpu_args;  // CPU interpreter problem size
    std::string flops;  // expression over parameters, e.g. "2*M*N*K"
    std::string bytes;
    std::vector<std::string> baselines;  // "cublas.gemm", "torch: A @ B"
    std::vector<std::pair<std::string, std::vector<std::string>>> tune;  // name -> values
    // `# tileplay: variant causal: is_causal=True`: further configurations `tilec bench --suite`
    // times as rows of their own (the key `arch` picks the target, the rest are defines).
    struct Variant {
        std::string name;
        std::vector<std::pair<std::string, std::string>> args;
    };
    std::vector<Variant> variants;
    // `# tileplay: lesson TITLE` marks an exercise (lessons/): a kernel with a gap that fails
    // its check until filled; `# tileplay: hint TEXT` lines are its hints, in the order shown.
    std::string lesson;
    std::vector<std::string> hints;
    std::map<std::string, std::string> other;  // any other key
};

SampleHeader parse_sample_header(const std::string& source);

// Evaluates a header formula such as "2*M*N*K" or "4*B*H*S*S*D/2" with the given integer
// bindings (+ - * / // % ** and parentheses). Empty optional if it cannot be evaluated.
std::optional<double> eval_formula(const std::string& expr, const std::map<std::string, double>& vars);

// What a formula may name, from a kernel's bound parameters (name -> text as loaded): each
// number (and True / False as 1 / 0) by its name, and for a parameter naming a dtype (`dtype=float16`) NAME_bytes, its
// element size, so `bytes 2*M*N*dtype_bytes` holds for every dtype the kernel is built with.
std::map<std::string, double> formula_values(const std::map<std::string, std::string>& bound);

}  // namespace tp
