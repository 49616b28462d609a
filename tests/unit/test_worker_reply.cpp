// Worker replies and events whose fields have the wrong types (a broken or foreign worker)
// are a "protocol" failure of the request, not an exception in whoever reads the reply.
#include <gtest/gtest.h>

#include "tileplay/worker_client.h"
#include "worker/reply_schema.h"

using tp::Json;
using tp::worker::event_type_error;
using tp::worker::reply_type_error;

TEST(WorkerReplySchema, AcceptsWhatTheWorkerSends) {
    EXPECT_FALSE(reply_type_error("hello", Json::parse(R"({"id":1,"ok":true,"device":null,"why":"no driver"})")));
    EXPECT_FALSE(reply_type_error(
        "load", Json::parse(R"({"ok":true,"kernel":{"name":"k","factory":"f","bound_params":{"M":"64"}},"target":"sm_90"})")));
    EXPECT_FALSE(reply_type_error(
        "bench", Json::parse(R"({"ok":true,"ours":{"median_ms":0.1},"check":{"ok":true,"outputs":[{"name":"C","pass":true}]}})")));
    EXPECT_FALSE(reply_type_error("run", Json::parse(R"({"ok":false,"kind":"no_device","error":"no CUDA device"})")));
    EXPECT_FALSE(event_type_error(Json::parse(R"({"event":"progress","stage":"bench","done":3,"total":50})")));
}

TEST(WorkerReplySchema, NamesTheFirstFieldOfTheWrongType) {
    EXPECT_EQ(reply_type_error("run", Json::parse(R"({"ok":"yes"})")).value_or(""),
              "field `ok` is a string, expected a boolean");
    EXPECT_EQ(reply_type_error("run", Json::parse(R"({"ok":true,"check":{"ok":1}})")).value_or(""),
              "field `check.ok` is a number, expected a boolean");
    EXPECT_EQ(reply_type_error("load", Json::parse(R"({"ok":true,"kernel":{"name":"k","bound_params":{"M":5}}})")).value_or(""),
              "field `kernel.bound_params.M` is a number, expected a string");
    EXPECT_EQ(reply_type_error("bench", Json::parse(R"({"ok":true,"check":{"outputs":[{"pass":true},{"rel_fro":"x"}]}})"))
                  .value_or(""),
              "field `check.outputs[1].rel_fro` is a string, expected a number");
    EXPECT_EQ(event_type_error(Json::parse(R"({"event":"progress","done":"1"})")).value_or(""),
              "field `done` is a string, expected a number");
}

TEST(WorkerReplySchema, AnOkReplyMustCarryWhatCallersRead) {
    EXPECT_EQ(reply_type_error("hello", Json::parse(R"({"ok":true})")).value_or(""), "field `device` is missing");
    EXPECT_EQ(reply_type_error("load", Json::parse(R"({"ok":true,"kernel":{"name":"k"}})")).value_or(""),
              "field `kernel.bound_params` is missing");
    // A failed reply need not: it has no kernel to describe.
    EXPECT_FALSE(reply_type_error("load", Json::parse(R"({"ok":false,"kind":"compile_failed","error":"x"})")));
}

TEST(WorkerClient, AReplyWithWrongFieldTypesIsAProtocolFailure) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "read line; echo '{\"id\":1,\"ok\":\"yes\",\"wall_ms\":[]}'; sleep 5"};
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.request({{"op", "run"}});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.kind, "protocol");
    EXPECT_EQ(r.error, "malformed reply from the worker: field `ok` is a string, expected a boolean");
    EXPECT_EQ(c.pid(), -1);  // killed: the next request starts a fresh worker
}

TEST(WorkerClient, AnEventWithWrongFieldTypesIsAProtocolFailure) {
    tp::WorkerOptions o;
    o.command = {"sh", "-c", "read line; echo '{\"event\":\"progress\",\"stage\":7}'; sleep 5"};
    tp::WorkerClient c(o);
    tp::WorkerReply r = c.request({{"op", "bench"}});
    EXPECT_EQ(r.kind, "protocol");
    EXPECT_NE(r.error.find("field `stage` is a number, expected a string"), std::string::npos) << r.error;
}
