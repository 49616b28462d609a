// list_lessons(): reads the headers of lessons/*.py; the order is the file names' (numbered).
#include "tileplay/lessons.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tileplay/sample_header.h"

namespace tp {

namespace fs = std::filesystem;

std::string find_lessons_dir(const std::string& given) {
    if (!given.empty()) return given;
    if (const char* e = std::getenv("TILEPLAY_LESSONS"); e && *e) return e;
    std::error_code ec;
    if (fs::is_directory(TILEPLAY_SOURCE_DIR "/lessons", ec)) return TILEPLAY_SOURCE_DIR "/lessons";
    return "lessons";
}

std::string source_summary(const std::string& source) {
    std::istringstream in(source);
    std::string line;
    for (int i = 0; i < 40 && std::getline(in, line); ++i) {
        size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos) continue;
        line = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
        if (line[0] != '#') break;  // code: the header comment is over
        size_t t = line.find_first_not_of("# \t");
        if (t == std::string::npos || line.compare(t, 9, "tileplay:") == 0 || line.rfind("#!", 0) == 0) continue;
        return line.substr(t);
    }
    return {};
}

std::vector<LessonInfo> list_lessons(const std::string& dir) {
    std::vector<LessonInfo> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (!e.is_regular_file(ec) || e.path().extension() != ".py") continue;
        std::ifstream f(e.path(), std::ios::binary);
        std::ostringstream ss;
        ss << f.rdbuf();
        const std::string text = ss.str();
        SampleHeader h = parse_sample_header(text);
        if (h.lesson.empty()) continue;  // a helper or a sample dropped here is not an exercise
        LessonInfo l;
        l.path = e.path().string();
        l.name = e.path().filename().string();
        l.title = h.lesson;
        l.summary = source_summary(text);
        l.hints = h.hints;
        const fs::path sol = e.path().parent_path() / "solutions" / l.name;
        if (fs::is_regular_file(sol, ec)) l.solution = sol.string();
        out.push_back(std::move(l));
    }
    std::sort(out.begin(), out.end(), [](const LessonInfo& a, const LessonInfo& b) { return a.name < b.name; });
    return out;
}

}  // namespace tp
