// Issue 18, the inputs that are not kernels: CR-only line endings read like Python reads
// them, endless or huge files are refused after a bounded read, hostile header formulas
// end in "cannot evaluate" instead of a stack overflow, a directory where a tune-cache
// entry belongs is a miss, and a kernel loop's variable used after its loop is located.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tensor/npy.h"
#include "tileplay/compiler.h"
#include "tileplay/sample_header.h"
#include "tileplay/source_reader.h"
#include "tileplay/tune.h"
#include "test_util.h"

namespace fs = std::filesystem;

using tp::test_util::read_sample;

namespace {

tp::CompileResult compile_text(const std::string& src, tp::Stage stop = tp::Stage::Cuda,
                               std::vector<std::pair<std::string, std::string>> defines = {}) {
    tp::CompileRequest req;
    req.defines = std::move(defines);
    req.path = "k.py";
    req.source = src;
    req.target = "sm_80";
    req.stop_after = stop;
    return tp::compile(req);
}

std::string first_kind(const tp::CompileResult& r) {
    return r.diagnostics.empty() ? "" : tp::diag_info(r.diagnostics[0].kind).name;
}

}  // namespace

TEST(Inputs, CrOnlyLineEndingsCompileLikeLf) {
    std::string lf = read_sample("vector_add.py"), cr = lf;
    std::replace(cr.begin(), cr.end(), '\n', '\r');
    tp::CompileResult a = compile_text(lf, tp::Stage::Cuda, {{"N", "4096"}});
    tp::CompileResult b = compile_text(cr, tp::Stage::Cuda, {{"N", "4096"}});
    ASSERT_TRUE(a.ok) << a.render_diagnostics();
    ASSERT_TRUE(b.ok) << b.render_diagnostics();
    EXPECT_EQ(a.cuda, b.cuda);
    EXPECT_EQ(tp::parse_sample_header(cr).kernel, "vector_add");
    EXPECT_EQ(tp::parse_sample_header(cr).cpu_args, tp::parse_sample_header(lf).cpu_args);
    // Errors in a CR-only file are on the right line.
    tp::CompileResult e = compile_text("x = 1\rdef f(:\r    pass\r");
    ASSERT_FALSE(e.ok);
    EXPECT_EQ(e.diagnostics.at(0).span.begin.line, 2u);
}

TEST(Inputs, OversizedSourceIsRefusedBeforeTokenizing) {
    auto t0 = std::chrono::steady_clock::now();
    tp::CompileResult r = compile_text(std::string(tp::kMaxSourceBytes + 1, '\0'));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
    EXPECT_EQ(first_kind(r), "SizeTooLarge");
    EXPECT_EQ(r.diagnostics.at(0).message,
              "the source is too large: over 8388608 bytes, the limit for a DSL file; is it a text file?");
    // /dev/zero never ends: the read stops one byte past the limit.
    std::string text;
    ASSERT_TRUE(tp::read_source_file("/dev/zero", text));
    EXPECT_EQ(text.size(), tp::kMaxSourceBytes + 1);
    tp::CompileRequest req;
    req.path = "/dev/zero";
    req.stop_after = tp::Stage::Ast;
    EXPECT_EQ(first_kind(tp::compile(req)), "SizeTooLarge");
    // A directory is not a file to read.
    std::string why;
    EXPECT_FALSE(tp::read_source_file("/", text, &why));
    EXPECT_FALSE(why.empty());
}

TEST(Inputs, DeepHeaderFormulasCannotBeEvaluatedButDoNotCrash) {
    const size_t n = 200000;
    EXPECT_FALSE(tp::eval_formula(std::string(n, '(') + "1" + std::string(n, ')'), {}));
    EXPECT_FALSE(tp::eval_formula(std::string(n, '-') + "1", {}));
    std::string pow_chain;
    for (size_t i = 0; i < n; ++i) pow_chain += "2**";
    EXPECT_FALSE(tp::eval_formula(pow_chain + "1", {}));
    EXPECT_EQ(tp::eval_formula("2*((M))*-(-N)", {{"M", 3}, {"N", 4}}).value_or(0), 24);
}

TEST(Inputs, LoopVariableAfterItsLoopIsALocatedError) {
    const char* src = R"(import tilelang
import tilelang.language as T

@tilelang.jit
def k(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i, j in T.Parallel(2, 4):
                A[i * 4 + j] = 1.0
            A[j] = 2.0
    return main
)";
    tp::CompileResult r = compile_text(src);
    EXPECT_FALSE(r.internal_error) << r.internal_error->what();
    ASSERT_EQ(first_kind(r), "UnknownName") << r.render_diagnostics();
    EXPECT_NE(r.diagnostics[0].message.find("the variable of the kernel loop at line 9"), std::string::npos);
    EXPECT_EQ(r.diagnostics[0].span.begin.line, 11u);
    // Rebinding the name after the loop is fine, as in Python.
    std::string ok = src;
    ok.replace(ok.find("            A[j] = 2.0"), 22, "            j = 3\n            A[j] = 2.0");
    EXPECT_TRUE(compile_text(ok).ok) << compile_text(ok).render_diagnostics();
}

TEST(Inputs, DuplicateParameterIsALocatedError) {
    tp::CompileResult r = compile_text("def f(a, b, *, a=1):\n    pass\n", tp::Stage::Ast);
    ASSERT_EQ(first_kind(r), "InvalidSyntax");
    EXPECT_EQ(r.diagnostics[0].message, "invalid syntax: duplicate argument `a` in function definition; the first is at line 1");
    EXPECT_EQ(r.diagnostics[0].span.begin.col, 16u);
    EXPECT_EQ(first_kind(compile_text("g = lambda x, x: x\n", tp::Stage::Ast)), "InvalidSyntax");
}

TEST(Inputs, ADirectoryWhereATuneCacheEntryBelongsIsAMiss) {
    fs::path dir = fs::temp_directory_path() / ("tp_tune_dir_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    tp::TuneOptions o;
    o.path = "vadd.py";
    o.source = read_sample("vector_add.py");
    o.device = "cpu";
    o.cache_dir = dir.string();
    o.jobs = 1;
    o.axes = {{"block_N", {"128"}}, {"threads", {"128"}}};
    tp::TuneReport first = tp::run_tune(o);
    ASSERT_TRUE(first.ok) << first.error;
    ASSERT_TRUE(fs::is_regular_file(first.cache_file));
    fs::remove(first.cache_file);
    fs::create_directories(fs::path(first.cache_file) / "x");
    tp::TuneReport again = tp::run_tune(o);
    EXPECT_TRUE(again.ok) << again.error;
    EXPECT_FALSE(again.from_cache);
    bool noted = false;
    for (const auto& n : again.notes) noted |= n.find("not cached") != std::string::npos;
    EXPECT_TRUE(noted);
    fs::remove_all(dir);
}

TEST(Inputs, AtomicAddOfAFragmentTileReadsEachThreadsOwnRegisters) {
    // Left to lower-tile-ops, the fragment reads of T.atomic_add(B, t) kept tile coordinates:
    // 2-D was an internal error, 1-D silently read `t[tx]` past `float t[1]`.
    for (const char* shape : {"(M,)", "(M, N)"}) {
        std::string src = std::string(R"(import tilelang
import tilelang.language as T

@tilelang.jit
def k(M=64, N=32):
    @T.prim_func
    def main(A: T.Tensor(SHAPE, "float32"), B: T.Tensor(SHAPE, "float32")):
        with T.Kernel(1, threads=128) as bx:
            t = T.alloc_fragment(SHAPE, "float32")
            T.copy(A, t)
            T.atomic_add(B, t)
    return main
)");
        for (size_t at; (at = src.find("SHAPE")) != std::string::npos;) src.replace(at, 5, shape);
        tp::CompileResult r = compile_text(src);
        ASSERT_FALSE(r.internal_error) << shape << ": " << r.internal_error->what();
        ASSERT_TRUE(r.ok) << shape << ": " << r.render_diagnostics();
        EXPECT_EQ(r.cuda.find("t[tx]"), std::string::npos) << r.cuda;
        EXPECT_NE(r.cuda.find("tp::atomic_add(&B["), std::string::npos) << r.cuda;
    }
}

TEST(Inputs, ANpyPathThatIsNotAFileIsAnError) {
    tp::HostTensor t;
    std::string why;
    EXPECT_FALSE(tp::read_npy("/", t, &why));
    EXPECT_EQ(why, "`/` is not a regular file");
    EXPECT_FALSE(tp::read_npy("/dev/zero", t, &why));
}
