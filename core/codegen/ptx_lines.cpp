// PTX line map and ptxas resource report (see ptx_lines.h). A `.loc F L C` applies to the
// PTX lines after it until the next `.loc`; for code inlined from the runtime headers the
// `inlined_at F L C` part names the call site, followed out to the DSL line we want.
#include "codegen/ptx_lines.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <sstream>
#include <string_view>
#include <tuple>

namespace tp::codegen {

namespace {

std::string basename_of(const std::string& p) {
    auto s = p.find_last_of('/');
    return s == std::string::npos ? p : p.substr(s + 1);
}

bool same_file(const std::string& a, const std::string& b) {
    return a == b || (!a.empty() && !b.empty() && basename_of(a) == basename_of(b));
}

using Key = std::tuple<int, uint32_t, uint32_t>;  // file, line, column

bool is_space(char c) { return c == ' ' || c == '\t'; }

// Whitespace (at least one character when `needed`), then a decimal number, from `p` on.
bool number_at(std::string_view s, size_t& p, uint32_t& out, bool needed = true) {
    const size_t start = p;
    while (p < s.size() && is_space(s[p])) ++p;
    if (needed && p == start) return false;
    if (p >= s.size() || s[p] < '0' || s[p] > '9') return false;
    uint64_t v = 0;
    for (; p < s.size() && s[p] >= '0' && s[p] <= '9'; ++p) v = std::min<uint64_t>(v * 10 + uint64_t(s[p] - '0'), UINT32_MAX);
    out = static_cast<uint32_t>(v);
    return true;
}

bool three_numbers(std::string_view s, size_t p, Key& k) {
    uint32_t f = 0, l = 0, c = 0;
    if (!number_at(s, p, f) || !number_at(s, p, l) || !number_at(s, p, c)) return false;
    k = Key{static_cast<int>(f), l, c};
    return true;
}

// `directive` (".loc", ".file") after the line's leading whitespace: the position after it.
bool directive_at(std::string_view line, std::string_view directive, size_t& p) {
    p = 0;
    while (p < line.size() && is_space(line[p])) ++p;
    if (line.substr(p, directive.size()) != directive) return false;
    p += directive.size();
    return true;
}

// `.loc F L C` (what the `\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)` pattern matched); a hand parser,
// since a large kernel's PTX has thousands of these and std::regex took milliseconds.
bool loc_of(std::string_view line, Key& k) {
    size_t p = 0;
    return directive_at(line, ".loc", p) && three_numbers(line, p, k);
}

// `inlined_at F L C` anywhere on the line.
bool inlined_at_of(std::string_view line, Key& k) {
    static constexpr std::string_view kWord = "inlined_at";
    for (size_t at = line.find(kWord); at != std::string_view::npos; at = line.find(kWord, at + 1))
        if (three_numbers(line, at + kWord.size(), k)) return true;
    return false;
}

// `.file N "path"`.
bool file_of(std::string_view line, int& index, std::string& path) {
    size_t p = 0;
    uint32_t n = 0;
    if (!directive_at(line, ".file", p) || !number_at(line, p, n)) return false;
    const size_t q = p;
    while (p < line.size() && is_space(line[p])) ++p;
    if (p == q || p >= line.size() || line[p] != '"') return false;
    const size_t close = line.find('"', p + 1);
    if (close == std::string_view::npos) return false;
    index = static_cast<int>(n);
    path = std::string(line.substr(p + 1, close - p - 1));
    return true;
}

// Calls f(line) for each line of `text` as std::getline splits it.
template <class F>
void for_each_line(std::string_view text, F&& f) {
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        f(text.substr(start, end - start));
        start = end + 1;
    }
}

}  // namespace

LineMap ptx_line_map(const std::string& ptx, const std::string& dsl_path) {
    LineMap map;
    std::map<int, bool> is_dsl;  // .file index -> whether it is the DSL file
    std::map<Key, Key> caller;   // a location inside a header -> its call site
    // .file directives come at the end of the PTX, so read them (and every call edge) first.
    for_each_line(ptx, [&](std::string_view line) {
        int index = 0;
        std::string path;
        Key here, site;
        if (line.find(".file") != std::string_view::npos && file_of(line, index, path)) is_dsl[index] = same_file(path, dsl_path);
        else if (line.find("inlined_at") != std::string_view::npos && loc_of(line, here) && inlined_at_of(line, site))
            caller[here] = site;
    });
    // A call site inside a header (a template calling another) is followed outwards until it
    // reaches the DSL file: the DSL statement that used the outermost helper. PTX names only
    // one level per line; the site's own `.loc` line (seen most recently, else anywhere) names
    // the next.
    std::map<Key, uint32_t> recent;
    auto resolve = [&](Key k) -> uint32_t {
        for (int depth = 0; depth < 32; ++depth) {
            if (is_dsl[std::get<0>(k)]) return std::get<1>(k);
            if (auto r = recent.find(k); r != recent.end()) return r->second;
            auto c = caller.find(k);
            if (c == caller.end()) return 0;
            k = c->second;
        }
        return 0;
    };

    uint32_t current = 0;
    for_each_line(ptx, [&](std::string_view line) {
        Key here, site;
        if (line.find(".loc") != std::string_view::npos && loc_of(line, here)) {
            current = is_dsl[std::get<0>(here)] ? std::get<1>(here) : 0;
            if (inlined_at_of(line, site)) {
                current = resolve(site);
                recent[here] = current;
            }
            map.to_dsl.push_back(current);
            return;
        }
        // A function's closing brace ends its last location.
        if (line == "}") {
            map.to_dsl.push_back(0);
            current = 0;
            return;
        }
        map.to_dsl.push_back(current);
    });
    return map;
}

ResourceUsage parse_ptxas_info(const std::string& log) {
    ResourceUsage r;
    static const std::regex regs_re(R"(Used\s+(\d+)\s+registers)");
    static const std::regex smem_re(R"((\d+)\s+bytes\s+smem)");
    static const std::regex stack_re(R"((\d+)\s+bytes\s+stack\s+frame)");
    static const std::regex spill_st_re(R"((\d+)\s+bytes\s+spill\s+stores)");
    static const std::regex spill_ld_re(R"((\d+)\s+bytes\s+spill\s+loads)");
    std::istringstream in(log);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, regs_re)) {
            r.registers = std::stoi(m[1]);
            r.static_shared_bytes = std::regex_search(line, m, smem_re) ? std::stoll(m[1]) : 0;
        }
        if (std::regex_search(line, m, stack_re)) r.stack_bytes = std::stoll(m[1]);
        if (std::regex_search(line, m, spill_st_re)) r.spill_store_bytes = std::stoll(m[1]);
        if (std::regex_search(line, m, spill_ld_re)) r.spill_load_bytes = std::stoll(m[1]);
    }
    return r;
}

}  // namespace tp::codegen
