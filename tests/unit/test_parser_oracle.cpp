// CPython as the oracle: for every .py file of tests/frontend/Inputs (and, when the
// TILEPLAY_TILELANG_EXAMPLES environment variable names a directory, every TileLang example),
// our ast::dump(module, false) must equal python3's `ast.dump(ast.parse(source))` exactly.
// Files python3 cannot parse (3.12-only syntax) must still parse here without diagnostics.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include "frontend/parser.h"

using namespace tp;
namespace fs = std::filesystem;

namespace {

bool have_python() { return std::system("python3 -c 'import ast' >/dev/null 2>&1") == 0; }

// One python3 run dumps every file under `dir`: lines "=== <path>" then the dump or "!!! <error>".
std::map<std::string, std::string> oracle_dumps(const fs::path& dir) {
    fs::path script = fs::temp_directory_path() / ("tileplay_oracle_" + std::to_string(::getpid()) + ".py");
    {
        std::ofstream out(script);
        out << "import ast, pathlib, sys\n"
               "for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):\n"
               "    try:\n"
               "        d = ast.dump(ast.parse(p.read_bytes()))\n"
               "    except Exception as e:\n"
               "        d = '!!! ' + type(e).__name__\n"
               "    print('=== ' + str(p))\n"
               "    print(d)\n";
    }
    std::map<std::string, std::string> result;
    std::string cmd = "python3 '" + script.string() + "' '" + dir.string() + "'";
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return result;
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
    pclose(pipe);
    fs::remove(script);
    std::istringstream in(text);
    std::string line, path;
    while (std::getline(in, line)) {
        if (line.rfind("=== ", 0) == 0) path = line.substr(4);
        else if (!path.empty()) result[path] = line;
    }
    return result;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Returns the number of files compared; failures are reported through gtest.
int check_directory(const fs::path& dir, bool require_oracle) {
    auto expected = oracle_dumps(dir);
    EXPECT_FALSE(expected.empty()) << "no .py files (or no python3 output) under " << dir;
    int compared = 0;
    for (const auto& [path, want] : expected) {
        auto file = SourceFile::from_string(path, read_file(path));
        DiagnosticEngine diags(file);
        auto module = frontend::parse_module(file, diags);
        if (!module) {
            ADD_FAILURE() << path << " does not parse:\n" << render_diagnostics(diags.diagnostics(), file.get());
            continue;
        }
        if (want.rfind("!!! ", 0) == 0) {
            EXPECT_FALSE(require_oracle) << path << ": python3 cannot parse it (" << want << ")";
            continue;
        }
        std::string got = ast::dump(*module, false);
        if (got != want) {
            size_t i = 0;
            while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
            size_t from = i > 80 ? i - 80 : 0;
            ADD_FAILURE() << path << ": dump differs from CPython at char " << i << "\n  ours:    ..."
                          << got.substr(from, 200) << "\n  cpython: ..." << want.substr(from, 200);
        }
        ++compared;
    }
    return compared;
}

}  // namespace

TEST(ParserOracle, GrammarInputsMatchCPython) {
    if (!have_python()) GTEST_SKIP() << "python3 is not available";
    fs::path dir = fs::path(TILEPLAY_SOURCE_DIR) / "tests/frontend/Inputs";
    int n = check_directory(dir, true);
    EXPECT_GE(n, 5);
}

TEST(ParserOracle, TileLangExamplesMatchCPython) {
    const char* env = std::getenv("TILEPLAY_TILELANG_EXAMPLES");
    if (!env || !fs::is_directory(env)) GTEST_SKIP() << "set TILEPLAY_TILELANG_EXAMPLES to a TileLang examples dir";
    if (!have_python()) GTEST_SKIP() << "python3 is not available";
    int n = check_directory(env, false);
    std::printf("compared %d TileLang example files with CPython\n", n);
    EXPECT_GT(n, 0);
}
