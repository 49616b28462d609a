// `tilec worker`: the out-of-process kernel runner. JSON lines on stdin/stdout
// (docs/worker-protocol.md); exits 3 after a sticky CUDA error so its parent starts a new one.
#include <cstdio>
#include <cstdlib>

#include "cli_common.h"
#include "tileplay/doctor.h"

namespace tilec {

void add_worker_command(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand("worker", "Run kernels for a parent process: JSON lines on stdin/stdout");
    auto device = std::make_shared<int>(0);
    auto heartbeat = std::make_shared<double>(1.0);
    cmd->add_option("--device", *device, "CUDA device ordinal")->default_val(0);
    cmd->add_option("--heartbeat", *heartbeat, "seconds between progress events during CPU work")->default_val(1.0);
    cmd->callback([&exit_code, device, heartbeat] {
        int rc = tp::serve_worker_stdio(*device, *heartbeat);
        std::fflush(stdout);
        std::fflush(stderr);
        // After a sticky CUDA error the context is unusable; leave without running
        // destructors that would call into it.
        if (rc == 3) std::_Exit(3);
        exit_code = rc;
    });
}

}  // namespace tilec
