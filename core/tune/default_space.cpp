// The tuner's default space when a kernel names none (no @autotune configs, no
// `# tileplay: tune` line, no -T): the factory's schedule parameters,
// recognised by TileLang's naming conventions and varied around the value the
// run uses. Tile sizes (block_M, BLOCK_N, blk_m, tile_k, ...) take the value /4
// .. x4, threads 64 .. 1024, stages 1 .. 4, vector widths 1 .. 16; the static
// filter then drops the configs the target cannot run (shared memory, threads,
// tile shapes the lowering refuses). Memory-bound kernels (a softmax's rows per
// block, a norm's threads) are where a user most often did not write a tuning
// space and a better schedule exists.
#include <algorithm>
#include <cctype>
#include <set>

#include "tileplay/tune.h"

namespace tp {

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

enum class Knob { None, Tile, Threads, Stages, Vector };

Knob knob_of(const std::string& name) {
    const std::string n = lower(name);
    if (n == "threads" || n == "num_threads" || n == "thread_num" || n == "block_threads") return Knob::Threads;
    if (n == "num_stages" || n == "stages") return Knob::Stages;
    if (starts(n, "vec") || n == "vector_size" || n == "vector_width") return Knob::Vector;
    if (starts(n, "block_") || starts(n, "blk_") || starts(n, "tile_") || n == "block" || n == "bm" || n == "bn" || n == "bk") return Knob::Tile;
    return Knob::None;
}

std::optional<long long> positive_int(const std::string& text) {
    if (text.empty() || text.size() > 9) return std::nullopt;
    for (char c : text)
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    long long v = std::stoll(text);
    return v > 0 ? std::optional<long long>(v) : std::nullopt;
}

std::vector<std::string> values(Knob k, long long center, bool narrow) {
    std::set<long long> v;
    switch (k) {
        case Knob::Tile:
            for (long long m : {1, 2, 4})
                if (!narrow || m <= 2) v.insert(center * m), v.insert(std::max(1LL, center / m));
            break;
        case Knob::Threads:
            for (long long t : {64, 128, 256, 512, 1024}) v.insert(t);
            v.insert(center);
            break;
        case Knob::Stages:
            for (long long s : {1, 2, 3, 4}) v.insert(s);
            v.insert(center);
            break;
        case Knob::Vector:
            for (long long w : {1, 2, 4, 8, 16}) v.insert(w);
            break;
        case Knob::None:
            break;
    }
    std::vector<std::string> out;
    for (long long x : v)
        if (x >= 1 && x <= 1024) out.push_back(std::to_string(x));
    return out;
}

}  // namespace

TuneAxes default_tune_axes(const std::vector<FactoryParam>& params, const TuneConfig& fixed, size_t max_configs) {
    auto build = [&](bool narrow) {
        TuneAxes axes;
        for (const auto& p : params) {
            Knob k = knob_of(p.name);
            if (k == Knob::None) continue;
            std::string text = p.default_text;
            for (const auto& [name, v] : fixed)
                if (name == p.name) text = v;  // centred on the value the run uses
            auto center = positive_int(text);
            if (!center) continue;
            auto vals = values(k, *center, narrow);
            if (vals.size() > 1) axes.emplace_back(p.name, std::move(vals));
        }
        return axes;
    };
    auto size = [](const TuneAxes& a) {
        size_t n = 1;
        for (const auto& [name, v] : a) n *= v.size();
        return n;
    };
    TuneAxes axes = build(false);
    return size(axes) <= max_configs ? axes : build(true);
}

}  // namespace tp
