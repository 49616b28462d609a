// PTX line map and ptxas resource report (see ptx_lines.h). A `.loc F L C` applies to the
// PTX lines after it until the next `.loc`; for code inlined from the runtime headers the
// `inlined_at F L C` part names the call site, followed out to the DSL line we want.
#include "codegen/ptx_lines.h"

#include <map>
#include <regex>
#include <sstream>
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

}  // namespace

LineMap ptx_line_map(const std::string& ptx, const std::string& dsl_path) {
    LineMap map;
    static const std::regex file_re(R"(^\s*\.file\s+(\d+)\s+\"([^\"]*)\")");
    static const std::regex loc_re(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+))");
    static const std::regex inl_re(R"(inlined_at\s+(\d+)\s+(\d+)\s+(\d+))");
    using Key = std::tuple<int, uint32_t, uint32_t>;  // file, line, column
    std::map<int, bool> is_dsl;                       // .file index -> whether it is the DSL file
    std::map<Key, Key> caller;                        // a location inside a header -> its call site
    auto key_of = [](const std::smatch& m) {
        return Key{std::stoi(m[1]), static_cast<uint32_t>(std::stoul(m[2])), static_cast<uint32_t>(std::stoul(m[3]))};
    };
    // .file directives come at the end of the PTX, so read them (and every call edge) first.
    std::istringstream pre(ptx);
    std::string line;
    std::smatch m, im;
    while (std::getline(pre, line)) {
        if (line.find(".file") != std::string::npos && std::regex_search(line, m, file_re))
            is_dsl[std::stoi(m[1])] = same_file(m[2], dsl_path);
        else if (line.find("inlined_at") != std::string::npos && std::regex_search(line, m, loc_re) && std::regex_search(line, im, inl_re))
            caller[key_of(m)] = key_of(im);
    }
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

    std::istringstream in(ptx);
    uint32_t current = 0;
    while (std::getline(in, line)) {
        if (line.find(".loc") != std::string::npos && std::regex_search(line, m, loc_re)) {
            const Key here = key_of(m);
            current = is_dsl[std::get<0>(here)] ? std::get<1>(here) : 0;
            if (std::regex_search(line, im, inl_re)) {
                current = resolve(key_of(im));
                recent[here] = current;
            }
            map.to_dsl.push_back(current);
            continue;
        }
        // A function's closing brace ends its last location.
        if (line == "}") {
            map.to_dsl.push_back(0);
            current = 0;
            continue;
        }
        map.to_dsl.push_back(current);
    }
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
