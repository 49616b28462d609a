// Front end entry points: Python 3.12 source -> tokens -> AST. Syntax errors are reported to
// the DiagnosticEngine with their span; parsing never throws on bad input.
#pragma once

#include "frontend/ast.h"
#include "frontend/token.h"
#include "tileplay/diagnostics.h"

namespace tp::frontend {

// Tokenizes a whole file (INDENT/DEDENT/NEWLINE included, ends with ENDMARKER).
std::vector<Token> tokenize(const SourceFile& file, DiagnosticEngine& diags);

// Parses a whole module. On syntax errors returns nullptr with diagnostics reported.
ast::ModulePtr parse_module(SourceFilePtr file, DiagnosticEngine& diags);

// parse_module for a module the compiled file imports from its folder: every node takes the
// span `at` (the import statement), because the module's own lines are not lines of the file
// diagnostics and line maps point into, so its code is reported at the import.
ast::ModulePtr parse_module_pinned(SourceFilePtr file, Span at, DiagnosticEngine& diags);

// Parses a single expression (used for -D values and sample-header formulas).
ast::ExprPtr parse_expression(SourceFilePtr file, DiagnosticEngine& diags);

}  // namespace tp::frontend
