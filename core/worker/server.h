// The `tilec worker` loop: one JSON request per line on stdin, one reply per request on
// stdout, progress events in between (docs/worker-protocol.md). A sticky CUDA error (illegal
// address, ...) is replied with "fatal": true and the process exits 3 so the client starts a
// fresh one; a malformed request gets an error reply and the loop carries on.
#pragma once

#include <cstdio>
#include <functional>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace tp::worker {

using Json = nlohmann::json;

// Writes whole JSON lines to a FILE* from any thread.
class Emitter {
public:
    explicit Emitter(std::FILE* out) : out_(out) {}
    void emit(const Json& j);

private:
    std::FILE* out_;
    std::mutex mu_;
};

struct ServerOptions {
    int device = 0;
    double heartbeat_s = 1.0;  // progress events while the worker computes on the CPU
};

// Serves requests from `in` until EOF or `shutdown`; returns the process exit code.
int serve(std::FILE* in, std::FILE* out, const ServerOptions& opts = {});

// Moves the protocol off file descriptor 1: returns a FILE* on a duplicate of the original
// stdout for the JSON lines and points descriptor 1 at a temporary file that collects what
// kernels print (device printf). nullptr (and nothing changed) when that is not possible.
std::FILE* capture_stdout();
// Text written to descriptor 1 since the last call (at most `limit` bytes, then a note).
std::string take_printed(size_t limit = 1 << 20);

// Handles one request line; exposed for tests. Sets `exit_code` >= 0 when the loop must end.
void handle_line(const std::string& line, Emitter& em, int& exit_code);

}  // namespace tp::worker
