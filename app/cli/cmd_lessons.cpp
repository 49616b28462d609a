// `tilec lessons [--dir DIR] [--hints]`: lists the exercises of lessons/ in tutorial order
// (number, file, title, the one-line summary) and how to check one; --hints prints each
// lesson's hints under it. Exit 1 when the folder holds no lesson.
#include <cstdio>

#include "cli_common.h"
#include "tileplay/lessons.h"

namespace tilec {

namespace {

struct LessonsArgs {
    std::string dir;
    bool hints = false;
};

int run_lessons_cmd(const LessonsArgs& a) {
    const std::string dir = tp::find_lessons_dir(a.dir);
    const std::vector<tp::LessonInfo> lessons = tp::list_lessons(dir);
    if (lessons.empty()) {
        std::fprintf(stderr, "tilec lessons: error: no lessons in `%s` (files with a `# tileplay: lesson TITLE` line); --dir names another folder\n",
                     dir.c_str());
        return kUserError;
    }
    std::printf(
        "Lessons in %s, in tutorial order. Each has a gap marked `# TODO(lesson):` and fails its check until it\n"
        "is filled; solutions/ holds the filled-in file. Open one in the playground (welcome page), or:\n\n",
        dir.c_str());
    int n = 1;
    for (const auto& l : lessons) {
        std::printf("%2d. %-28s %s\n", n++, l.name.c_str(), l.title.c_str());
        if (!l.summary.empty()) std::printf("    %-28s %s\n", "", l.summary.c_str());
        if (a.hints)
            for (size_t i = 0; i < l.hints.size(); ++i) std::printf("    %-28s hint %zu: %s\n", "", i + 1, l.hints[i].c_str());
    }
    std::printf("\nCheck one: tilec run %s/%s --device cpu --check\n", dir.c_str(), lessons.front().name.c_str());
    std::printf("(exit 0 and PASS once the gap is filled; --hints shows the hints here)\n");
    return kOk;
}

}  // namespace

void add_lessons_command(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<LessonsArgs>();
    auto* cmd = app.add_subcommand("lessons", "List the lessons (exercises with a gap and a check) and how to check one");
    cmd->add_option("--dir", a->dir, "folder of the lessons (default: $TILEPLAY_LESSONS, else the source tree's lessons/)");
    cmd->add_flag("--hints", a->hints, "print each lesson's hints too");
    cmd->callback([a, &exit_code] { exit_code = run_lessons_cmd(*a); });
}

}  // namespace tilec
