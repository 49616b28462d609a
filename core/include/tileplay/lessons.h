// The lessons of lessons/: exercises in tutorial order, each a TileLang file with a gap
// (`# TODO(lesson):`), a check (the header's baseline, run with `tilec run --check`), a title
// and hints (`# tileplay: lesson` / `hint` lines), and its filled-in twin under solutions/.
// Read by `tilec lessons` and the playground's welcome page alike, so both list the same.
#pragma once

#include <string>
#include <vector>

namespace tp {

struct LessonInfo {
    std::string path;     // the exercise
    std::string name;     // its file name, e.g. "01_vector_add.py"
    std::string title;    // from `# tileplay: lesson TITLE`
    std::string summary;  // the first line of its explanation (the first plain comment)
    std::vector<std::string> hints;
    std::string solution;  // solutions/<name>, empty when there is none
};

// `given` when set, else $TILEPLAY_LESSONS, else the source tree's lessons/, else "lessons".
std::string find_lessons_dir(const std::string& given = {});

// Every *.py directly in `dir` whose header has a `lesson` line, in file-name order (the
// files are numbered in tutorial order). Empty when the folder is missing.
std::vector<LessonInfo> list_lessons(const std::string& dir);

// The first comment line of a TileLang source that is not a `# tileplay:` header line.
std::string source_summary(const std::string& source);

}  // namespace tp
