// SASS for a cubin: nvdisasm run as a child process on a temporary copy of the cubin. The
// toolkit is optional (the GPU machine has it; a CPU-only machine may not), so a missing tool
// is a sentence, not an error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "tileplay/inspect.h"
#include "worker/subprocess.h"

namespace tp {

std::string find_nvdisasm() {
    std::string p = worker::find_executable("nvdisasm");
    if (!p.empty() && p.find('/') != std::string::npos) return p;
    std::vector<std::string> dirs;
    if (const char* h = std::getenv("CUDA_HOME")) dirs.push_back(std::string(h) + "/bin");
    dirs.push_back("/usr/local/cuda/bin");
    for (const auto& d : dirs) {
        std::string c = d + "/nvdisasm";
        if (access(c.c_str(), X_OK) == 0) return c;
    }
    return {};
}

SassResult disassemble_cubin(const std::vector<uint8_t>& cubin, bool line_info) {
    SassResult r;
    if (cubin.empty()) {
        r.why = "no cubin (the compile stopped before NVRTC produced one)";
        return r;
    }
    r.tool = find_nvdisasm();
    if (r.tool.empty()) {
        r.why = "nvdisasm not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin; install the CUDA toolkit";
        return r;
    }
    char path[] = "/tmp/tileplay-inspect-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        r.why = "cannot create a temporary file for the cubin";
        return r;
    }
    bool wrote = ::write(fd, cubin.data(), cubin.size()) == static_cast<ssize_t>(cubin.size());
    ::close(fd);
    if (!wrote) {
        std::remove(path);
        r.why = "cannot write the cubin to a temporary file";
        return r;
    }
    std::vector<std::string> argv = {r.tool, "-c"};
    if (line_info) argv.push_back("-g");
    argv.push_back(path);
    worker::CommandResult cr = worker::run_command(argv, 60000);
    std::remove(path);
    if (!cr.started) {
        r.why = "cannot start " + r.tool + ": " + cr.error;
    } else if (cr.timed_out) {
        r.why = r.tool + " did not finish within 60 s";
    } else if (!cr.status.exited || cr.status.code != 0) {
        std::string err = cr.err.substr(0, cr.err.find('\n'));
        r.why = r.tool + " failed (" + cr.status.describe() + ")" + (err.empty() ? "" : ": " + err);
    } else {
        r.ok = true;
        r.text = std::move(cr.out);
    }
    return r;
}

}  // namespace tp
