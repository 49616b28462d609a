// The tuner's search spaces: @autotune(configs=...) evaluated the way TileLang writes it
// (literal lists, itertools.product, comprehensions, helpers depending on fixed parameters,
// callables), the header's tune line, -T axes, and which one wins.
#include <gtest/gtest.h>

#include "tileplay/tune.h"

namespace {

const char* kFactory = R"(
@tilelang.jit(out_idx=[-1])
def k(N, block_N=128, threads=128, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            for i in T.Parallel(block_N):
                if bx * block_N + i < N:
                    C[bx * block_N + i] = A[bx * block_N + i]
    return main
)";

std::string file(const std::string& before, const std::string& decorator) {
    return "import itertools\nimport tilelang\nimport tilelang.language as T\nfrom tilelang.autotuner import autotune\n" +
           before + "\n" + decorator + kFactory;
}

tp::TuneSpace space_of(const std::string& src, const tp::TuneConfig& fixed = {{"N", "1024"}}, const tp::TuneAxes& axes = {}) {
    return tp::find_tune_space("t.py", src, "", axes, fixed, "sm_90");
}

std::vector<std::string> texts(const tp::TuneSpace& s) {
    std::vector<std::string> out;
    for (const auto& c : s.configs) out.push_back(tp::config_text(c));
    return out;
}

}  // namespace

TEST(TuneSpace, LiteralListOfDicts) {
    auto s = space_of(file("", R"(@autotune(configs=[{"block_N": 64, "threads": 64}, {"block_N": 256, "threads": 128}]))"));
    ASSERT_TRUE(s.ok) << s.diagnostics_text;
    EXPECT_EQ(s.origin, "@autotune(configs=...) at line 6");
    EXPECT_EQ(texts(s), (std::vector<std::string>{"block_N=64 threads=64", "block_N=256 threads=128"}));
}

TEST(TuneSpace, HelperWithItertoolsProductAndComprehension) {
    auto s = space_of(file(R"(
def get_configs():
    block_N = [64, 128]
    threads = [32, 64, 128]
    _configs = list(itertools.product(block_N, threads))
    return [{"block_N": c[0], "threads": c[1], "dtype": "float16"} for c in _configs if c[1] <= c[0]]
)",
                           "@tilelang.autotune(configs=get_configs(), warmup=3, rep=20)"));
    ASSERT_TRUE(s.ok) << s.diagnostics_text;
    EXPECT_EQ(texts(s), (std::vector<std::string>{"block_N=64 threads=32 dtype=float16", "block_N=64 threads=64 dtype=float16",
                                                  "block_N=128 threads=32 dtype=float16", "block_N=128 threads=64 dtype=float16",
                                                  "block_N=128 threads=128 dtype=float16"}));
}

TEST(TuneSpace, ConfigsDependOnFixedParameters) {
    const char* helper = R"(
def get_configs(N):
    return [{"block_N": b} for b in (64, 128, 256, 512) if b <= N // 4]
)";
    // get_configs(N) in the decorator: N is the factory's fixed parameter, not a global.
    auto s = space_of(file(helper, "@autotune(configs=get_configs(N))"), {{"N", "512"}});
    ASSERT_TRUE(s.ok) << s.diagnostics_text;
    EXPECT_EQ(texts(s), (std::vector<std::string>{"block_N=64", "block_N=128"}));
    // A callable, as TileLang accepts: called with the kernel's arguments it declares.
    auto c = space_of(file(helper, "@autotune(configs=get_configs)"), {{"N", "1024"}});
    ASSERT_TRUE(c.ok) << c.diagnostics_text;
    EXPECT_EQ(texts(c), (std::vector<std::string>{"block_N=64", "block_N=128", "block_N=256"}));
}

TEST(TuneSpace, ValuesReadBackAsTheSameTypes) {
    auto s = space_of(file("", R"(@autotune(configs=[{"flag": True, "x": 1.5, "dt": T.float16, "shape": (64, 32), "name": "row"}]))"));
    ASSERT_TRUE(s.ok) << s.diagnostics_text;
    EXPECT_EQ(texts(s), (std::vector<std::string>{"flag=True x=1.5 dt=float16 shape=(64, 32) name=row"}));
}

TEST(TuneSpace, BadConfigsAreDiagnosedAtTheDecorator) {
    auto s = space_of(file("", "@autotune(configs=[64, 128])"));
    EXPECT_FALSE(s.ok);
    ASSERT_FALSE(s.diagnostics.empty());
    EXPECT_EQ(s.diagnostics[0].kind, tp::DiagKind::BadTuneSpace);
    EXPECT_EQ(s.diagnostics[0].span.begin.line, 6u);
    EXPECT_NE(s.diagnostics_text.find("each config must be a dict"), std::string::npos);

    auto empty = space_of(file("", "@autotune(configs=[])"));
    EXPECT_FALSE(empty.ok);
    EXPECT_NE(empty.diagnostics_text.find("`configs` is empty"), std::string::npos);

    // An evaluator error inside the helper keeps its own kind and line.
    auto undefined = space_of(file("def get_configs():\n    return [{\"block_N\": nope}]\n", "@autotune(configs=get_configs())"));
    EXPECT_FALSE(undefined.ok);
    ASSERT_FALSE(undefined.diagnostics.empty());
    EXPECT_EQ(undefined.diagnostics[0].kind, tp::DiagKind::UnknownName);
    EXPECT_EQ(undefined.diagnostics[0].span.begin.line, 6u);
}

TEST(TuneSpace, PrecedenceCommandLineThenDecoratorThenHeader) {
    std::string src = "# tileplay: tune block_N=32,64\n" + file("", R"(@autotune(configs=[{"block_N": 128}]))");
    EXPECT_EQ(texts(space_of(src)), (std::vector<std::string>{"block_N=128"}));
    auto cli = space_of(src, {}, {{"threads", {"64", "128"}}});
    EXPECT_EQ(cli.origin, "-T");
    EXPECT_EQ(texts(cli), (std::vector<std::string>{"threads=64", "threads=128"}));
    std::string header_only = "# tileplay: tune block_N=32,64 threads=32\n" + file("", "");
    auto h = space_of(header_only);
    ASSERT_TRUE(h.ok);
    EXPECT_EQ(h.origin, "`# tileplay: tune` header");
    EXPECT_EQ(texts(h), (std::vector<std::string>{"block_N=32 threads=32", "block_N=64 threads=32"}));
    // Nothing written: the factory's schedule parameters around their defaults.
    auto dflt = space_of(file("", ""));
    ASSERT_TRUE(dflt.ok);
    EXPECT_EQ(dflt.origin, "default space over the factory's schedule parameters (block_N, threads)");
    EXPECT_EQ(dflt.configs.size(), size_t(5 * 5));  // block_N 32..512, threads 64..1024
}

TEST(TuneSpace, DefaultAxesVaryScheduleParametersOnly) {
    std::vector<tp::FactoryParam> params = {{"M", "", "int", true},        {"block_M", "64", "int", false}, {"BLOCK_N", "128", "int", false},
                                            {"threads", "256", "int", false}, {"num_stages", "3", "int", false}, {"dtype", "\"float16\"", "dtype", false},
                                            {"scale", "2.0", "float", false}};
    tp::TuneAxes axes = tp::default_tune_axes(params, {{"block_M", "32"}});
    std::vector<std::string> names;
    for (const auto& [n, v] : axes) names.push_back(n);
    EXPECT_EQ(names, (std::vector<std::string>{"block_M", "BLOCK_N", "threads", "num_stages"}));
    // Tile axes narrowed to /2..x2 to stay within 256 configs, block_M around the run's 32.
    EXPECT_EQ(axes[0].second, (std::vector<std::string>{"16", "32", "64"}));
    EXPECT_EQ(axes[1].second, (std::vector<std::string>{"64", "128", "256"}));
    EXPECT_EQ(axes[2].second, (std::vector<std::string>{"64", "128", "256", "512", "1024"}));
    EXPECT_EQ(axes[3].second, (std::vector<std::string>{"1", "2", "3", "4"}));
    EXPECT_TRUE(tp::default_tune_axes({{"N", "", "int", true}}, {}).empty());
}

TEST(TuneSpace, AxesParseAndExpandFirstAxisSlowest) {
    std::pair<std::string, std::vector<std::string>> axis;
    ASSERT_TRUE(tp::parse_axis("shape=(64,32),(128,64)", axis, nullptr));
    EXPECT_EQ(axis.first, "shape");
    EXPECT_EQ(axis.second, (std::vector<std::string>{"(64,32)", "(128,64)"}));
    std::string err;
    EXPECT_FALSE(tp::parse_axis("=1,2", axis, &err));
    EXPECT_NE(err.find("expected NAME=V1,V2"), std::string::npos);
    EXPECT_FALSE(tp::parse_axis("a=", axis, &err));
    EXPECT_NE(err.find("lists no values"), std::string::npos);
    auto configs = tp::expand_axes({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}});
    ASSERT_EQ(configs.size(), 6u);
    EXPECT_EQ(tp::config_text(configs[0]), "a=1 b=x");
    EXPECT_EQ(tp::config_text(configs[1]), "a=1 b=y");
    EXPECT_EQ(tp::config_text(configs[5]), "a=2 b=z");
}

TEST(TuneSpace, Fnv1aMatchesTheReferenceVectors) {
    EXPECT_EQ(tp::fnv1a64(""), 0xcbf29ce484222325ull);
    EXPECT_EQ(tp::fnv1a64("a"), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(tp::fnv1a64("foobar"), 0x85944171f73967e8ull);
}
