// The sample header parser and its formula evaluator.
#include <gtest/gtest.h>

#include "tileplay/sample_header.h"

TEST(SampleHeader, ParsesEveryKey) {
    const char* src =
        "# tileplay: kernel=matmul\n"
        "# tileplay: args M=4096 N=4096 K=4096\n"
        "#tileplay: cpu-args M=256 N=256 K=256\n"
        "# tileplay: flops 2*M*N*K\n"
        "# tileplay: bytes 2*(M*K + K*N + M*N)\n"
        "# tileplay: baseline cublas.gemm\n"
        "# tileplay: baseline torch: A @ B\n"
        "# tileplay: tune block_M=64,128 num_stages=2,3\n"
        "import tilelang\n";
    tp::SampleHeader h = tp::parse_sample_header(src);
    EXPECT_EQ(h.kernel, "matmul");
    ASSERT_EQ(h.args.size(), 3u);
    EXPECT_EQ(h.args[1].first, "N");
    EXPECT_EQ(h.args[1].second, "4096");
    ASSERT_EQ(h.cpu_args.size(), 3u);
    EXPECT_EQ(h.cpu_args[2].second, "256");
    EXPECT_EQ(h.flops, "2*M*N*K");
    ASSERT_EQ(h.baselines.size(), 2u);
    EXPECT_EQ(h.baselines[1], "torch: A @ B");
    ASSERT_EQ(h.tune.size(), 2u);
    EXPECT_EQ(h.tune[0].second, (std::vector<std::string>{"64", "128"}));
}

TEST(SampleHeader, IgnoresOtherComments) {
    tp::SampleHeader h = tp::parse_sample_header("# plain comment\nx = 1  # tileplay: nope\n");
    EXPECT_TRUE(h.kernel.empty());
    EXPECT_TRUE(h.args.empty());
}

TEST(Formula, Arithmetic) {
    std::map<std::string, double> v = {{"M", 4096}, {"N", 2048}, {"K", 1024}, {"S", 8}};
    EXPECT_DOUBLE_EQ(*tp::eval_formula("2*M*N*K", v), 2.0 * 4096 * 2048 * 1024);
    EXPECT_DOUBLE_EQ(*tp::eval_formula("2*(M*K + K*N + M*N)", v), 2.0 * (4096.0 * 1024 + 1024.0 * 2048 + 4096.0 * 2048));
    EXPECT_DOUBLE_EQ(*tp::eval_formula("S**2 // 3", v), 21);
    EXPECT_DOUBLE_EQ(*tp::eval_formula("-S % 3 + 1", v), -1);
    EXPECT_DOUBLE_EQ(*tp::eval_formula("4*S*S/2", v), 128);
}

TEST(Formula, RejectsUnknownNamesAndJunk) {
    std::map<std::string, double> v = {{"M", 1}};
    EXPECT_FALSE(tp::eval_formula("2*Q", v).has_value());
    EXPECT_FALSE(tp::eval_formula("2*(M", v).has_value());
    EXPECT_FALSE(tp::eval_formula("M/0", v).has_value());
    EXPECT_FALSE(tp::eval_formula("", v).has_value());
}

TEST(Formula, ValuesFromBoundParameters) {
    // Numbers by name, True/False as 1/0, a dtype's element size as NAME_bytes; other text is left out.
    auto v = tp::formula_values({{"M", "4096"},
                                 {"eps", "1e-05"},
                                 {"is_causal", "True"},
                                 {"dtype", "float16"},
                                 {"accum", "T.float32"},
                                 {"out", "float8_e4m3fn"},
                                 {"layout", "bshd"},
                                 {"odd", "12abc"}});
    EXPECT_DOUBLE_EQ(v.at("M"), 4096);
    EXPECT_DOUBLE_EQ(v.at("eps"), 1e-5);
    EXPECT_DOUBLE_EQ(v.at("is_causal"), 1);
    EXPECT_DOUBLE_EQ(v.at("dtype_bytes"), 2);
    EXPECT_DOUBLE_EQ(v.at("accum_bytes"), 4);
    EXPECT_DOUBLE_EQ(v.at("out_bytes"), 1);
    EXPECT_FALSE(v.count("layout") || v.count("layout_bytes") || v.count("odd") || v.count("dtype"));
    EXPECT_DOUBLE_EQ(*tp::eval_formula("2*M*dtype_bytes", v), 16384);
}

TEST(SampleHeader, LessonTitleAndHintsInOrder) {
    tp::SampleHeader h = tp::parse_sample_header(
        "# tileplay: lesson Vector add: store the result\n"
        "# tileplay: hint first, with `code`\n"
        "# tileplay: hint\n"  // empty: no hint
        "# tileplay: hint second\n"
        "# tileplay: kernel=vector_add\n");
    EXPECT_EQ(h.lesson, "Vector add: store the result");
    EXPECT_EQ(h.hints, (std::vector<std::string>{"first, with `code`", "second"}));
    EXPECT_EQ(h.kernel, "vector_add");
    EXPECT_TRUE(h.other.empty());
    EXPECT_TRUE(tp::parse_sample_header("# tileplay: kernel=k\n").lesson.empty());
}
