// Token classes of generated code (Tensor Core, async copy, barriers, matrix loads): finds
// them in CUDA, PTX and SASS lines, counts them, and explains instructions in hover cards.
// Widget-free so it is tested on golden texts without a display.
#pragma once

#include <QString>
#include <array>
#include <string_view>
#include <vector>

namespace tpui {

enum class CodeKind { Cuda, Ptx, Sass, Ir };

enum class TokenClass { None, TensorCore, AsyncCopy, Barrier, MatrixLoad };
constexpr int kTokenClassCount = 4;  // classes after None

const char* token_class_name(TokenClass c);  // "Tensor Core", "async copy", ...

struct TokenHit {
    int start = 0;   // byte offset in the line
    int length = 0;  // bytes
    TokenClass cls = TokenClass::None;
    std::string_view word;  // the whole dotted word, e.g. "mma.sync.aligned.m16n8k16"
};

// Classifies one dotted word such as "cp.async.cg.shared.global" or "HMMA.16816.F32".
TokenClass classify_word(std::string_view word, CodeKind kind);

// Every classified word in a line; comments (`//`) are skipped.
std::vector<TokenHit> find_tokens(std::string_view line, CodeKind kind);

// Occurrences per class over a whole text (index = int(TokenClass) - 1).
using ClassCounts = std::array<int, kTokenClassCount>;
ClassCounts count_tokens(std::string_view text, CodeKind kind);

// The dotted word under a byte column, or empty.
std::string_view word_at(std::string_view line, int col);

// What a hover card says about one instruction: our own words, per instruction class.
struct HoverCard {
    QString title;  // "Warp-level matrix multiply-accumulate"
    QString cls;    // token class name ("Tensor Core"), empty for unclassified instructions
    QString word;   // the whole dotted word under the mouse
    QString text;   // the explanation
    bool empty() const { return title.isEmpty(); }
    QString html() const;  // the tooltip's rich text
};

// The card for one dotted word (longest matching prefix), or an empty card.
HoverCard hover_card_for(std::string_view word, CodeKind kind);

// The card for the byte column `col` of `line`: nothing inside comments (`//`, SASS's
// `/*0040*/` addresses) or on registers (`%r1`), so a hover only explains real instructions.
HoverCard hover_card_at(std::string_view line, int col, CodeKind kind);

// hover_card_for(word, kind).html(), or empty when we have no card for it.
QString hover_card(std::string_view word, CodeKind kind);

}  // namespace tpui
