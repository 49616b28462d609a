// Reverse indexes over the generated-line -> DSL-line maps, and the SASS line-info reader.
#include "views/line_links.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

namespace tpui {

void LineLinks::set_map(LinkedView v, const tp::LineMap& m) {
    int i = int(v);
    maps_[i] = m;
    reverse_[i].clear();
    for (size_t k = 0; k < m.to_dsl.size(); ++k)
        if (m.to_dsl[k] != 0) reverse_[i][int(m.to_dsl[k])].push_back(int(k) + 1);
}

void LineLinks::clear() {
    for (auto& m : maps_) m = {};
    for (auto& r : reverse_) r.clear();
}

int LineLinks::dsl_line(LinkedView v, int line) const {
    if (v == LinkedView::Dsl) return line;
    return line > 0 ? int(maps_[int(v)].dsl_line(uint32_t(line))) : 0;
}

std::vector<int> LineLinks::lines_for(LinkedView v, int dsl) const {
    if (dsl <= 0) return {};
    if (v == LinkedView::Dsl) {
        for (int i = 1; i < kLinkedViewCount; ++i)
            if (reverse_[i].count(dsl)) return {dsl};
        return {};
    }
    auto it = reverse_[int(v)].find(dsl);
    return it == reverse_[int(v)].end() ? std::vector<int>{} : it->second;
}

std::vector<int> LineLinks::linked(LinkedView from, int line, LinkedView to) const {
    return lines_for(to, dsl_line(from, line));
}

std::vector<int> LineLinks::mapped_dsl_lines() const {
    std::set<int> s;
    for (int i = 1; i < kLinkedViewCount; ++i)
        for (const auto& [dsl, lines] : reverse_[i]) s.insert(dsl);
    return {s.begin(), s.end()};
}

tp::LineMap sass_line_map(const std::string& sass, const std::string& dsl_path) {
    std::string base = dsl_path.substr(dsl_path.find_last_of('/') == std::string::npos ? 0 : dsl_path.find_last_of('/') + 1);
    static const std::regex file_line(R"re(//##\s*File\s*"([^"]*)",\s*line\s*(\d+))re");
    tp::LineMap m;
    std::istringstream in(sass);
    std::string line;
    uint32_t current = 0;
    while (std::getline(in, line)) {
        std::smatch mt;
        if (std::regex_search(line, mt, file_line)) {
            std::string f = mt[1].str();
            bool ours = f == dsl_path || (f.size() >= base.size() && f.compare(f.size() - base.size(), base.size(), base) == 0);
            // Lines inside runtime headers keep the DSL line of the call they were inlined into.
            if (ours) current = uint32_t(std::stoul(mt[2].str()));
            m.to_dsl.push_back(0);
            continue;
        }
        bool is_instruction = line.find("/*") != std::string::npos && line.find(';') != std::string::npos;
        m.to_dsl.push_back(is_instruction ? current : 0);
    }
    return m;
}

StrippedCuda strip_line_directives(const std::string& cuda, const tp::LineMap& lines) {
    StrippedCuda out;
    size_t pos = 0;
    uint32_t line = 0;
    while (pos < cuda.size()) {
        size_t end = cuda.find('\n', pos);
        if (end == std::string::npos) end = cuda.size();
        ++line;
        size_t first = cuda.find_first_not_of(" \t", pos);
        const bool directive = first != std::string::npos && first < end && cuda.compare(first, 6, "#line ") == 0;
        if (!directive) {
            out.text.append(cuda, pos, end - pos);
            if (end < cuda.size()) out.text += '\n';
            out.lines.to_dsl.push_back(lines.dsl_line(line));
        }
        pos = end + 1;
    }
    return out;
}

}  // namespace tpui
