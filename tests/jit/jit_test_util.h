// Helpers of the JIT tests: compile DSL text to Tile IR, run it on the JIT and on the
// interpreter from the same seeded inputs, and compare the tensors bit for bit or within the
// dtype's tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>

#include "ir/ir.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"
#include "../unit/test_util.h"

namespace tp::jit_test {

// The text of the file at `p` (a sample, a lesson).
inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void require_jit() {
    std::string what;
    ASSERT_TRUE(cpu_jit_available(&what)) << what;
}

inline std::shared_ptr<const ir::PrimFunc> compile_ir(const std::string& src, std::vector<std::pair<std::string, std::string>> defines,
                                                      const std::string& path = "dsl.py") {
    return test_util::compile_text_ir(src, path, "", std::move(defines));
}

struct Both {
    InterpReport jit, interp;
    std::map<std::string, HostTensor> jit_args, interp_args;
};

inline Both run_both(const std::shared_ptr<const ir::PrimFunc>& f, const std::function<void(InterpOptions&)>& tweak = nullptr,
                     const std::map<std::string, int64_t>& symbols = {}) {
    Both r;
    if (!f) return r;
    std::string err;
    EXPECT_TRUE(allocate_args(*f, 7, symbols, r.interp_args, &err)) << err;
    r.jit_args = r.interp_args;
    InterpOptions oi, oj;
    if (tweak) tweak(oi), tweak(oj);
    oj.engine = CpuEngine::Auto;
    r.interp = run_on_cpu(*f, r.interp_args, oi);
    r.jit = run_on_cpu(*f, r.jit_args, oj);
    return r;
}

inline void expect_jit(const Both& r) {
    EXPECT_EQ(r.jit.engine, "jit") << "fell back: " << r.jit.jit_note;
    EXPECT_TRUE(r.jit.ok) << r.jit.error;
    EXPECT_TRUE(r.interp.ok) << r.interp.error;
    EXPECT_EQ(r.jit.grid, r.interp.grid);
    EXPECT_EQ(r.jit.blocks_run, r.interp.blocks_run);
}

// Equal values with equal signs (so -0 and +0 differ); any NaN equals any NaN.
inline bool same_value(double a, double b) {
    if (a != a || b != b) return a != a && b != b;
    return a == b && std::signbit(a) == std::signbit(b);
}

inline void expect_bitwise(const Both& r) {
    for (const auto& [name, t] : r.interp_args) {
        const HostTensor& j = r.jit_args.at(name);
        ASSERT_EQ(j.bytes.size(), t.bytes.size()) << name;
        int64_t first = -1;
        for (int64_t i = 0; i < t.numel() && first < 0; ++i)
            if (!same_value(t.get(i), j.get(i))) first = i;
        EXPECT_EQ(first, -1) << "`" << name << "` differs first at element " << first << ": interpreter " << t.get(first) << ", JIT " << j.get(first);
    }
}

inline void expect_close(const Both& r) {
    for (const auto& [name, t] : r.interp_args) {
        CompareResult c = compare_tensors(r.jit_args.at(name), t);
        EXPECT_TRUE(c.pass) << "`" << name << "` rel_fro=" << c.rel_fro << " max_abs=" << c.max_abs << " tol=" << c.tol;
    }
}

}  // namespace tp::jit_test
