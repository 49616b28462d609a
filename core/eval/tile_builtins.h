// The registry of TileLang `T.*` functions the evaluator understands: one entry per name with
// its signature text and a one-line doc. Backs `tilec reference`, editor completion and the
// "did you mean" hints of UnknownTileFunction.
#pragma once

#include <string>
#include <vector>

namespace tp::eval {

struct TileBuiltinInfo {
    std::string name;       // without the `T.` prefix: "copy", "gemm", "float16"
    std::string signature;  // "T.copy(src, dst, *, coalesced_width=None, disable_tma=False)"
    std::string doc;        // one line
    std::string category;   // "kernel", "memory", "loop", "tile op", "math", "dtype", "type"
};

// Every T.* name, sorted by category then name.
std::vector<TileBuiltinInfo> tile_builtins();

}  // namespace tp::eval
