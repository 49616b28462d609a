// `tilec reference` and the tutorial's closing card: rendered from eval::tile_builtins(), the
// same registry the evaluator resolves `T.<name>` against, so the reference cannot list a
// construct the front end lacks or miss one it has.
#include <algorithm>
#include <map>

#include "eval/tile_builtins.h"
#include "tileplay/tutorial.h"

namespace tp {

namespace {

// Categories in the order a kernel is written: launch, memory, loops, tile ops, then scalars.
int category_rank(const std::string& c) {
    static const char* const order[] = {"kernel", "memory", "loop", "tile op", "math", "dtype", "type"};
    for (int i = 0; i < 7; ++i)
        if (c == order[i]) return i;
    return 7;
}

std::vector<std::pair<std::string, std::vector<eval::TileBuiltinInfo>>> grouped() {
    std::map<std::pair<int, std::string>, std::vector<eval::TileBuiltinInfo>> by;
    for (auto& b : eval::tile_builtins()) by[{category_rank(b.category), b.category}].push_back(b);
    std::vector<std::pair<std::string, std::vector<eval::TileBuiltinInfo>>> out;
    for (auto& [k, v] : by) out.emplace_back(k.second, std::move(v));
    return out;
}

// Names wrapped to `width` columns after an indent.
std::string wrap_names(const std::vector<std::string>& names, size_t indent, size_t width) {
    std::string out, line(indent, ' ');
    for (size_t i = 0; i < names.size(); ++i) {
        std::string item = names[i] + (i + 1 < names.size() ? "," : "");
        if (line.size() > indent && line.size() + 1 + item.size() > width) {
            out += line + "\n";
            line.assign(indent, ' ');
        }
        line += (line.size() > indent ? " " : "") + item;
    }
    return out + line + "\n";
}

// Folded in the card: many entries whose signature says nothing their name does not.
bool folded_in_card(const std::string& category) { return category == "dtype" || category == "math"; }

}  // namespace

std::string reference_text(bool card) {
    auto groups = grouped();
    size_t total = 0;
    for (auto& g : groups) total += g.second.size();
    std::string out = "TileLang reference: " + std::to_string(total) +
                      " T.* constructs, from the front end's registry (import tilelang.language as T)\n";
    for (auto& [cat, items] : groups) {
        out += "\n" + cat + "\n";
        if (card && folded_in_card(cat)) {
            std::vector<std::string> names;
            for (auto& b : items) names.push_back("T." + b.name);
            out += wrap_names(names, 2, 96);
            if (cat == "dtype") out += "  each is a data type; T.<dtype>(x) casts x\n";
            continue;
        }
        // Signatures longer than the column go on their own line, the doc under them.
        size_t w = 0;
        for (auto& b : items) w = std::max(w, b.signature.size());
        w = std::min<size_t>(w, card ? 44 : 56);
        for (auto& b : items) {
            std::string sig = b.signature;
            if (sig.size() <= w) {
                sig.resize(w, ' ');
                out += "  " + sig + "  " + b.doc + "\n";
            } else {
                out += "  " + sig + "\n  " + std::string(w, ' ') + "  " + b.doc + "\n";
            }
        }
    }
    return out;
}

nlohmann::json reference_json() {
    nlohmann::json j = nlohmann::json::array();
    for (auto& [cat, items] : grouped())
        for (auto& b : items)
            j.push_back({{"name", "T." + b.name}, {"signature", b.signature}, {"doc", b.doc}, {"category", cat}});
    return j;
}

}  // namespace tp
