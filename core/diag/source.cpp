// Line index for SourceFile.
#include "tileplay/source.h"

namespace tp {

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
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

}  // namespace tp
