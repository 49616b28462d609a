// Line index for SourceFile.
#include "tileplay/source.h"
#include "tileplay/source_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tp {

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
    // Python reads source with universal newlines: a lone CR (old Mac files) ends a line like
    // LF. Rewriting it in place keeps every offset and length, so spans still match the
    // editor's text; CRLF stays as it is (the tokenizer and line() handle it).
    for (size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\r' && (i + 1 == text_.size() || text_[i + 1] != '\n')) text_[i] = '\n';
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n' && i + 1 < text_.size()) line_starts_.push_back(i + 1);
}

std::string_view SourceFile::line(uint32_t line) const {
    if (line == 0 || line > line_starts_.size()) return {};
    size_t b = line_starts_[line - 1];
    size_t e = text_.find('\n', b);
    if (e == std::string::npos) e = text_.size();
    if (e > b && text_[e - 1] == '\r') --e;
    return std::string_view(text_).substr(b, e - b);
}

size_t SourceFile::offset(SourceLoc loc) const {
    if (loc.line == 0 || loc.line > line_starts_.size()) return text_.size();
    size_t o = line_starts_[loc.line - 1] + (loc.col ? loc.col - 1 : 0);
    return o > text_.size() ? text_.size() : o;
}

std::string source_too_large_message() {
    return "over " + std::to_string(kMaxSourceBytes) + " bytes, the limit for a DSL file; is it a text file?";
}

bool read_source_file(const std::string& path, std::string& out, std::string* why) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        if (why) *why = std::strerror(errno);
        return false;
    }
    // Read at most one byte past the limit: /dev/zero or a multi-gigabyte file is refused
    // after kMaxSourceBytes, not read to the end (or forever).
    out.clear();
    char buf[1 << 16];
    size_t n = 0;
    while (out.size() <= kMaxSourceBytes &&
           (n = std::fread(buf, 1, std::min(sizeof buf, kMaxSourceBytes + 1 - out.size()), f)) > 0)
        out.append(buf, n);
    bool failed = std::ferror(f) != 0;
    int err = errno;
    std::fclose(f);
    if (failed) {
        if (why) *why = std::strerror(err);
        return false;
    }
    return true;
}

}  // namespace tp
