// The memory budget of a run: the bytes its tensors need (the host copies plus the CPU
// interpreter's double-precision working copy), counted with overflow checks and compared
// with what this machine can hold before anything is allocated.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "ir/ir.h"
#include "tileplay/interp.h"

namespace tp {

namespace {

// "8G", "512M", "1048576": bytes with an optional K/M/G/T suffix (powers of 1024).
std::optional<int64_t> parse_bytes(const std::string& s) {
    if (s.empty()) return std::nullopt;
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(s, &used);
    } catch (...) {
        return std::nullopt;
    }
    if (v <= 0) return std::nullopt;
    int shift = 0;
    std::string rest = s.substr(used);
    if (rest == "K" || rest == "k") shift = 10;
    else if (rest == "M" || rest == "m") shift = 20;
    else if (rest == "G" || rest == "g") shift = 30;
    else if (rest == "T" || rest == "t") shift = 40;
    else if (!rest.empty()) return std::nullopt;
    if (v > (INT64_MAX >> shift)) return std::nullopt;
    return static_cast<int64_t>(v) << shift;
}

std::string human(int64_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 6) v /= 1024, ++u;
    char buf[64];
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

}  // namespace

int64_t memory_budget_bytes() {
    if (const char* env = std::getenv("TILEPLAY_MEMORY_BUDGET"))
        if (auto b = parse_bytes(env)) return *b;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return int64_t(8) << 30;
    // Three quarters of physical memory: the rest is for the compiler, the OS and the caller.
    return static_cast<int64_t>(pages) / 4 * 3 * page;
}

bool check_run_memory(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes, std::string* error) {
    int64_t total = 0, biggest = -1;
    std::string biggest_desc;
    for (size_t i = 0; i < f.params.size() && i < shapes.size(); ++i) {
        const auto& p = f.params[i];
        if (!p.buffer) continue;
        HostTensor shown;  // described, not allocated
        shown.dtype = p.buffer->dtype;
        shown.shape = shapes[i];
        auto n = checked_numel(shapes[i]);
        int64_t bytes = 0;
        // dtype bytes on the host plus 8 for the interpreter's double per element.
        if (!n || __builtin_mul_overflow(*n, static_cast<int64_t>(dtype_size(p.buffer->dtype)) + 8, &bytes) ||
            __builtin_add_overflow(total, bytes, &total)) {
            if (error) *error = "tensor `" + p.name + "` of " + shown.describe() + " is too large: its size overflows 64-bit byte counts";
            return false;
        }
        if (bytes > biggest) biggest = bytes, biggest_desc = "`" + p.name + "` " + shown.describe();
    }
    int64_t budget = memory_budget_bytes();
    if (total > budget) {
        if (error)
            *error = "the run needs " + human(total) + " for its tensors (the largest is " + biggest_desc + ", " + human(biggest) +
                     "), over the memory budget of " + human(budget) + "; use smaller sizes (`-D`), or set TILEPLAY_MEMORY_BUDGET " +
                     "(bytes, or with a K/M/G/T suffix) to allow more";
        return false;
    }
    return true;
}

}  // namespace tp
