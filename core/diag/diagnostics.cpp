// Diagnostic registry lookups, formatting, rendering and the "did you mean" helper.
#include "tileplay/diagnostics.h"

#include <algorithm>
#include <sstream>

namespace tp {

namespace {
const DiagKindInfo kInfos[] = {
#define DIAG(Name, Sev, Fmt) {#Name, Severity::Sev, Fmt},
#include "diagnostic_kinds.def"
#undef DIAG
};

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}
}  // namespace

const DiagKindInfo& diag_info(DiagKind kind) { return kInfos[static_cast<int>(kind)]; }

std::vector<DiagKind> all_diag_kinds() {
    std::vector<DiagKind> v;
    for (int i = 0; i < static_cast<int>(DiagKind::Count_); ++i) v.push_back(static_cast<DiagKind>(i));
    return v;
}

const char* severity_name(Severity s) {
    switch (s) {
        case Severity::Note: return "note";
        case Severity::Warning: return "warning";
        case Severity::Error: return "error";
        case Severity::Remark: return "remark";
    }
    return "error";
}

std::string format_diag(DiagKind kind, const std::vector<std::string>& args) {
    std::string fmt = diag_info(kind).format, out;
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] == '{' && i + 2 < fmt.size() && isdigit(static_cast<unsigned char>(fmt[i + 1])) && fmt[i + 2] == '}') {
            size_t n = static_cast<size_t>(fmt[i + 1] - '0');
            if (n < args.size()) out += args[n];
            i += 2;
        } else {
            out += fmt[i];
        }
    }
    return out;
}

Diagnostic& DiagnosticEngine::report(DiagKind kind, Span span, std::vector<std::string> args) {
    Diagnostic d;
    d.kind = kind;
    d.severity = diag_info(kind).severity;
    d.message = format_diag(kind, args);
    d.file = file_ ? file_->path() : std::string();
    d.span = span;
    add(std::move(d));
    return diags_.back();
}

void DiagnosticEngine::add(Diagnostic d) {
    if (d.severity == Severity::Error) ++errors_;
    if (d.file.empty() && file_) d.file = file_->path();
    diags_.push_back(std::move(d));
}

std::string render_diagnostic(const Diagnostic& d, const SourceFile* file, bool color) {
    std::ostringstream os;
    const char* bold = color ? "\033[1m" : "";
    const char* reset = color ? "\033[0m" : "";
    const char* sev_color = !color ? "" : d.severity == Severity::Error ? "\033[1;31m"
                                        : d.severity == Severity::Warning ? "\033[1;35m" : "\033[1;36m";
    os << bold << (d.file.empty() ? "<input>" : d.file);
    if (d.span.valid()) os << ':' << d.span.begin.line << ':' << d.span.begin.col;
    os << ": " << reset << sev_color << severity_name(d.severity) << ": " << reset << bold << d.message << reset
       << " [" << diag_info(d.kind).name << "]\n";
    if (file && d.span.valid() && (d.file.empty() || d.file == file->path())) {
        std::string_view line = file->line(d.span.begin.line);
        if (!line.empty() || d.span.begin.line <= file->line_count()) {
            os << line << '\n';
            std::string caret;
            uint32_t col = d.span.begin.col ? d.span.begin.col : 1;
            for (uint32_t i = 1; i < col && i - 1 < line.size(); ++i) caret += line[i - 1] == '\t' ? '\t' : ' ';
            caret += '^';
            uint32_t end = d.span.end.line == d.span.begin.line ? d.span.end.col : static_cast<uint32_t>(line.size() + 1);
            for (uint32_t c = col + 1; c < end && c <= line.size(); ++c) caret += '~';
            os << (color ? "\033[1;32m" : "") << caret << reset << '\n';
        }
    }
    for (const auto& n : d.notes) os << render_diagnostic(n, file, color);
    return os.str();
}

std::string render_diagnostics(const std::vector<Diagnostic>& ds, const SourceFile* file, bool color) {
    std::string s;
    for (const auto& d : ds) s += render_diagnostic(d, file, color);
    return s;
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
    std::string best;
    size_t best_d = std::string::npos;
    for (const auto& c : candidates) {
        size_t d = edit_distance(word, c);
        if (d < best_d) best_d = d, best = c;
    }
    size_t limit = std::max<size_t>(1, word.size() / 3);
    return best_d <= limit && best_d > 0 ? best : std::string();
}

}  // namespace tp
