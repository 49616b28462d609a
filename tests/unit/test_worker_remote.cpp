// Remote workers without a network: --worker values become the right ssh command, and the
// start handshake refuses a worker of another build or one that never answers.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tileplay/worker_client.h"

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& w : v) s += (s.empty() ? "" : " ") + w;
    return s;
}

TEST(WorkerSpec, SshWithUserPortAndPath) {
    ::unsetenv("TILEPLAY_SSH");
    tp::WorkerOptions o;
    std::string err;
    ASSERT_TRUE(tp::parse_worker_spec("ssh://ana@gpu-box.lan:2222/opt/tp/tilec", o, &err)) << err;
    EXPECT_EQ(o.where, "ssh://ana@gpu-box.lan:2222");
    EXPECT_TRUE(o.handshake);
    std::string cmd = joined(o.command);
    EXPECT_EQ(o.command.front(), "ssh");
    EXPECT_NE(cmd.find("-o BatchMode=yes"), std::string::npos) << cmd;
    EXPECT_NE(cmd.find("-o ServerAliveInterval=5"), std::string::npos) << cmd;
    EXPECT_NE(cmd.find("-p 2222 ana@gpu-box.lan -- '/opt/tp/tilec' worker"), std::string::npos) << cmd;
}

TEST(WorkerSpec, DefaultsAndHomeRelativePath) {
    ::unsetenv("TILEPLAY_REMOTE_TILEC");
    ::setenv("TILEPLAY_SSH", "ssh -F /tmp/my_config", 1);
    tp::WorkerOptions o;
    ASSERT_TRUE(tp::parse_worker_spec("ssh://box", o, nullptr));
    EXPECT_EQ(o.command[0], "ssh");
    EXPECT_EQ(o.command[1], "-F");
    EXPECT_EQ(o.command.back(), "'tilec' worker");
    EXPECT_EQ(o.command[o.command.size() - 3], "box");
    ASSERT_TRUE(tp::parse_worker_spec("ssh://box/~/bin/tilec", o, nullptr));
    EXPECT_EQ(o.command.back(), "~/'bin/tilec' worker");
    ::unsetenv("TILEPLAY_SSH");
    ASSERT_TRUE(tp::parse_worker_spec("local", o, nullptr));
    EXPECT_TRUE(o.command.empty());
    EXPECT_EQ(o.where, "local");
}

TEST(WorkerSpec, SlurmPartition) {
    ::setenv("TILEPLAY_REMOTE_TILEC", "/shared/tilec", 1);
    ::setenv("TILEPLAY_SRUN_OPTIONS", "--gpus-per-task=1 --time=30", 1);
    tp::WorkerOptions o;
    ASSERT_TRUE(tp::parse_worker_spec("slurm:gpu", o, nullptr));
    EXPECT_EQ(joined(o.command),
              "srun --partition=gpu --nodes=1 --ntasks=1 --unbuffered --job-name=tilec-worker --gpus-per-task=1 --time=30 "
              "/shared/tilec worker");
    EXPECT_EQ(o.where, "slurm:gpu");
    EXPECT_TRUE(o.handshake);
    EXPECT_GE(o.start_timeout_s, 300);  // the job may queue
    ::unsetenv("TILEPLAY_REMOTE_TILEC");
    ::unsetenv("TILEPLAY_SRUN_OPTIONS");
    std::string err;
    EXPECT_FALSE(tp::parse_worker_spec("slurm:", o, &err));
    EXPECT_FALSE(tp::parse_worker_spec("slurm:a;b", o, &err));
    EXPECT_NE(err.find("slurm:PARTITION"), std::string::npos) << err;
}

TEST(WorkerSpec, RefusesWhatItCannotRead) {
    tp::WorkerOptions o;
    for (const char* bad :
         {"ssh://", "ssh://-oProxyCommand=evil", "ssh://box:99999", "ssh://box:22x", "ssh://a b", "ssh://[::1", "gpu-box", "ftp://box"}) {
        std::string err;
        EXPECT_FALSE(tp::parse_worker_spec(bad, o, &err)) << bad;
        EXPECT_NE(err.find("cannot read the worker"), std::string::npos) << bad << ": " << err;
    }
}

TEST(WorkerHandshake, RefusesAnotherProtocol) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c",
                 "read line; echo '{\"id\":1,\"ok\":true,\"version\":\"0.0.1\",\"protocol\":99,\"pid\":1,\"device\":null}'; "
                 "read line"};
    o.where = "ssh://old-box";
    o.handshake = true;
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.hello();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.kind, "version_mismatch");
    EXPECT_NE(r.error.find("the worker at ssh://old-box is tilec 0.0.1 (protocol 99)"), std::string::npos) << r.error;
    EXPECT_EQ(c.pid(), -1);  // killed, never used
}

TEST(WorkerHandshake, AcceptsThisBuild) {
    tp::WorkerOptions o;
    o.command = {TILEC_PATH, "worker"};
    o.handshake = true;
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.hello();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.body.value("protocol", 0), tp::kWorkerProtocol);
}

TEST(WorkerHandshake, ASilentWorkerIsNotWaitedForLong) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "sleep 100"};
    o.where = "ssh://silent";
    o.handshake = true;
    o.start_timeout_s = 0.5;
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.hello();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.kind, "hang");
    EXPECT_EQ(r.error.rfind("cannot reach the worker at ssh://silent", 0), 0u) << r.error;
}

}  // namespace
