// Marker numbers shared by the editor and the code views: Scintilla has 32 markers per view
// (25..31 are taken by folding), so link colours, diagnostics and the caret link get fixed slots.
#pragma once

#include "theme.h"

namespace tpui::marks {

constexpr int kError = 0;
constexpr int kWarning = 1;
constexpr int kNote = 2;
constexpr int kLinkFirst = 3;                          // link colours: kLinkFirst + line % count
constexpr int kLinked = kLinkFirst + kLinkColorCount;  // 23: lines linked to the caret
constexpr int kLinkedArrow = kLinked + 1;              // 24: arrow in the symbol margin

constexpr int kIndError = 8;  // squiggle indicators (0..7 belong to lexers)
constexpr int kIndWarning = 9;
constexpr int kIndNote = 10;
constexpr int kIndFind = 11;

inline int link_marker(int dsl_line) { return kLinkFirst + dsl_line % kLinkColorCount; }

}  // namespace tpui::marks
