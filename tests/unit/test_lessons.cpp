// list_lessons(): the exercises of a folder in file-name order with their titles, summaries,
// hints and solutions; files without a `lesson` line are not lessons. And the shipped lessons/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tileplay/lessons.h"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

}  // namespace

TEST(Lessons, ListsExercisesInFileOrder) {
    const fs::path dir = fs::temp_directory_path() / ("tileplay_lessons_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    write(dir / "02_second.py", "# Lesson 2: the second one.\n#\n# more\n# tileplay: lesson Second\n# tileplay: hint h1\nimport tilelang\n");
    write(dir / "01_first.py", "#!/usr/bin/env python3\n\n# tileplay: lesson First\n# First summary.\n# tileplay: hint a\n# tileplay: hint b\n");
    write(dir / "helper.py", "# not a lesson\nimport tilelang\n");
    write(dir / "notes.txt", "# tileplay: lesson Not python\n");
    write(dir / "solutions" / "01_first.py", "# tileplay: lesson First\n");
    const auto lessons = tp::list_lessons(dir.string());
    ASSERT_EQ(lessons.size(), 2u);
    EXPECT_EQ(lessons[0].name, "01_first.py");
    EXPECT_EQ(lessons[0].title, "First");
    EXPECT_EQ(lessons[0].summary, "First summary.");
    EXPECT_EQ(lessons[0].hints, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(fs::path(lessons[0].solution), dir / "solutions" / "01_first.py");
    EXPECT_EQ(lessons[1].title, "Second");
    EXPECT_EQ(lessons[1].summary, "Lesson 2: the second one.");
    EXPECT_TRUE(lessons[1].solution.empty());
    EXPECT_TRUE(tp::list_lessons((dir / "missing").string()).empty());
    fs::remove_all(dir);
}

TEST(Lessons, SummaryIsTheFirstPlainComment) {
    EXPECT_EQ(tp::source_summary("# tileplay: kernel=k\n#\n#   Adds two vectors.  \nimport x\n"), "Adds two vectors.");
    EXPECT_EQ(tp::source_summary("import x\n# later\n"), "");  // the header comment ended
}

// The shipped lessons: each with a title, a hint and a solution.
TEST(Lessons, ShippedLessonsAreComplete) {
    const auto lessons = tp::list_lessons(TILEPLAY_SOURCE_DIR "/lessons");
    ASSERT_GE(lessons.size(), 6u);
    for (const auto& l : lessons) {
        EXPECT_FALSE(l.title.empty()) << l.name;
        EXPECT_FALSE(l.hints.empty()) << l.name;
        EXPECT_FALSE(l.solution.empty()) << l.name;
        EXPECT_EQ(l.summary.rfind("Lesson ", 0), 0u) << l.name << ": " << l.summary;
    }
}
