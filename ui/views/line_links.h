// Links between the DSL text and the code generated from it: each CUDA, PTX and SASS line maps
// to a DSL line (from CompileResult's line maps), and this index answers the reverse question
// (which generated lines came from DSL line N) so a caret move in any view can highlight the
// linked lines in all the others. Widget-free; tested on golden texts.
#pragma once

#include <array>
#include <map>
#include <vector>

#include "tileplay/compiler.h"

namespace tpui {

enum class LinkedView { Dsl = 0, Cuda = 1, Ptx = 2, Sass = 3 };
constexpr int kLinkedViewCount = 4;

class LineLinks {
public:
    void set_map(LinkedView v, const tp::LineMap& m);
    void clear();

    // DSL line of a (1-based) line of view v; the line itself for Dsl; 0 when unmapped.
    int dsl_line(LinkedView v, int line) const;
    // Lines of view v generated from DSL line `dsl` (for Dsl: {dsl} when anything maps to it).
    std::vector<int> lines_for(LinkedView v, int dsl) const;
    // Lines of view `to` linked to line `line` of view `from`.
    std::vector<int> linked(LinkedView from, int line, LinkedView to) const;
    // DSL lines that some generated line maps to (for colouring the editor).
    std::vector<int> mapped_dsl_lines() const;

private:
    std::array<tp::LineMap, kLinkedViewCount> maps_;
    std::array<std::map<int, std::vector<int>>, kLinkedViewCount> reverse_;
};

// The CUDA text without its `#line` directives (every other line of generated code; the links
// carry what they said), with the line map renumbered to match.
struct StrippedCuda {
    std::string text;
    tp::LineMap lines;
};
StrippedCuda strip_line_directives(const std::string& cuda, const tp::LineMap& lines);

// Reads `nvdisasm -g` output: `//## File "x.py", line N` comments give the DSL line of the
// instructions after them (only comments naming dsl_path's file name count).
tp::LineMap sass_line_map(const std::string& sass, const std::string& dsl_path);

}  // namespace tpui
