// Reading a DSL file with a bound: /dev/zero, a multi-gigabyte log or a stray binary given
// as a kernel file is refused after kMaxSourceBytes instead of being read (and tokenized)
// whole. The CLI, compile() and the tuner read sources through this.
#pragma once

#include <cstddef>
#include <string>

namespace tp {

// The largest DSL file taken (TileLang's biggest example is ~60 KB).
constexpr size_t kMaxSourceBytes = size_t{8} << 20;

// Reads `path` into `out`, stopping once more than kMaxSourceBytes have been read, so
// out.size() > kMaxSourceBytes means "too large". False with `why` when the file cannot be
// read (missing, a directory, no permission).
bool read_source_file(const std::string& path, std::string& out, std::string* why = nullptr);

// The error for a source over the limit: "the source is too large: ..." (SizeTooLarge).
std::string source_too_large_message();

}  // namespace tp
