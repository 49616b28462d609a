// Limits on the JSON lines the worker and its client exchange. nlohmann's dump and some
// traversals recurse once per nesting level, so a request whose `id` or define is nested
// 100,000 deep would overflow the stack; lines are measured before they are parsed.
#pragma once

#include <cstddef>
#include <string>

namespace tp::worker {

constexpr size_t kMaxJsonDepth = 64;

// Deepest nesting of `[` / `{` in `line`, outside string literals (escapes honoured). Stops
// counting once past `limit` and returns limit + 1.
size_t json_nesting(const std::string& line, size_t limit = kMaxJsonDepth);

}  // namespace tp::worker
