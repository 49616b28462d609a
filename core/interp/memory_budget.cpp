// The memory budget of a run: the bytes its tensors need (the host copies plus the CPU
// interpreter's double-precision working copy), counted with overflow checks and compared
// with what this machine can hold before anything is allocated.
#include <unistd.h>

#include <algorithm>
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

MemoryBudget default_memory_budget() {
    if (const char* env = std::getenv("TILEPLAY_MEMORY_BUDGET"))
        if (auto b = parse_bytes(env)) return {*b, "TILEPLAY_MEMORY_BUDGET"};
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return {int64_t(8) << 30, "8 GiB: this machine's memory size is unknown"};
    // Three quarters of physical memory: the rest is for the compiler, the OS and the caller.
    int64_t physical = static_cast<int64_t>(pages) * page;
    return {static_cast<int64_t>(pages) / 4 * 3 * page, "three quarters of this machine's " + human(physical)};
}

int64_t memory_budget_bytes() { return default_memory_budget().bytes; }

RunMemory run_memory(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes) {
    RunMemory m;
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
            __builtin_add_overflow(m.total, bytes, &m.total)) {
            m.overflow = "tensor `" + p.name + "` of " + shown.describe() + " is too large: its size overflows 64-bit byte counts";
            return m;
        }
        m.tensors.push_back({p.name, shown.describe(), shapes[i], bytes});
    }
    return m;
}

std::string memory_refusal(const RunMemory& need, const MemoryBudget& budget, const std::string& hint) {
    // Largest first, at most three named: the ones worth shrinking.
    std::vector<const RunMemory::Tensor*> order;
    for (const auto& t : need.tensors) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->bytes > b->bytes; });
    std::string list;
    for (size_t i = 0; i < order.size() && i < 3; ++i)
        list += (i ? ", `" : "`") + order[i]->name + "` " + order[i]->desc + " " + human(order[i]->bytes);
    if (order.size() > 3) list += ", ...";
    std::string msg = "the run needs " + human(need.total) + " for its tensors (" + list + "), over the memory budget of " +
                      human(budget.bytes);
    if (!budget.source.empty()) msg += " (" + budget.source + ")";
    return hint.empty() ? msg : msg + "; " + hint;
}

std::vector<std::string> sizing_params(const RunMemory& need, const std::map<std::string, std::string>& bound_params) {
    std::vector<const RunMemory::Tensor*> order;
    for (const auto& t : need.tensors) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->bytes > b->bytes; });
    std::vector<std::string> names;
    for (const auto* t : order)
        for (const auto& [name, value] : bound_params) {
            char* end = nullptr;
            long long v = std::strtoll(value.c_str(), &end, 10);
            if (end == value.c_str() || *end || v <= 1) continue;
            bool sizes = std::find(t->shape.begin(), t->shape.end(), v) != t->shape.end();
            if (sizes && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    return names;
}

bool check_run_memory(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes, std::string* error,
                      const MemoryBudget* budget) {
    RunMemory need = run_memory(f, shapes);
    if (!need.overflow.empty()) {
        if (error) *error = need.overflow;
        return false;
    }
    MemoryBudget b = budget ? *budget : default_memory_budget();
    if (need.total > b.bytes) {
        if (error)
            *error = memory_refusal(need, b, "use smaller sizes (`-D`), or set TILEPLAY_MEMORY_BUDGET (bytes, or with a K/M/G/T suffix) to allow more");
        return false;
    }
    return true;
}

}  // namespace tp
