// CodeLexer: styles whole lines (the views are read-only, so lines never change under us).
#include "views/code_lexer.h"

#include <Qsci/qsciscintilla.h>
#include <cctype>
#include <set>
#include <string>

namespace tpui {

namespace {

const std::set<std::string_view>& cuda_keywords() {
    static const std::set<std::string_view> k = {
        "extern", "__global__", "__device__", "__shared__", "__forceinline__", "__restrict__", "__launch_bounds__",
        "const", "constexpr", "static", "inline", "void", "int", "unsigned", "float", "double", "bool", "char", "half",
        "half_t", "bfloat16_t", "uint", "int64_t", "uint32_t", "int32_t", "uint64_t", "for", "if", "else", "while",
        "return", "struct", "template", "typename", "asm", "volatile", "auto", "namespace", "using", "true", "false",
        "__syncthreads", "threadIdx", "blockIdx", "blockDim", "gridDim", "signed", "long", "short", "break", "continue"};
    return k;
}

const std::set<std::string_view>& ir_keywords() {
    static const std::set<std::string_view> k = {"for", "if", "else", "let", "allocate", "kernel", "parallel", "serial",
                                                 "pipelined", "unroll", "in", "func", "attr", "buffer", "return"};
    return k;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

}  // namespace

CodeLexer::CodeLexer(CodeKind kind, QObject* parent) : QsciLexerCustom(parent), kind_(kind) {}

QString CodeLexer::description(int style) const {
    static const char* names[] = {"Default", "Comment", "Directive", "Register", "Number", "Keyword", "String", "Opcode",
                                  "Tensor Core", "Async copy", "Barrier", "Matrix load"};
    return style >= 0 && style < StyleCount ? QString::fromLatin1(names[style]) : QString();
}

std::vector<int> CodeLexer::style_line(std::string_view line, CodeKind kind) {
    std::vector<int> st(line.size(), Default);
    size_t n = line.size();
    size_t i = 0;
    while (i < n && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (kind == CodeKind::Cuda && i < n && line[i] == '#') {
        std::fill(st.begin() + long(i), st.end(), int(Directive));
        return st;
    }
    bool opcode_seen = false;
    while (i < n) {
        char c = line[i];
        bool comment = (kind == CodeKind::Ir && c == '#') || (c == '/' && i + 1 < n && line[i + 1] == '/');
        if (comment) {
            std::fill(st.begin() + long(i), st.end(), int(Comment));
            break;
        }
        if (c == '/' && i + 1 < n && line[i + 1] == '*') {  // SASS addresses, C comments
            size_t e = line.find("*/", i + 2);
            e = e == std::string_view::npos ? n : e + 2;
            std::fill(st.begin() + long(i), st.begin() + long(e), int(Comment));
            i = e;
            continue;
        }
        if (c == '"') {
            size_t e = i + 1;
            while (e < n && line[e] != '"') e += line[e] == '\\' ? 2 : 1;
            e = std::min(n, e + 1);
            std::fill(st.begin() + long(i), st.begin() + long(e), int(String));
            i = e;
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) && (i == 0 || !word_char(line[i - 1]))) {
            size_t e = i;
            while (e < n && (std::isalnum(static_cast<unsigned char>(line[e])) || line[e] == '.')) ++e;
            std::fill(st.begin() + long(i), st.begin() + long(e), int(Number));
            i = e;
            continue;
        }
        if (c == '%' || c == '.' || word_char(c)) {
            size_t e = i + 1;
            while (e < n && (word_char(line[e]) || line[e] == '.')) ++e;
            std::string_view w = line.substr(i, e - i);
            int s = Default;
            if (c == '%') s = Register;
            else if (c == '.' && kind == CodeKind::Ptx) s = Directive;
            else if (kind == CodeKind::Sass && w.size() >= 2 &&
                     (((w[0] == 'R' || w[0] == 'P' || w[0] == 'B') && std::isdigit(static_cast<unsigned char>(w[1]))) ||
                      w == "RZ" || w == "PT" || w.substr(0, 2) == "UR" || w.substr(0, 2) == "UP" || w.substr(0, 2) == "SR"))
                s = Register;
            else if (kind == CodeKind::Cuda && cuda_keywords().count(w)) s = Keyword;
            else if (kind == CodeKind::Ir && ir_keywords().count(w)) s = Keyword;
            else if ((kind == CodeKind::Ptx || kind == CodeKind::Sass) && !opcode_seen && w.back() != ':' && w[0] != '@')
                s = Opcode, opcode_seen = true;
            std::fill(st.begin() + long(i), st.begin() + long(e), s);
            i = e;
            continue;
        }
        if (c == '@' && (kind == CodeKind::Ptx || kind == CodeKind::Sass)) {  // predicate guard
            size_t e = i + 1;
            while (e < n && (word_char(line[e]) || line[e] == '!' || line[e] == '%')) ++e;
            std::fill(st.begin() + long(i), st.begin() + long(e), int(Register));
            i = e;
            continue;
        }
        if (c == ';' || c == '{' || c == '}') opcode_seen = false;
        ++i;
    }
    for (const auto& h : find_tokens(line, kind))
        std::fill(st.begin() + h.start, st.begin() + h.start + h.length, int(ClassTensorCore) + int(h.cls) - 1);
    return st;
}

void CodeLexer::styleText(int start, int end) {
    QsciScintilla* ed = editor();
    if (!ed || end <= start) return;
    // Restyle from the start of the first line so a line's styles never depend on where Scintilla cut.
    long line0 = ed->SendScintilla(QsciScintillaBase::SCI_LINEFROMPOSITION, start);
    start = int(ed->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMLINE, line0));
    // bytes() may carry the text range's terminating NUL: style exactly end - start bytes.
    QByteArray bytes = ed->bytes(start, end).left(end - start);
    startStyling(start);
    int pos = 0;
    while (pos < bytes.size()) {
        int nl = bytes.indexOf('\n', pos);
        int stop = nl < 0 ? int(bytes.size()) : nl;
        std::vector<int> st = style_line(std::string_view(bytes.constData() + pos, size_t(stop - pos)), kind_);
        int k = 0;
        while (k < int(st.size())) {
            int s = st[size_t(k)], run = 1;
            while (k + run < int(st.size()) && st[size_t(k + run)] == s) ++run;
            setStyling(run, s);
            k += run;
        }
        if (nl >= 0) setStyling(1, Default);
        pos = stop + 1;
    }
}

void CodeLexer::apply_theme(const Theme& t, const QFont& font) {
    setDefaultFont(font);
    setDefaultPaper(t.base);
    setDefaultColor(t.text);
    QFont bold = font;
    bold.setBold(true);
    QColor colours[StyleCount] = {t.text, t.comment, t.directive, t.reg, t.number, t.keyword, t.string, t.builtin,
                                  t.tensor_core, t.async_copy, t.barrier, t.matrix_load};
    for (int s = 0; s < StyleCount; ++s) {
        setColor(colours[s], s);
        setPaper(t.base, s);
        setFont(s >= ClassTensorCore ? bold : font, s);
    }
}

}  // namespace tpui
