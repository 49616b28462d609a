// Token class rules. A word is a run of [A-Za-z0-9_.]; its first dot-separated segments
// decide the class, so every modifier spelling (mma.sync.aligned.m16n8k16.row.col...) matches.
#include "views/token_classes.h"

#include <cctype>

namespace tpui {

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

std::string_view segment(std::string_view w, int i) {
    size_t pos = 0;
    for (int k = 0; k < i; ++k) {
        pos = w.find('.', pos);
        if (pos == std::string_view::npos) return {};
        ++pos;
    }
    size_t end = w.find('.', pos);
    return w.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

const char* token_class_name(TokenClass c) {
    switch (c) {
        case TokenClass::TensorCore: return "Tensor Core";
        case TokenClass::AsyncCopy: return "async copy";
        case TokenClass::Barrier: return "barrier";
        case TokenClass::MatrixLoad: return "matrix load";
        case TokenClass::None: break;
    }
    return "";
}

TokenClass classify_word(std::string_view w, CodeKind kind) {
    if (w.empty() || w.front() == '.') return TokenClass::None;
    std::string_view s0 = segment(w, 0);
    if (kind == CodeKind::Sass) {
        if (s0 == "HMMA" || s0 == "HGMMA" || s0 == "IMMA" || s0 == "QGMMA") return TokenClass::TensorCore;
        if (s0 == "LDGSTS" || s0 == "UTMALDG" || s0 == "LDGDEPBAR") return TokenClass::AsyncCopy;
        if (s0 == "BAR" || s0 == "SYNCS") return TokenClass::Barrier;
        if (s0 == "LDSM") return TokenClass::MatrixLoad;
        return TokenClass::None;
    }
    // PTX, and PTX text inside CUDA inline asm strings.
    if (s0 == "mma" || s0 == "wgmma") return TokenClass::TensorCore;
    if (s0 == "cp" && segment(w, 1) == "async") return TokenClass::AsyncCopy;
    if (s0 == "bar" || s0 == "barrier" || s0 == "mbarrier") return TokenClass::Barrier;
    if (s0 == "ldmatrix") return TokenClass::MatrixLoad;
    if (kind == CodeKind::Cuda || kind == CodeKind::Ir) {
        // CUDA spellings of the same operations (runtime header calls and intrinsics).
        // The runtime's helpers count too (tp::gemm_ss is ldmatrix + mma.sync, tp::copy_g2s is
        // cp.async where alignment allows, tp::mbar_* are mbarrier operations), so the CUDA
        // view's counts agree with what the PTX view shows.
        if (s0 == "__syncthreads" || starts_with(s0, "mbarrier_") || starts_with(s0, "mbar_") || starts_with(s0, "__syncwarp"))
            return TokenClass::Barrier;
        if (starts_with(s0, "cp_async") || starts_with(s0, "tma_load") || starts_with(s0, "__pipeline_memcpy_async") ||
            s0 == "copy_g2s" || s0 == "copy_g2s_async")
            return TokenClass::AsyncCopy;
        if (starts_with(s0, "ldmatrix_") || starts_with(s0, "ptx_ldmatrix")) return TokenClass::MatrixLoad;
        if (starts_with(s0, "mma_") || starts_with(s0, "wgmma_") || s0 == "wmma" || s0 == "gemm_ss" || s0 == "gemm_rs")
            return TokenClass::TensorCore;
    }
    return TokenClass::None;
}

std::vector<TokenHit> find_tokens(std::string_view line, CodeKind kind) {
    std::vector<TokenHit> hits;
    size_t comment = kind == CodeKind::Ir ? line.find('#') : line.find("//");
    std::string_view code = line.substr(0, comment);
    size_t i = 0;
    while (i < code.size()) {
        if (!is_word_char(code[i])) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < code.size() && is_word_char(code[j])) ++j;
        std::string_view w = code.substr(i, j - i);
        // A word glued to a preceding '%' or digit-led token is a register/number, not an op.
        bool after_percent = i > 0 && code[i - 1] == '%';
        if (!after_percent) {
            TokenClass c = classify_word(w, kind);
            if (c != TokenClass::None) hits.push_back({int(i), int(j - i), c, w});
        }
        i = j;
    }
    return hits;
}

ClassCounts count_tokens(std::string_view text, CodeKind kind) {
    ClassCounts counts{};
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        for (const auto& h : find_tokens(line, kind)) ++counts[int(h.cls) - 1];
        if (nl == std::string_view::npos) break;
        pos = nl + 1;
    }
    return counts;
}

std::string_view word_at(std::string_view line, int col) {
    if (col < 0 || size_t(col) > line.size()) return {};
    size_t b = size_t(col), e = size_t(col);
    while (b > 0 && is_word_char(line[b - 1])) --b;
    while (e < line.size() && is_word_char(line[e])) ++e;
    std::string_view w = line.substr(b, e - b);
    while (!w.empty() && w.back() == '.') w.remove_suffix(1);
    return w;
}

}  // namespace tpui
