// User-facing diagnostics: one registry of kinds (core/diag/diagnostic_kinds.def), a
// Diagnostic value that travels in CompileResult, and the renderer that prints
// `file:line:col: error: message [Kind]` with the source line and a caret.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "tileplay/source.h"

namespace tp {

// Remark: what an optimization did not do and why (a fast path refused at a line); shown with
// `tilec compile --remarks` and as notes in the playground, never counted as a problem.
enum class Severity { Note, Warning, Error, Remark };

enum class DiagKind : int {
#define DIAG(Name, Sev, Fmt) Name,
#include "../../diag/diagnostic_kinds.def"
#undef DIAG
    Count_
};

struct DiagKindInfo {
    const char* name;
    Severity severity;
    const char* format;  // placeholders {0}, {1}, ... filled by format_diag
};

const DiagKindInfo& diag_info(DiagKind kind);
std::vector<DiagKind> all_diag_kinds();
const char* severity_name(Severity s);

struct Diagnostic {
    DiagKind kind{};
    Severity severity = Severity::Error;
    std::string message;  // already formatted
    std::string file;
    Span span;
    std::vector<Diagnostic> notes;  // attached notes (e.g. "declared here")
};

// Fills {0}, {1}... of the kind's format with args.
std::string format_diag(DiagKind kind, const std::vector<std::string>& args);

// Collects diagnostics for one compile. Not thread-safe; one per compile.
class DiagnosticEngine {
public:
    explicit DiagnosticEngine(SourceFilePtr file = nullptr) : file_(std::move(file)) {}
    Diagnostic& report(DiagKind kind, Span span, std::vector<std::string> args = {});
    void add(Diagnostic d);
    bool has_errors() const { return errors_ > 0; }
    int error_count() const { return errors_; }
    const std::vector<Diagnostic>& diagnostics() const { return diags_; }
    std::vector<Diagnostic> take() { return std::move(diags_); }
    const SourceFilePtr& file() const { return file_; }
    void set_file(SourceFilePtr f) { file_ = std::move(f); }

private:
    SourceFilePtr file_;
    std::vector<Diagnostic> diags_;
    int errors_ = 0;
};

// Renders one diagnostic (and its notes) like clang: header line, source line, caret.
std::string render_diagnostic(const Diagnostic& d, const SourceFile* file, bool color = false);
std::string render_diagnostics(const std::vector<Diagnostic>& ds, const SourceFile* file, bool color = false);

// Thrown for a user error deep inside evaluation; caught at the compile() boundary and turned
// into a Diagnostic. Never escapes the public API.
struct UserError : std::runtime_error {
    Diagnostic diag;
    explicit UserError(Diagnostic d) : std::runtime_error(d.message), diag(std::move(d)) {}
};

// A compiler bug (an invariant broken), reported with where it happened. The CLI exits 3.
struct InternalError : std::runtime_error {
    std::string file;
    int line;
    std::string pass;
    InternalError(std::string msg, std::string file_, int line_, std::string pass_ = {})
        : std::runtime_error(std::move(msg)), file(std::move(file_)), line(line_), pass(std::move(pass_)) {}
};

#define TP_ICHECK(cond, msg)                                                         \
    do {                                                                             \
        if (!(cond)) throw ::tp::InternalError(std::string("check failed: ") + #cond + \
                                                   ": " + (msg), __FILE__, __LINE__); \
    } while (0)

// Suggests the closest candidate within a small edit distance, or "" when none is close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace tp
