// The JIT's compile cache: a second compile of the same launch comes from this process's memory,
// and after the memory is forgotten from the object file on disk (what a second `tilec run
// --device cpu` does); a changed kernel or other flags miss; a corrupt object is compiled again;
// TILEPLAY_JIT_CACHE=off keeps nothing on disk. Code from either cache gives the interpreter's
// results.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "interp/cpu_backend.h"
#include "jit_test_util.h"

using namespace tp;
using namespace tp::jit_test;
namespace fs = std::filesystem;

namespace {

const char* kScale = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def scale(N=1000, block=64, factor=3.0):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(N, block), threads=64) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    B[bx * block + i] = A[bx * block + i] * factor + 1.0

    return main
)";

class JitCache : public ::testing::Test {
protected:
    const TpJitApi* api = nullptr;
    fs::path dir;
    std::string saved;
    bool had_saved = false;

    void SetUp() override {
        require_jit();
        api = interp::cpu_jit(nullptr);
        ASSERT_NE(api, nullptr);
        dir = fs::temp_directory_path() / ("tileplay_jit_cache_test_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        if (const char* s = std::getenv("TILEPLAY_JIT_CACHE")) saved = s, had_saved = true;
        ::setenv("TILEPLAY_JIT_CACHE", dir.c_str(), 1);
        api->forget_kernels();
    }
    void TearDown() override {
        if (had_saved)
            ::setenv("TILEPLAY_JIT_CACHE", saved.c_str(), 1);
        else
            ::unsetenv("TILEPLAY_JIT_CACHE");
        if (api) api->forget_kernels();
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    // Compiles and releases `f`; returns where the code came from (0 compiled, 1 memory, 2 disk).
    int32_t compile_once(const ir::PrimFunc& f, int32_t flags = 1) {
        char reason[256] = {0};
        double ms = 0;
        int32_t cached = -1;
        void* k = api->compile(&f, flags, &ms, &cached, reason, sizeof reason);
        EXPECT_NE(k, nullptr) << reason;
        if (k) api->release(k);
        return cached;
    }

    size_t objects() const {
        size_t n = 0;
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) n += it->path().extension() == ".o";
        return n;
    }
};

TEST_F(JitCache, SecondCompileHitsMemoryThenDisk) {
    auto f = compile_ir(kScale, {});
    ASSERT_TRUE(f);
    EXPECT_EQ(compile_once(*f), 0);
    EXPECT_EQ(objects(), 1u);
    EXPECT_EQ(compile_once(*f), 1);
    api->forget_kernels();
    EXPECT_EQ(compile_once(*f), 2);
    // A run whose code came from disk gives the interpreter's bits.
    api->forget_kernels();
    Both r = run_both(f);
    expect_jit(r);
    expect_bitwise(r);
    EXPECT_EQ(objects(), 1u);
}

TEST_F(JitCache, AChangedKernelOrOtherFlagsMiss) {
    auto f3 = compile_ir(kScale, {{"factor", "3.0"}});
    auto f5 = compile_ir(kScale, {{"factor", "5.0"}});
    auto big = compile_ir(kScale, {{"N", "2000"}});
    ASSERT_TRUE(f3 && f5 && big);
    EXPECT_EQ(compile_once(*f3), 0);
    EXPECT_EQ(compile_once(*f5), 0);
    EXPECT_EQ(compile_once(*big), 0);
    EXPECT_EQ(compile_once(*f3, 3), 0);  // written-element tracking: other code
    EXPECT_EQ(objects(), 4u);
    EXPECT_EQ(compile_once(*f5), 1);
    Both r = run_both(f5);
    expect_jit(r);
    expect_bitwise(r);
}

TEST_F(JitCache, ACorruptObjectIsCompiledAgain) {
    auto f = compile_ir(kScale, {});
    ASSERT_TRUE(f);
    EXPECT_EQ(compile_once(*f), 0);
    for (const auto& e : fs::directory_iterator(dir)) std::ofstream(e.path(), std::ios::trunc) << "garbage";
    api->forget_kernels();
    EXPECT_EQ(compile_once(*f), 0);
    api->forget_kernels();
    EXPECT_EQ(compile_once(*f), 2);
    api->forget_kernels();
    Both r = run_both(f);
    expect_jit(r);
    expect_bitwise(r);
}

TEST_F(JitCache, OffKeepsNothingOnDisk) {
    ::setenv("TILEPLAY_JIT_CACHE", "off", 1);
    auto f = compile_ir(kScale, {{"factor", "7.0"}});
    ASSERT_TRUE(f);
    EXPECT_EQ(compile_once(*f), 0);
    EXPECT_EQ(compile_once(*f), 1);
    api->forget_kernels();
    EXPECT_EQ(compile_once(*f), 0);
    EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
