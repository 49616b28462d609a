// `tilec inspect --layout` (see inspect_layout.h).
#include "inspect_layout.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "tileplay/layout.h"

namespace tilec {

namespace {

using Json = nlohmann::json;

Json access_json(const tp::LayoutAccess& x, const std::string& file) {
    return {{"what", x.what},
            {"call", x.call},
            {"write", x.write},
            {"file", file},
            {"line", x.span.begin.line},
            {"col", x.span.begin.col},
            {"bytes", x.bytes},
            {"degree", x.degree},
            {"requests", x.requests},
            {"wavefronts", x.wavefronts},
            {"ideal_wavefronts", x.ideal_wavefronts},
            {"note", x.note}};
}

Json layout_json(const tp::LayoutReport& r) {
    const tp::BufferLayout& l = r.layout;
    const std::string file = r.file ? r.file->path() : "";
    Json j = {{"buffer", l.name},   {"scope", l.scope},   {"dtype", l.dtype},     {"rows", l.rows},
              {"cols", l.cols},     {"stages", l.stages}, {"threads", l.threads}, {"description", l.description},
              {"kernel", r.kernel}, {"target", r.target}};
    if (l.scope == "fragment") {
        Json owners = Json::array();
        for (const auto& os : l.owners) {
            Json e = Json::array();
            for (const auto& o : os) e.push_back({o.thread, o.reg});
            owners.push_back(e);
        }
        j["wgmma"] = l.wgmma;
        j["regs_per_thread"] = l.regs_per_thread;
        j["owners"] = owners;  // per element, row-major: [[thread, register], ...]; thread -1: every thread
    } else {
        const tp::LayoutSwizzle& s = l.swizzle;
        j["swizzle"] = {
            {"swizzled", s.swizzled}, {"panels", s.panels},         {"pitch", s.pitch},     {"vec", s.vec},        {"rows_per_key", s.rows_per_key},
            {"mask", s.mask},         {"mode_bytes", s.mode_bytes}, {"formula", s.formula}, {"cutlass", s.cutlass}};
        j["byte_offset"] = l.byte_offset;
        Json banks = Json::array();
        for (size_t e = 0; e < l.byte_offset.size(); ++e) banks.push_back(l.bank(int64_t(e)));
        j["bank"] = banks;
    }
    Json acc = Json::array();
    for (const auto& x : l.accesses) acc.push_back(access_json(x, file));
    j["accesses"] = acc;
    return j;
}

void print_grid(const tp::BufferLayout& l, int max_rows, int max_cols) {
    const int64_t rows = std::min<int64_t>(l.rows, max_rows), cols = std::min<int64_t>(l.cols, max_cols);
    std::printf("  grid (rows 0-%lld of %lld, columns 0-%lld of %lld): %s\n", (long long)rows - 1, (long long)l.rows, (long long)cols - 1,
                (long long)l.cols, l.scope == "fragment" ? "thread:register" : "bank (4-byte banks, 32 banks)");
    std::printf("  %5s", "");
    for (int64_t c = 0; c < cols; ++c) std::printf(l.scope == "fragment" ? " %7lld" : " %3lld", (long long)c);
    std::printf("\n");
    for (int64_t r = 0; r < rows; ++r) {
        std::printf("  %5lld", (long long)r);
        for (int64_t c = 0; c < cols; ++c) {
            const size_t e = size_t(r * l.cols + c);
            if (l.scope != "fragment") {
                std::printf(" %3d", l.bank(int64_t(e)));
                continue;
            }
            const auto& os = l.owners[e];
            std::string cell = os.empty() ? "-" : (os[0].thread < 0 ? "all" : std::to_string(os[0].thread)) + ":" + std::to_string(os[0].reg);
            if (os.size() > 1) cell += "+";
            std::printf(" %7s", cell.c_str());
        }
        std::printf("\n");
    }
}

void print_swizzle(const tp::BufferLayout& l) {
    const tp::LayoutSwizzle& s = l.swizzle;
    std::printf("  swizzle: %s", s.formula.c_str());
    if (!s.cutlass.empty()) std::printf("; %s", s.cutlass.c_str());
    if (s.mode_bytes) std::printf("; the %dB swizzle mode of TMA / wgmma", s.mode_bytes);
    std::printf("\n");
    if (!s.swizzled) return;
    // One full period of the XOR pattern: stored chunk of each logical chunk, row by row.
    const int64_t period = s.rows_per_key * (s.mask + 1), chunks = s.pitch / s.vec;
    std::printf("  XOR pattern (stored chunk of 16-byte chunk 0..%lld, rows 0..%lld):\n", (long long)chunks - 1, (long long)period - 1);
    for (int64_t r = 0; r < std::min(period, l.rows); ++r) {
        std::printf("    row %3lld:", (long long)r);
        for (int64_t c = 0; c < chunks; ++c) std::printf(" %2lld", (long long)(c ^ ((r / s.rows_per_key) & s.mask)));
        std::printf("\n");
    }
}

void print_layout(const tp::LayoutReport& r, const LayoutArgs& a) {
    const tp::BufferLayout& l = r.layout;
    std::printf("layout of %s in %s for %s: %s %s, %lld x %lld", l.name.c_str(), r.kernel.c_str(), r.target.c_str(), l.scope.c_str(), l.dtype.c_str(),
                (long long)l.rows, (long long)l.cols);
    if (l.stages > 1) std::printf(" (x %lld stages)", (long long)l.stages);
    std::printf(", %d threads\n  %s\n", l.threads, l.description.c_str());
    if (l.scope == "fragment")
        std::printf("  %lld registers per thread%s\n", (long long)l.regs_per_thread, l.wgmma ? " (wgmma accumulator)" : "");
    else
        print_swizzle(l);
    print_grid(l, a.grid_rows, a.grid_cols);
    const std::string file = r.file ? r.file->path() : a.file;
    std::printf("  accesses:\n");
    for (const auto& x : l.accesses) {
        std::string cost = x.degree > 0 ? std::to_string(x.degree) + "-way" + (x.degree == 1 ? " (conflict free)" : " bank conflict") + ", " +
                                              std::to_string(x.wavefronts) + " wavefronts / " + std::to_string(x.ideal_wavefronts) + " ideal over " +
                                              std::to_string(x.requests) + " warp requests"
                                        : "not counted";
        std::printf("    %s:%u:%u: %s %s: %s\n", file.c_str(), x.span.begin.line, x.span.begin.col, x.write ? "write" : "read", x.what.c_str(),
                    cost.c_str());
        if (!x.call.empty()) std::printf("      %s\n", x.call.c_str());
        if (!x.note.empty()) std::printf("      note: %s\n", x.note.c_str());
    }
}

}  // namespace

int run_inspect_layout(const LayoutArgs& a, const std::string& source) {
    tp::CompileRequest req = make_request(a.file, source, a.kernel, a.defines, a.target, false);
    tp::LayoutReport r = tp::inspect_layout(req, a.buffer);
    if (!r.ok) return inspect_failed(a.file, a.json, r.error, r.diagnostics, r.file.get());
    if (a.json) {
        Json j = layout_json(r);
        j["file"] = a.file;
        j["ok"] = true;
        std::printf("%s\n", j.dump(1).c_str());
    } else {
        print_layout(r, a);
    }
    return kOk;
}

}  // namespace tilec
