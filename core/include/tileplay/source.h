// Source files and spans: every AST node, IR node and diagnostic points back into the DSL
// text through these, so the UI can link lines and errors can show a caret.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

// 1-based line and column (columns count bytes). end is one past the last character.
struct SourceLoc {
    uint32_t line = 0;
    uint32_t col = 0;
    bool valid() const { return line != 0; }
    friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

struct Span {
    SourceLoc begin;
    SourceLoc end;
    bool valid() const { return begin.valid(); }
    friend bool operator==(const Span&, const Span&) = default;
};

// Immutable text of one file plus a line index. Shared by the AST and diagnostics.
class SourceFile {
public:
    SourceFile(std::string path, std::string text);
    static std::shared_ptr<const SourceFile> from_string(std::string path, std::string text) {
        return std::make_shared<const SourceFile>(std::move(path), std::move(text));
    }
    const std::string& path() const { return path_; }
    const std::string& text() const { return text_; }
    size_t line_count() const { return line_starts_.size(); }
    // Text of a 1-based line without its newline; empty when out of range.
    std::string_view line(uint32_t line) const;
    // Byte offset of a location; text().size() when out of range.
    size_t offset(SourceLoc loc) const;

private:
    std::string path_;
    std::string text_;
    std::vector<size_t> line_starts_;
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

}  // namespace tp
