// diff_listings (see tileplay/inspect.h): Myers' O(ND) shortest edit script over the lines'
// keys, after the common head and tail are set aside. The search keeps one frontier per edit
// count to walk the script back, so it stops at max_changes edits (memory grows with their
// square); two configurations' unrolled loops can differ in thousands of lines, and then the
// counts, not the line diff, are what the reader compares.
#include <algorithm>
#include <sstream>

#include "tileplay/inspect.h"

namespace tp {

namespace {

std::vector<std::string> keys_of(const std::string& text, Isa isa) {
    std::vector<std::string> keys;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::string m = instruction_mnemonic(line, isa);
        if (m.empty()) {
            size_t b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
            m = b == std::string::npos ? "" : "\x01" + line.substr(b, e - b + 1);
        }
        keys.push_back(std::move(m));
    }
    return keys;
}

// The edit script between a[lo_a, hi_a) and b[lo_b, hi_b), or false past max_d edits.
bool myers(const std::vector<std::string>& a, const std::vector<std::string>& b, int lo_a, int hi_a, int lo_b, int hi_b, int max_d,
           std::vector<ListingDiffLine>& out) {
    const int n = hi_a - lo_a, m = hi_b - lo_b, off = n + m + 1;
    std::vector<int> v(2 * off + 1, 0);
    std::vector<std::vector<int>> trace;
    int found = -1;
    for (int d = 0; d <= std::min(max_d, n + m) && found < 0; ++d) {
        trace.push_back(v);
        for (int k = -d; k <= d; k += 2) {
            int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
            int y = x - k;
            while (x < n && y < m && a[lo_a + x] == b[lo_b + y]) ++x, ++y;
            v[off + k] = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
    }
    if (found < 0) return false;
    // Walk back from (n, m), one edit per frontier.
    std::vector<ListingDiffLine> rev;
    int x = n, y = m;
    for (int d = found; d >= 0; --d) {
        const std::vector<int>& pv = trace[d];
        const int k = x - y;
        int prev_k = (k == -d || (k != d && pv[off + k - 1] < pv[off + k + 1])) ? k + 1 : k - 1;
        int prev_x = d == 0 ? 0 : pv[off + prev_k], prev_y = prev_x - prev_k;
        if (d == 0) prev_x = prev_y = 0;
        while (x > prev_x && y > prev_y) rev.push_back({ListingDiffLine::Same, lo_a + --x, lo_b + --y});
        if (d > 0) {
            if (x == prev_x) rev.push_back({ListingDiffLine::Added, -1, lo_b + --y});
            else rev.push_back({ListingDiffLine::Removed, lo_a + --x, -1});
        }
    }
    out.insert(out.end(), rev.rbegin(), rev.rend());
    return true;
}

}  // namespace

ListingDiff diff_listings(const std::string& left, const std::string& right, Isa isa, int max_changes) {
    const auto a = keys_of(left, isa), b = keys_of(right, isa);
    ListingDiff d;
    int head = 0, na = static_cast<int>(a.size()), nb = static_cast<int>(b.size());
    while (head < na && head < nb && a[head] == b[head]) ++head;
    int tail = 0;
    while (tail < na - head && tail < nb - head && a[na - 1 - tail] == b[nb - 1 - tail]) ++tail;
    for (int i = 0; i < head; ++i) d.lines.push_back({ListingDiffLine::Same, i, i});
    d.complete = myers(a, b, head, na - tail, head, nb - tail, max_changes, d.lines);
    if (!d.complete) {  // unaligned: every middle line on its own side
        for (int i = head; i < na - tail; ++i) d.lines.push_back({ListingDiffLine::Removed, i, -1});
        for (int i = head; i < nb - tail; ++i) d.lines.push_back({ListingDiffLine::Added, -1, i});
    }
    for (int i = 0; i < tail; ++i) d.lines.push_back({ListingDiffLine::Same, na - tail + i, nb - tail + i});
    for (const auto& l : d.lines) {
        d.removed += l.kind == ListingDiffLine::Removed;
        d.added += l.kind == ListingDiffLine::Added;
    }
    return d;
}

}  // namespace tp
