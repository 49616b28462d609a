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

// A short explanation of an instruction (rich text), or empty when we have none for it.
QString hover_card(std::string_view word, CodeKind kind);

}  // namespace tpui
