// Shared by the unit tests that build Tile IR by hand or read a sample (test_interp*.cpp,
// test_striped_layout.cpp, test_pipeline_view.cpp, test_robustness_inputs.cpp): one definition of
// each small constructor, because the unity build puts several test files in one translation
// unit, where two same-named helpers in anonymous namespaces would clash.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tp::test_util {

// A span on `line`, columns 5 to 20, for diagnostics that name a DSL line.
inline Span at_line(uint32_t line) { return Span{{line, 5}, {line, 20}}; }

inline ir::Buffer buf(const std::string& name, ir::DataType t, std::vector<int64_t> shape, ir::Scope scope) {
    std::vector<ir::Expr> sh;
    for (auto d : shape) sh.push_back(ir::int_imm(d));
    return std::make_shared<ir::BufferNode>(name, t, sh, scope, Span{});
}

// The region covering all of `b`.
inline ir::BufferRegion whole(const ir::Buffer& b) {
    ir::BufferRegion r{b, {}};
    for (const auto& d : b->shape) r.region.push_back({ir::int_imm(0), d});
    return r;
}

// The text of samples/<name>.
inline std::string read_sample(const std::string& name) {
    std::ifstream in(std::string(TILEPLAY_SOURCE_DIR) + "/samples/" + name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace tp::test_util
