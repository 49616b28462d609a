// posix_spawn-based child processes with line reads under a timeout; see subprocess.h.
#include "worker/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace tp::worker {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kStderrKeep = 64 * 1024;

int remaining_ms(Clock::time_point deadline, int timeout_ms) {
    if (timeout_ms < 0) return -1;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

}  // namespace

std::string ExitStatus::describe() const {
    if (running) return "still running";
    if (exited) return "exit code " + std::to_string(code);
    const char* name = sigabbrev_np(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : "");
}

Subprocess::~Subprocess() {
    if (pid_ > 0 && status_.running) kill();
    close_fd(in_);
    close_fd(out_);
    close_fd(errfd_);
}

bool Subprocess::start(const std::vector<std::string>& argv, std::string* error) {
    // A child that dies while we write to it must not take this process down with SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    if (argv.empty()) {
        if (error) *error = "empty command";
        return false;
    }
    int pin[2], pout[2], perr[2];
    if (pipe2(pin, O_CLOEXEC) != 0) {
        if (error) *error = std::string("pipe: ") + std::strerror(errno);
        return false;
    }
    if (pipe2(pout, O_CLOEXEC) != 0) {
        ::close(pin[0]), ::close(pin[1]);
        if (error) *error = std::string("pipe: ") + std::strerror(errno);
        return false;
    }
    if (pipe2(perr, O_CLOEXEC) != 0) {
        ::close(pin[0]), ::close(pin[1]), ::close(pout[0]), ::close(pout[1]);
        if (error) *error = std::string("pipe: ") + std::strerror(errno);
        return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
    posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
    posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Its own process group, so a hang is killed together with anything it started.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);

    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(pin[0]);
    ::close(pout[1]);
    ::close(perr[1]);
    if (rc != 0) {
        ::close(pin[1]), ::close(pout[0]), ::close(perr[0]);
        if (error) *error = "cannot start `" + argv[0] + "`: " + std::strerror(rc);
        return false;
    }
    pid_ = pid;
    in_ = pin[1];
    out_ = pout[0];
    errfd_ = perr[0];
    fcntl(out_, F_SETFL, fcntl(out_, F_GETFL) | O_NONBLOCK);
    fcntl(errfd_, F_SETFL, fcntl(errfd_, F_GETFL) | O_NONBLOCK);
    status_ = ExitStatus{};
    outbuf_.clear();
    err_.clear();
    return true;
}

void Subprocess::reap(bool block) {
    if (pid_ <= 0 || !status_.running) return;
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, block ? 0 : WNOHANG);
    if (r == pid_) {
        status_.running = false;
        if (WIFEXITED(st)) {
            status_.exited = true;
            status_.code = WEXITSTATUS(st);
        } else if (WIFSIGNALED(st)) {
            status_.signal = WTERMSIG(st);
        }
    } else if (r < 0 && errno == ECHILD) {
        status_.running = false;
    }
}

bool Subprocess::running() {
    reap(false);
    return pid_ > 0 && status_.running;
}

bool Subprocess::write(const std::string& text) {
    if (in_ < 0) return false;
    size_t off = 0;
    while (off < text.size()) {
        ssize_t n = ::write(in_, text.data() + off, text.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        off += static_cast<size_t>(n);
    }
    return true;
}

void Subprocess::close_stdin() { close_fd(in_); }

void Subprocess::drain_stderr() {
    char buf[4096];
    while (errfd_ >= 0) {
        ssize_t n = ::read(errfd_, buf, sizeof(buf));
        if (n > 0) {
            err_.append(buf, static_cast<size_t>(n));
            if (err_.size() > kStderrKeep) err_.erase(0, err_.size() - kStderrKeep);
        } else if (n == 0) {
            close_fd(errfd_);
        } else {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) close_fd(errfd_);
            break;
        }
    }
}

bool Subprocess::pump(int timeout_ms) {
    if (out_ < 0 && errfd_ < 0) return false;
    pollfd fds[2];
    int n = 0;
    if (out_ >= 0) fds[n++] = {out_, POLLIN, 0};
    if (errfd_ >= 0) fds[n++] = {errfd_, POLLIN, 0};
    int r = ::poll(fds, n, timeout_ms);
    if (r < 0 && errno != EINTR) return false;
    drain_stderr();
    char buf[65536];
    while (out_ >= 0) {
        ssize_t k = ::read(out_, buf, sizeof(buf));
        if (k > 0) {
            outbuf_.append(buf, static_cast<size_t>(k));
        } else if (k == 0) {
            close_fd(out_);
        } else {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) close_fd(out_);
            break;
        }
    }
    return true;
}

Subprocess::Read Subprocess::read_line(std::string& line, int timeout_ms) {
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        size_t nl = outbuf_.find('\n');
        if (nl != std::string::npos) {
            line = outbuf_.substr(0, nl);
            outbuf_.erase(0, nl + 1);
            return Read::Line;
        }
        if (out_ < 0) {
            // Output closed: hand back a last unterminated line, then EOF.
            if (!outbuf_.empty()) {
                line.swap(outbuf_);
                outbuf_.clear();
                return Read::Line;
            }
            drain_stderr();
            return Read::Eof;
        }
        int left = remaining_ms(deadline, timeout_ms);
        if (left == 0) return Read::Timeout;
        // Poll in short slices so stderr keeps draining and an exit is noticed promptly.
        if (!pump(left < 0 ? 200 : std::min(left, 200))) return Read::Eof;
    }
}

bool Subprocess::read_all(std::string& out, int timeout_ms) {
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
    while (out_ >= 0 || errfd_ >= 0) {
        int left = remaining_ms(deadline, timeout_ms);
        if (left == 0) {
            out = outbuf_;
            return false;
        }
        if (!pump(left < 0 ? 200 : std::min(left, 200))) break;
    }
    out.swap(outbuf_);
    outbuf_.clear();
    return true;
}

void Subprocess::kill() {
    if (pid_ <= 0) return;
    reap(false);
    if (status_.running) {
        ::kill(-pid_, SIGKILL);
        ::kill(pid_, SIGKILL);
        reap(true);
    }
    drain_stderr();
}

ExitStatus Subprocess::wait(int timeout_ms) {
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        reap(false);
        if (!status_.running) break;
        int left = remaining_ms(deadline, timeout_ms);
        if (left == 0) {
            kill();
            break;
        }
        if (out_ >= 0 || errfd_ >= 0) {
            pump(std::min(left < 0 ? 50 : left, 50));
        } else {
            ::usleep(10000);
        }
    }
    drain_stderr();
    return status_;
}

CommandResult run_command(const std::vector<std::string>& argv, int timeout_ms, const std::string& input) {
    CommandResult res;
    Subprocess p;
    if (!p.start(argv, &res.error)) return res;
    res.started = true;
    if (!input.empty()) p.write(input);
    p.close_stdin();
    res.timed_out = !p.read_all(res.out, timeout_ms);
    res.status = res.timed_out ? (p.kill(), p.status()) : p.wait(timeout_ms < 0 ? -1 : 5000);
    res.err = p.stderr_text();
    return res;
}

std::string find_executable(const std::string& name) {
    auto is_exec = [](const std::string& p) {
        struct stat st {};
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string::npos) return is_exec(name) ? name : "";
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= p.size()) {
        size_t end = p.find(':', start);
        if (end == std::string::npos) end = p.size();
        // An empty PATH entry means the current directory.
        std::string cand = end > start ? p.substr(start, end - start) : std::string(1, '.');
        cand += '/';
        cand += name;
        if (is_exec(cand)) return cand;
        start = end + 1;
    }
    return "";
}

}  // namespace tp::worker
