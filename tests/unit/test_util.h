// Shared by the unit tests that build Tile IR by hand or read a sample (test_interp*.cpp,
// test_striped_layout.cpp, test_pipeline_view.cpp, test_robustness_inputs.cpp) or check that a
// pass keeps what a kernel computes (test_unstage_shared.cpp, test_drop_redundant_copies.cpp): one definition of
// each small constructor, because the unity build puts several test files in one translation
// unit, where two same-named helpers in anonymous namespaces would clash.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ir/ir.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"

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

// The Tile IR of `kernel` (empty: the file's first) in DSL text `src` named `path`.
inline ir::PrimFuncPtr compile_text_ir(const std::string& src, const std::string& path, const std::string& kernel,
                                       std::vector<std::pair<std::string, std::string>> defines) {
    CompileRequest req;
    req.path = path;
    req.source = src;
    req.kernel = kernel;
    req.defines = std::move(defines);
    req.stop_after = Stage::Ir;
    CompileResult r = compile(req);
    EXPECT_TRUE(r.ok) << r.render_diagnostics();
    return r.func;
}

// The Tile IR of `kernel` in the source tree's file `rel` (tests/transform/<pass>.py).
inline ir::PrimFuncPtr compile_source_ir(const std::string& rel, const std::string& kernel,
                                         std::vector<std::pair<std::string, std::string>> defines) {
    std::ifstream in(std::string(TILEPLAY_SOURCE_DIR) + "/" + rel, std::ios::binary);
    std::string src(std::istreambuf_iterator<char>(in), (std::istreambuf_iterator<char>()));
    return compile_text_ir(src, rel.substr(rel.find_last_of('/') + 1), kernel, std::move(defines));
}

// Runs `f` and `g` (f after a pass) on the interpreter from the same seeded inputs and expects
// every tensor to match bit for bit.
inline void expect_same_cpu_outputs(const ir::PrimFunc& f, const ir::PrimFunc& g, const std::string& pass) {
    std::map<std::string, HostTensor> a, b;
    EXPECT_TRUE(allocate_args(f, 5, {}, a, nullptr));
    EXPECT_TRUE(allocate_args(g, 5, {}, b, nullptr));
    InterpReport ra = run_on_cpu(f, a), rb = run_on_cpu(g, b);
    EXPECT_TRUE(ra.ok) << ra.error;
    EXPECT_TRUE(rb.ok) << rb.error;
    for (const auto& [name, t] : a) {
        EXPECT_TRUE(b.count(name)) << name;
        if (b.count(name)) {
            EXPECT_EQ(t.bytes, b.at(name).bytes) << "tensor " << name << " differs after " << pass;
        }
    }
}

}  // namespace tp::test_util
