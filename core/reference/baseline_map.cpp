// cpu_reference(): picks the C++ reference named by a sample header's baseline lines and
// computes it on the kernel's arguments.
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "ir/ir.h"
#include "reference/reference.h"
#include "tileplay/interp.h"

namespace tp {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string strip_spaces(const std::string& s) {
    std::string o;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) o += c;
    return o;
}

// Which reference a baseline line names, or "".
std::string classify(const std::string& raw) {
    std::string b = lower(raw), s = strip_spaces(b);
    if (s.find("gemm_bias_gelu") != std::string::npos || s.find("gelu") != std::string::npos) return "gemm_bias_gelu";
    if (s.find("scaled_dot_product_attention") != std::string::npos || s.find("attention") != std::string::npos) return "attention";
    if (s.find("softmax") != std::string::npos) return "softmax";
    if (s.find("cublas.gemm") != std::string::npos || s.find("@") != std::string::npos || s.find("matmul") != std::string::npos ||
        s.find("mm(") != std::string::npos)
        return "gemm";
    if (s.find("+") != std::string::npos || s.find("vector_add") != std::string::npos || s.find("add(") != std::string::npos) return "add";
    return "";
}

bool flag(const ir::PrimFunc& f, std::initializer_list<const char*> names) {
    for (const char* n : names) {
        auto it = f.bound_params.find(n);
        if (it != f.bound_params.end()) return it->second != 0;
    }
    return false;
}

// Whether the baseline expression transposes operand `name` ("a" / "b"): `B.T`, `B.t()`,
// `B.mT`, `B.transpose(...)` (torch._scaled_mm(A, B.t(), ...), `A @ B.T`).
bool expr_transposes(const std::string& baseline, const std::string& name) {
    const std::string s = strip_spaces(lower(baseline));
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (const char* suffix : {".t", ".mt", ".transpose"}) {
        const std::string pat = name + suffix;
        for (size_t at = s.find(pat); at != std::string::npos; at = s.find(pat, at + 1)) {
            const bool starts = at == 0 || !ident(s[at - 1]);
            const size_t end = at + pat.size();
            const bool ends = end == s.size() || !ident(s[end]);
            if (starts && ends) return true;
        }
    }
    return false;
}

// The transposes under which A (2-D) times B (2-D) gives C's shape, when plain A @ B does not.
void gemm_layout_from_shapes(const HostTensor& a, const HostTensor& b, const HostTensor& c, bool& ta, bool& tb) {
    if (a.shape.size() != 2 || b.shape.size() != 2 || c.shape.size() != 2) return;
    auto fits = [&](bool x, bool y) {
        int64_t m = x ? a.shape[1] : a.shape[0], ka = x ? a.shape[0] : a.shape[1];
        int64_t kb = y ? b.shape[1] : b.shape[0], n = y ? b.shape[0] : b.shape[1];
        return ka == kb && m == c.shape[0] && n == c.shape[1];
    };
    if (fits(false, false)) return;
    for (auto [x, y] : {std::pair{false, true}, std::pair{true, false}, std::pair{true, true}})
        if (fits(x, y)) {
            ta = x;
            tb = y;
            return;
        }
}

}  // namespace

ReferenceResult cpu_reference(const std::vector<std::string>& baselines, const ir::PrimFunc& f,
                              const std::map<std::string, HostTensor>& args) {
    ReferenceResult r;
    for (const auto& b : baselines) {
        r.name = classify(b);
        if (!r.name.empty()) break;
    }
    if (r.name.empty()) {
        r.error = baselines.empty() ? "the sample header names no baseline" : "no CPU reference for baseline `" + baselines.front() + "`";
        return r;
    }
    std::vector<const HostTensor*> in;
    for (const auto& p : f.params) {
        if (!p.buffer) continue;
        auto it = args.find(p.name);
        if (it == args.end()) {
            r.error = "no argument for `" + p.name + "`";
            return r;
        }
        if (p.is_output) {
            if (r.output.empty()) r.output = p.name;
        } else {
            in.push_back(&it->second);
        }
    }
    if (r.output.empty()) {
        r.error = "the kernel has no output parameter (out_idx / T.empty)";
        return r;
    }
    const HostTensor& out = args.at(r.output);
    size_t need = r.name == "softmax" ? 1 : r.name == "attention" || r.name == "gemm_bias_gelu" ? 3 : 2;
    if (in.size() < need) {
        r.error = "the " + r.name + " reference needs " + std::to_string(need) + " input tensors, the kernel has " + std::to_string(in.size());
        return r;
    }
    bool ta = flag(f, {"trans_A", "transpose_A", "trans_a", "transpose_a"});
    bool tb = flag(f, {"trans_B", "transpose_B", "trans_b", "transpose_b"});
    // No parameter says so, but the shapes do: B stored [N][K] (fp8 GEMMs, `A @ B.T` peers) or
    // A stored [K][M] is the only reading under which the product and C fit.
    if ((r.name == "gemm" || r.name == "gemm_bias_gelu") && !ta && !tb) {
        for (const auto& b : baselines)
            if (classify(b) == r.name) {
                ta = expr_transposes(b, "a");
                tb = expr_transposes(b, "b");
                break;
            }
        if (!ta && !tb) gemm_layout_from_shapes(*in[0], *in[1], out, ta, tb);
    }
    try {
        if (r.name == "gemm") r.expected = reference::gemm(*in[0], *in[1], ta, tb, out.dtype);
        else if (r.name == "gemm_bias_gelu") r.expected = reference::gemm_bias_gelu(*in[0], *in[1], *in[2], ta, tb, out.dtype);
        else if (r.name == "softmax") r.expected = reference::softmax(*in[0], out.dtype);
        else if (r.name == "add") r.expected = reference::add(*in[0], *in[1], out.dtype);
        else {
            bool causal = flag(f, {"is_causal", "causal"});
            // BSHD unless the bound parameters say the second dim is the head count.
            auto heads = f.bound_params.find("heads");
            auto seq = f.bound_params.find("seq_len");
            bool bhsd = heads != f.bound_params.end() && in[0]->shape.size() == 4 && in[0]->shape[1] == heads->second &&
                        !(seq != f.bound_params.end() && seq->second == heads->second);
            r.expected = reference::attention(*in[0], *in[1], *in[2], causal, 0.0, bhsd ? reference::Layout::BHSD : reference::Layout::BSHD,
                                              out.dtype);
        }
    } catch (const std::invalid_argument& e) {
        r.error = e.what();
        return r;
    }
    if (r.expected.shape != out.shape) {
        r.error = "the " + r.name + " reference has shape " + r.expected.describe() + " but `" + r.output + "` is " + out.describe();
        return r;
    }
    r.available = true;
    return r;
}

}  // namespace tp
