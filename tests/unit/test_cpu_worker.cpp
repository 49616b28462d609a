// CPU runs in the worker and their memory budget: the bytes a run needs (per tensor, with the
// interpreter's double copy), the refusal that names the sizes, the budget and the parameters
// to reduce, and the worker's `load` with "device": "cpu" and `run` answering in the protocol's
// reply shapes, refusing a run over the request's budget before allocating.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tileplay/compiler.h"
#include "tileplay/interp.h"
#include "worker/reply_schema.h"
#include "worker/server.h"
#include "worker/worker_state.h"

namespace {

// The worker's state is the process's: each test leaves no kernel loaded for the next.
class CpuWorker : public ::testing::Test {
protected:
    void TearDown() override { tp::worker::worker_state().session = {}; }
};

std::string sample_path(const char* name) { return std::string(TILEPLAY_SOURCE_DIR) + "/samples/" + name; }

tp::CompileResult trace_sample(const char* name, const std::vector<std::pair<std::string, std::string>>& defines) {
    tp::CompileRequest r;
    r.path = sample_path(name);
    r.defines = defines;
    r.stop_after = tp::Stage::Ir;
    return tp::compile(r);
}

std::vector<std::vector<int64_t>> shapes_of(const tp::ir::PrimFunc& f) {
    std::vector<std::vector<int64_t>> shapes;
    std::string why;
    EXPECT_TRUE(tp::arg_shapes(f, {}, shapes, &why)) << why;
    return shapes;
}

// Feeds one request line to the worker loop and returns its reply (events dropped).
tp::worker::Json serve(const tp::worker::Json& req) {
    std::FILE* f = std::tmpfile();
    tp::worker::Emitter em(f);
    int rc = -1;
    tp::worker::handle_line(req.dump(), em, rc);
    std::rewind(f);
    tp::worker::Json reply;
    char buf[1 << 16];
    while (std::fgets(buf, sizeof buf, f)) {
        auto j = tp::worker::Json::parse(buf);
        if (!j.contains("event")) reply = j;
    }
    std::fclose(f);
    return reply;
}

}  // namespace

TEST(RunMemory, CountsEachTensorWithTheInterpretersCopy) {
    auto c = trace_sample("gemm.py", {{"M", "4096"}, {"N", "2048"}, {"K", "256"}});
    ASSERT_TRUE(c.ok && c.func);
    tp::RunMemory m = tp::run_memory(*c.func, shapes_of(*c.func));
    ASSERT_EQ(m.tensors.size(), 3u);
    // float16: 2 bytes on the host + 8 for the interpreter's double, per element.
    EXPECT_EQ(m.tensors[0].name, "A");
    EXPECT_EQ(m.tensors[0].desc, "float16[4096, 256]");
    EXPECT_EQ(m.tensors[0].bytes, 4096 * 256 * 10);
    EXPECT_EQ(m.tensors[2].bytes, int64_t{4096} * 2048 * 10);
    EXPECT_EQ(m.total, (4096 * 256 + 256 * 2048 + int64_t{4096} * 2048) * 10);
    EXPECT_TRUE(m.overflow.empty());
}

TEST(RunMemory, RefusalNamesTheSizesTheBudgetAndWhatToReduce) {
    auto c = trace_sample("gemm.py", {{"M", "4096"}, {"N", "2048"}, {"K", "256"}});
    ASSERT_TRUE(c.ok && c.func);
    tp::RunMemory m = tp::run_memory(*c.func, shapes_of(*c.func));
    // C (M x N) is the largest, then A (M x K): M and N size it most; block sizes never do.
    EXPECT_EQ(tp::sizing_params(m, c.kernel.bound_params), (std::vector<std::string>{"M", "N", "K"}));
    tp::MemoryBudget budget{int64_t{64} << 20, "a test budget"};
    EXPECT_EQ(tp::memory_refusal(m, budget, "reduce M"),
              "the run needs 95.0 MiB for its tensors (`C` float16[4096, 2048] 80.0 MiB, `A` float16[4096, 256] 10.0 MiB, "
              "`B` float16[256, 2048] 5.0 MiB), over the memory budget of 64.0 MiB (a test budget); reduce M");
    std::string err;
    EXPECT_FALSE(tp::check_run_memory(*c.func, shapes_of(*c.func), &err, &budget));
    EXPECT_NE(err.find("use smaller sizes (`-D`)"), std::string::npos) << err;
    budget.bytes = m.total;  // exactly enough is allowed
    EXPECT_TRUE(tp::check_run_memory(*c.func, shapes_of(*c.func), &err, &budget));
    std::map<std::string, tp::HostTensor> args;
    budget.bytes = m.total - 1;
    EXPECT_FALSE(tp::allocate_args(*c.func, 0, {}, args, &err, &budget));
    EXPECT_TRUE(args.empty());  // refused before anything was allocated
}

TEST(RunMemory, DefaultBudgetSaysWhereItComesFrom) {
    unsetenv("TILEPLAY_MEMORY_BUDGET");
    tp::MemoryBudget b = tp::default_memory_budget();
    EXPECT_GT(b.bytes, 0);
    EXPECT_EQ(b.source.rfind("three quarters of this machine's ", 0), 0u) << b.source;
    setenv("TILEPLAY_MEMORY_BUDGET", "3G", 1);
    b = tp::default_memory_budget();
    unsetenv("TILEPLAY_MEMORY_BUDGET");
    EXPECT_EQ(b.bytes, int64_t{3} << 30);
    EXPECT_EQ(b.source, "TILEPLAY_MEMORY_BUDGET");
}

TEST_F(CpuWorker, LoadsRunsAndChecksWithoutAGpu) {
    auto load = serve({{"id", 1}, {"op", "load"}, {"device", "cpu"}, {"path", sample_path("vector_add.py")},
                       {"defines", {{"N", "1000"}}}});
    ASSERT_TRUE(load["ok"].get<bool>()) << load.dump();
    EXPECT_EQ(load["target"], "cpu");
    EXPECT_EQ(load["kernel"]["bound_params"]["N"], "1000");
    EXPECT_FALSE(tp::worker::reply_type_error("load", load)) << load.dump();
    auto run = serve({{"id", 2}, {"op", "run"}, {"seed", 1}});
    ASSERT_TRUE(run["ok"].get<bool>()) << run.dump();
    EXPECT_FALSE(tp::worker::reply_type_error("run", run)) << run.dump();
    EXPECT_EQ(run["device"], "cpu");
    EXPECT_EQ(run["interp"]["blocks_run"], 4);
    EXPECT_TRUE(run["check"]["ok"].get<bool>());
    EXPECT_EQ(run["check"]["against"], "cpu reference: add");
    EXPECT_EQ(run["check"]["outputs"][0]["name"], "C");
    EXPECT_NE(run["note"].get<std::string>().find("checked `C` against the add reference"), std::string::npos);
    // Not timed on the CPU: a bench of this kernel is refused, saying why.
    auto bench = serve({{"id", 3}, {"op", "bench"}});
    EXPECT_EQ(bench["kind"], "bad_request");
    EXPECT_NE(bench["error"].get<std::string>().find("loaded for the CPU interpreter"), std::string::npos);
}

TEST_F(CpuWorker, RefusesARunOverTheRequestsBudgetBeforeAllocating) {
    auto load = serve({{"id", 1}, {"op", "load"}, {"device", "cpu"}, {"path", sample_path("vector_add.py")},
                       {"defines", {{"N", "268435456"}}}});
    ASSERT_TRUE(load["ok"].get<bool>()) << load.dump();
    auto run = serve({{"id", 2}, {"op", "run"}, {"memory_budget", int64_t{1} << 30}, {"memory_budget_from", "the setting"}});
    EXPECT_FALSE(tp::worker::reply_type_error("run", run)) << run.dump();
    EXPECT_FALSE(run["ok"].get<bool>());
    EXPECT_EQ(run["kind"], "over_budget");
    EXPECT_EQ(run["needs_bytes"], int64_t{3} * 268435456 * 12);
    EXPECT_EQ(run["budget_bytes"], int64_t{1} << 30);
    EXPECT_EQ(run["reduce"], tp::worker::Json::array({"N"}));
    EXPECT_EQ(run["error"], "the run needs 9.0 GiB for its tensors (`A` float32[268435456] 3.0 GiB, `B` float32[268435456] 3.0 GiB, "
                            "`C` float32[268435456] 3.0 GiB), over the memory budget of 1.0 GiB (the setting); "
                            "reduce `N` (now 268435456), or raise the budget");
    auto bad = serve({{"id", 3}, {"op", "run"}, {"memory_budget", "lots"}});
    EXPECT_EQ(bad["kind"], "bad_request");
    auto where = serve({{"id", 4}, {"op", "load"}, {"device", "tpu"}, {"path", sample_path("vector_add.py")}});
    EXPECT_EQ(where["kind"], "bad_request");
    EXPECT_NE(where["error"].get<std::string>().find("`device` must be \"gpu\" or \"cpu\""), std::string::npos);
}

TEST_F(CpuWorker, AFailedAssertionFailsTheRun) {
    auto load = serve({{"id", 1}, {"op", "load"}, {"device", "cpu"}, {"path", sample_path("debug_print.py")},
                       {"defines", {{"M", "16"}, {"N", "32"}, {"limit", "0"}}}});
    ASSERT_TRUE(load["ok"].get<bool>()) << load.dump();
    auto run = serve({{"id", 2}, {"op", "run"}});
    EXPECT_FALSE(tp::worker::reply_type_error("run", run)) << run.dump();
    EXPECT_FALSE(run["ok"].get<bool>());
    EXPECT_EQ(run["kind"], "run_failed");
    EXPECT_NE(run["error"].get<std::string>().find("input larger than limit"), std::string::npos) << run.dump();
}

// `check_races` on a CPU run: the race checker's findings come back with both lines; a run
// without it carries no `races` (and pays nothing for the checker).
TEST_F(CpuWorker, ChecksRacesWhenAsked) {
    const std::string path = std::string(TILEPLAY_SOURCE_DIR) + "/tests/errors/fail_shared_memory_race.py";
    auto load = serve({{"id", 1}, {"op", "load"}, {"device", "cpu"}, {"path", path}});
    ASSERT_TRUE(load["ok"].get<bool>()) << load.dump();
    auto plain = serve({{"id", 2}, {"op", "run"}, {"check", false}});
    ASSERT_TRUE(plain["ok"].get<bool>()) << plain.dump();
    EXPECT_FALSE(plain.contains("races"));
    auto run = serve({{"id", 3}, {"op", "run"}, {"check", false}, {"check_races", true}});
    EXPECT_FALSE(tp::worker::reply_type_error("run", run)) << run.dump();
    ASSERT_TRUE(run.contains("races")) << run.dump();
    const auto& f = run["races"]["findings"];
    ASSERT_EQ(f.size(), 1u) << run.dump();
    EXPECT_EQ(f[0]["kind"], "SharedMemoryRace");
    EXPECT_EQ(f[0]["line"], 23);
    EXPECT_EQ(f[0]["other_line"], 21);
    EXPECT_NE(f[0]["message"].get<std::string>().find("thread 0 writes it"), std::string::npos) << run.dump();
    EXPECT_NE(run["races"]["scope"].get<std::string>().find("each block run as its threads"), std::string::npos);
}
