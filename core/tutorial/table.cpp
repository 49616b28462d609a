// The tutorial's status table: one row per section (section, status, time, key figure), the
// time labelled with the device that produced it.
#include <cstdio>

#include "tileplay/tutorial.h"

namespace tp {

std::string format_status_row(const SectionResult& s) {
    char t[32] = "-";
    if (s.status != "missing sample") std::snprintf(t, sizeof t, "%.1f s %s", s.seconds, s.device == "gpu" ? "GPU" : "CPU");
    std::string key = s.key;
    if (s.status != "passed" && s.status != "missing sample" && !s.error.empty())
        key = s.error + (key.empty() ? "" : " (" + key + ")");
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %-28s %-15s %11s  ", s.title.c_str(), s.status.c_str(), t);
    return buf + key + "\n";
}

std::string format_status_header() {
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %-28s %-15s %11s  %s\n", "section", "status", "time", "key figure");
    return buf;
}

std::string format_status_table(const TutorialReport& r, bool header) {
    std::string out;
    if (header) out += format_status_header();
    for (const auto& s : r.sections) out += format_status_row(s);
    return out;
}

}  // namespace tp
