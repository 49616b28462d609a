// A child process with pipes on stdin, stdout and stderr (posix_spawn, its own process group),
// read line by line with a timeout, and killed with its whole group when it hangs. Used by
// the worker client (`tilec worker`), the PyTorch baseline and `tilec doctor`'s probes.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace tp::worker {

struct ExitStatus {
    bool running = true;  // still alive (or never reaped)
    bool exited = false;  // exited normally with `code`
    int code = 0;
    int signal = 0;       // killed by this signal
    std::string describe() const;  // "exit code 7", "killed by signal 11 (SIGSEGV)"
};

class Subprocess {
public:
    Subprocess() = default;
    ~Subprocess();  // kills the child if still running
    Subprocess(const Subprocess&) = delete;
    Subprocess& operator=(const Subprocess&) = delete;

    // Starts argv[0] (searched in PATH) with argv; false with `error` set when it cannot.
    bool start(const std::vector<std::string>& argv, std::string* error = nullptr);
    bool running();
    pid_t pid() const { return pid_; }

    // Writes text to the child's stdin; false when the pipe is closed.
    bool write(const std::string& text);
    void close_stdin();

    enum class Read { Line, Timeout, Eof };
    // Reads one line from stdout (without the newline), waiting at most timeout_ms (< 0 waits
    // forever). Stderr is drained meanwhile into stderr_text().
    Read read_line(std::string& line, int timeout_ms);
    // Reads stdout to EOF or until the timeout; false on timeout.
    bool read_all(std::string& out, int timeout_ms);

    // SIGKILL to the child's process group, then reaps it.
    void kill();
    // Waits for the child to exit, at most timeout_ms; kills it after that.
    ExitStatus wait(int timeout_ms);
    const ExitStatus& status() const { return status_; }

    const std::string& stderr_text() const { return err_; }  // last 64 KB of stderr

private:
    bool pump(int timeout_ms);  // one poll round; false when nothing more can arrive
    void drain_stderr();
    void reap(bool block);

    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, errfd_ = -1;
    std::string outbuf_, err_;
    ExitStatus status_;
};

struct CommandResult {
    bool started = false;
    bool timed_out = false;
    ExitStatus status;
    std::string out, err;
    std::string error;  // why it did not start
};

// Runs a command to completion with a wall-clock limit, feeding `input` on stdin.
CommandResult run_command(const std::vector<std::string>& argv, int timeout_ms, const std::string& input = "");

// Finds an executable in PATH (or returns `name` when it contains a '/' and is executable).
std::string find_executable(const std::string& name);

}  // namespace tp::worker
