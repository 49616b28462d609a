// Parsing of baseline lines (`cublas.gemm trans_b`, `torch.compile[max-autotune]: EXPR`, ...);
// see baselines.h.
#include <cctype>
#include <sstream>

#include "baselines/baselines.h"

namespace tp::baselines {

namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// `[a, b=c]` options of a torch baseline.
bool parse_torch_options(const std::string& opts, BaselineSpec& s) {
    std::stringstream in(opts);
    std::string item;
    while (std::getline(in, item, ',')) {
        item = trim(item);
        if (item.empty()) continue;
        std::string key = item, value;
        if (size_t eq = item.find('='); eq != std::string::npos) {
            key = trim(item.substr(0, eq));
            value = trim(item.substr(eq + 1));
        }
        if (key == "sdpa") {
            if (value != "cudnn" && value != "flash" && value != "efficient" && value != "math") {
                s.error = "unknown SDPA backend `" + value + "`; use cudnn, flash, efficient or math";
                return false;
            }
            s.sdpa = value;
        } else if ((key == "mode" && s.compile_mode.size()) || (value.empty() && s.compile_mode.size())) {
            std::string m = value.empty() ? key : value;
            if (m == "default") s.compile_mode = "default";
            else if (m == "max-autotune" || m == "max-autotune-no-cudagraphs") s.compile_mode = "max-autotune-no-cudagraphs";
            else if (m == "reduce-overhead") s.compile_mode = "reduce-overhead";
            else {
                s.error = "unknown torch.compile mode `" + m + "`; use default or max-autotune";
                return false;
            }
        } else {
            s.error = "unknown option `" + item + "`; a torch baseline takes sdpa=BACKEND, torch.compile also a mode";
            return false;
        }
    }
    return true;
}

}  // namespace

BaselineSpec parse_baseline_spec(const std::string& raw) {
    BaselineSpec s;
    s.text = trim(raw);
    const std::string& t = s.text;
    auto fail = [&](std::string why) {
        s.kind = BaselineSpec::Kind::Unknown;
        s.error = std::move(why);
        return s;
    };
    if (t.rfind("cublas", 0) == 0) {
        std::stringstream in(t);
        std::string head, word;
        in >> head;
        if (head == "cublas.gemm") s.kind = BaselineSpec::Kind::Cublas, s.op = "gemm";
        else if (head == "cublaslt.gemm") s.kind = BaselineSpec::Kind::CublasLt, s.op = "gemm";
        else if (head == "cublaslt.gemm_bias_gelu") s.kind = BaselineSpec::Kind::CublasLt, s.op = "gemm_bias_gelu";
        else return fail("unknown baseline `" + t + "`; use cublas.gemm, cublaslt.gemm, cublaslt.gemm_bias_gelu or torch: EXPR");
        while (in >> word) {
            if (word == "trans_a") s.trans_a = true;
            else if (word == "trans_b") s.trans_b = true;
            else return fail("unknown cuBLAS option `" + word + "`; use trans_a or trans_b");
        }
        return s;
    }
    if (t.rfind("torch", 0) != 0) return fail("unknown baseline `" + t + "`; use cublas.gemm, cublaslt.gemm, cublaslt.gemm_bias_gelu or torch: EXPR");
    size_t colon = t.find(':');
    if (colon == std::string::npos) return fail("a torch baseline is `torch: EXPR`; `" + t + "` has no `:`");
    std::string head = trim(t.substr(0, colon)), opts;
    if (size_t lb = head.find('['); lb != std::string::npos) {
        if (head.back() != ']') return fail("unclosed `[` in `" + head + "`");
        opts = head.substr(lb + 1, head.size() - lb - 2);
        head = trim(head.substr(0, lb));
    }
    if (head == "torch.compile") s.compile_mode = "default";
    else if (head != "torch") return fail("unknown baseline `" + head + "`; use torch: EXPR or torch.compile: EXPR");
    s.kind = BaselineSpec::Kind::Torch;
    if (!parse_torch_options(opts, s)) return fail(s.error);
    s.expr = trim(t.substr(colon + 1));
    if (s.expr.empty()) return fail("`" + head + ":` needs an expression, e.g. `torch: A @ B`");
    return s;
}

}  // namespace tp::baselines
