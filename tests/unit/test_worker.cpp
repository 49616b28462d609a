// The worker protocol without a GPU: malformed requests get error replies, the client kills a
// worker that hangs or reports one that dies, and `tilec worker` itself survives bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "tileplay/worker_client.h"
#include "worker/kernel_session.h"
#include "worker/server.h"
#include "worker/subprocess.h"

namespace {

// Feeds one line to the server and returns the replies it wrote.
std::vector<tp::Json> serve_line(const std::string& line, int& exit_code) {
    std::FILE* f = std::tmpfile();
    tp::worker::Emitter em(f);
    tp::worker::handle_line(line, em, exit_code);
    std::rewind(f);
    std::vector<tp::Json> out;
    char buf[8192];
    while (std::fgets(buf, sizeof(buf), f)) out.push_back(tp::Json::parse(buf));
    std::fclose(f);
    return out;
}

TEST(WorkerServer, MalformedJsonIsAnErrorReply) {
    int rc = -1;
    auto r = serve_line("{not json", rc);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_FALSE(r[0]["ok"].get<bool>());
    EXPECT_EQ(r[0]["kind"], "bad_request");
    EXPECT_NE(r[0]["error"].get<std::string>().find("not valid JSON"), std::string::npos);
    EXPECT_EQ(rc, -1);
}

TEST(WorkerServer, DeeplyNestedJsonIsRefusedBeforeParsing) {
    // An `id` nested 100,000 deep would overflow the stack in the reply's dump.
    std::string deep = std::string(100000, '[') + std::string(100000, ']');
    int rc = -1;
    auto r = serve_line("{\"op\":\"hello\",\"id\":" + deep + "}", rc);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0]["kind"], "bad_request");
    EXPECT_TRUE(r[0]["id"].is_null());
    EXPECT_NE(r[0]["error"].get<std::string>().find("nests JSON deeper than 64 levels"), std::string::npos);
    // Brackets inside strings are text, not nesting.
    r = serve_line("{\"op\":\"hello\",\"id\":\"" + std::string(1000, '[') + "\"}", rc);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(r[0]["ok"].get<bool>()) << r[0].dump();
}

TEST(WorkerServer, UnknownOpAndMissingOp) {
    int rc = -1;
    auto r = serve_line(R"({"id":4,"op":"fly"})", rc);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0]["id"], 4);
    EXPECT_EQ(r[0]["kind"], "bad_request");
    EXPECT_NE(r[0]["error"].get<std::string>().find("unknown op `fly`"), std::string::npos);
    r = serve_line(R"({"id":5})", rc);
    EXPECT_NE(r[0]["error"].get<std::string>().find("no `op`"), std::string::npos);
    r = serve_line("[1,2]", rc);
    EXPECT_EQ(r[0]["kind"], "bad_request");
}

TEST(WorkerServer, RunWithoutKernelOrDeviceIsAnError) {
    int rc = -1;
    auto r = serve_line(R"({"id":6,"op":"run"})", rc);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_FALSE(r[0]["ok"].get<bool>());
    // Without a GPU: no_device; with one: no kernel loaded yet.
    std::string kind = r[0]["kind"];
    EXPECT_TRUE(kind == "no_device" || kind == "bad_request") << kind;
    EXPECT_EQ(rc, -1);
}

TEST(WorkerServer, HelloAndShutdown) {
    int rc = -1;
    auto r = serve_line(R"({"id":1,"op":"hello"})", rc);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(r[0]["ok"].get<bool>());
    if (r[0]["device"].is_null()) EXPECT_FALSE(r[0]["why"].get<std::string>().empty());
    r = serve_line(R"({"id":2,"op":"shutdown"})", rc);
    EXPECT_EQ(rc, 0);
}

TEST(WorkerClient, KillsAHungWorker) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "sleep 100"};
    o.watchdog_s = 0.5;
    tp::WorkerClient c(o);
    auto t0 = std::chrono::steady_clock::now();
    tp::WorkerReply r = c.request({{"op", "run"}});
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.kind, "hang");
    EXPECT_NE(r.error.find("did not finish within 0.5 s"), std::string::npos) << r.error;
    EXPECT_LT(s, 5.0);
    // The next request starts a new worker (which hangs again).
    r = c.request({{"op", "run"}});
    EXPECT_EQ(r.kind, "hang");
    EXPECT_EQ(c.restarts(), 1);
}

TEST(WorkerClient, HeartbeatsWithoutProgressStillTimeOut) {
    // A worker that heartbeats in one stage forever is alive but stuck: the silence watchdog
    // stays quiet, the progress one fires.
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "read line; while true; do echo '{\"event\":\"progress\",\"stage\":\"check\",\"heartbeat\":true}'; sleep 0.1; done"};
    o.watchdog_s = 0.5;
    o.progress_timeout_s = 1.5;
    tp::WorkerClient c(o);
    auto t0 = std::chrono::steady_clock::now();
    tp::WorkerReply r = c.request({{"op", "run"}});
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.kind, "hang");
    EXPECT_NE(r.error.find("made no progress within 1.5 s (only heartbeats from stage `check`)"), std::string::npos) << r.error;
    EXPECT_GE(s, 1.4);
    EXPECT_LT(s, 5.0);
}

TEST(WorkerClient, StrayLinesDoNotResetTheWatchdog) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "read line; while true; do echo 'library noise'; sleep 0.1; done"};
    o.watchdog_s = 0.5;
    tp::WorkerClient c(o);
    auto t0 = std::chrono::steady_clock::now();
    tp::WorkerReply r = c.request({{"op", "run"}});
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.kind, "hang");
    EXPECT_NE(r.error.find("did not finish within 0.5 s"), std::string::npos) << r.error;
    EXPECT_LT(s, 3.0);
}

TEST(WorkerClient, ReportsAWorkerThatExits) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "echo 'cuda says: illegal address' >&2; exit 7"};
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.request({{"op", "run"}});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.kind, "exited");
    EXPECT_EQ(r.exit_code, 7);
    EXPECT_NE(r.error.find("exit code 7"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("illegal address"), std::string::npos) << r.error;
}

TEST(WorkerClient, ReportsAWorkerKilledByASignal) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "kill -SEGV $$"};
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.request({{"op", "run"}});
    EXPECT_EQ(r.kind, "crashed");
    EXPECT_EQ(r.signal, 11);
    EXPECT_NE(r.error.find("SIGSEGV"), std::string::npos) << r.error;
}

TEST(WorkerClient, StartFailure) {
    tp::WorkerOptions o;
    o.command = {"/nonexistent/tilec-worker"};
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.hello();
    EXPECT_EQ(r.kind, "start_failed");
    EXPECT_NE(r.error.find("cannot start"), std::string::npos);
}

TEST(WorkerClient, ProgressEventsAndReplyFromAScriptedWorker) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c",
                 "read line; echo 'noise from a library'; echo '{\"event\":\"progress\",\"stage\":\"bench\",\"done\":1}';"
                 " echo '{\"id\":1,\"ok\":true,\"x\":42}'; sleep 1"};
    tp::WorkerClient c(o);
    int events = 0;
    tp::WorkerReply r = c.request({{"op", "bench"}}, [&](const tp::Json&) { ++events; });
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.body["x"], 42);
    EXPECT_EQ(events, 1);
}

TEST(TilecWorker, AnswersMalformedRequestsAndKeepsServing) {
    tp::WorkerOptions o;
    o.command = {TILEC_PATH, "worker"};
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.request({{"op", "explode"}});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.kind, "bad_request");
    int pid = c.pid();
    r = c.hello();
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(c.pid(), pid);  // the same worker answered both
    EXPECT_EQ(c.restarts(), 0);
}

TEST(Subprocess, RunCommandCapturesOutputAndTimesOut) {
    auto r = tp::worker::run_command({"sh", "-c", "cat; echo err >&2"}, 5000, "hello\n");
    EXPECT_TRUE(r.started);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.out, "hello\n");
    EXPECT_EQ(r.err, "err\n");
    EXPECT_TRUE(r.status.exited);
    r = tp::worker::run_command({"sleep", "30"}, 300);
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.status.running);
}

TEST(KernelSession, SampledBlocksIncludeTheEdges) {
    auto all = tp::worker::sample_block_indices(10, 64, 1);
    EXPECT_EQ(all.size(), 10u);
    auto s = tp::worker::sample_block_indices(1000000, 64, 7);
    EXPECT_EQ(s.size(), 64u);
    EXPECT_EQ(s.front(), 0);
    EXPECT_EQ(s.back(), 999999);
    EXPECT_EQ(s, tp::worker::sample_block_indices(1000000, 64, 7));
    EXPECT_NE(s, tp::worker::sample_block_indices(1000000, 64, 8));
}

}  // namespace

// Device printf shares the worker's stdout with the protocol. The capture moves the JSON lines
// to a private descriptor and hands printed text back once; a child process does it so the
// test binary's own stdout is untouched.
TEST(WorkerServer, PrintedTextIsCapturedOffTheProtocolChannel) {
    int pipefd[2];
    ASSERT_EQ(::pipe(pipefd), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::dup2(pipefd[1], STDOUT_FILENO);
        ::close(pipefd[0]);
        std::FILE* proto = tp::worker::capture_stdout();
        if (!proto) std::_Exit(2);
        std::printf("msg='x' BlockIdx=(0, 0, 0)\n");
        std::string first = tp::worker::take_printed();
        std::string again = tp::worker::take_printed();
        std::printf("{\"looks\": \"like json\"}\n");
        std::string second = tp::worker::take_printed(8);
        std::fprintf(proto, "%s|%s|%s\n", first == "msg='x' BlockIdx=(0, 0, 0)\n" ? "first-ok" : "first-bad",
                     again.empty() ? "again-ok" : "again-bad",
                     second.rfind("{\"looks\"", 0) == 0 && second.find("more bytes") != std::string::npos ? "cap-ok" : "cap-bad");
        std::fflush(proto);
        std::_Exit(0);
    }
    ::close(pipefd[1]);
    std::string got;
    char buf[256];
    ssize_t n;
    while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    ::close(pipefd[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(got, "first-ok|again-ok|cap-ok\n");  // nothing printed leaked onto the protocol channel
}
