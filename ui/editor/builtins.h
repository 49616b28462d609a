// The T.* builtins the editor highlights and completes, with a call signature and one line
// saying what each does (in our own words).
#pragma once

#include <QString>
#include <vector>

namespace tpui {

struct Builtin {
    const char* name;       // "gemm"
    const char* signature;  // "(A, B, C, transpose_A=False, transpose_B=False, policy=None)"
    const char* doc;
};

const std::vector<Builtin>& dsl_builtins();
const Builtin* find_builtin(const QString& name);
// Space-separated names for the lexer's highlighted-identifier keyword set.
QString builtin_keyword_list();

}  // namespace tpui
