// parse_worker_spec (tileplay/worker_client.h): turns a --worker value into the command that
// starts the worker. A remote worker is the same protocol over `ssh HOST tilec worker`: ssh
// carries stdin/stdout, so nothing on the other side listens on a port of its own.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "tileplay/worker_client.h"

namespace tp {

namespace {

// Characters a host or user name may hold: nothing the remote shell or ssh's option parser
// could read as anything but a name.
bool plain_name(const std::string& s) {
    if (s.empty() || s[0] == '-') return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' && c != ':') return false;
    return true;
}

// The remote command goes through the remote user's shell: quote the path as one word.
std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::vector<std::string> ssh_command() {
    std::vector<std::string> cmd;
    const char* env = std::getenv("TILEPLAY_SSH");
    std::istringstream words(env && *env ? env : "ssh");
    for (std::string w; words >> w;) cmd.push_back(w);
    // Never a password prompt (no terminal to answer it), a bounded connect, and keep-alives
    // that end ssh about 15 s after the other side stops answering: a dead link becomes an
    // exited worker, which the client reports, never a hang.
    for (const char* o : {"BatchMode=yes", "ConnectTimeout=10", "ServerAliveInterval=5", "ServerAliveCountMax=3"}) {
        cmd.push_back("-o");
        cmd.push_back(o);
    }
    cmd.push_back("-T");  // no pseudo-terminal: the pipes must carry bytes unchanged
    return cmd;
}

bool parse_ssh(const std::string& rest, const std::string& spec, WorkerOptions& out, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error) *error = "cannot read the worker `" + spec + "`: " + why + "; expected ssh://[user@]HOST[:PORT][/path/to/tilec]";
        return false;
    };
    size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? std::string() : rest.substr(slash);
    if (path.rfind("/~", 0) == 0) path.erase(0, 1);  // ssh://host/~/bin/tilec: relative to the remote home
    if (path == "/") path.clear();
    std::string user, host = authority, port;
    if (size_t at = authority.rfind('@'); at != std::string::npos) {
        user = authority.substr(0, at);
        host = authority.substr(at + 1);
        if (!plain_name(user)) return fail("the user name `" + user + "` is not a plain name");
    }
    if (!host.empty() && host[0] == '[') {  // [IPv6]:port
        size_t close = host.find(']');
        if (close == std::string::npos) return fail("`[` without `]`");
        if (close + 1 < host.size()) {
            if (host[close + 1] != ':') return fail("text after `]` that is not `:PORT`");
            port = host.substr(close + 2);
        }
        host = host.substr(1, close - 1);
    } else if (size_t colon = host.find(':'); colon != std::string::npos) {
        port = host.substr(colon + 1);
        host = host.substr(0, colon);
    }
    if (host.empty()) return fail("no host");
    if (!plain_name(host)) return fail("the host `" + host + "` is not a plain name");
    if (!port.empty()) {
        bool digits = port.size() <= 5;
        for (char c : port) digits = digits && std::isdigit(static_cast<unsigned char>(c));
        if (!digits || std::atoi(port.c_str()) < 1 || std::atoi(port.c_str()) > 65535) return fail("the port `" + port + "` is not 1-65535");
    }
    if (path.empty()) {
        const char* env = std::getenv("TILEPLAY_REMOTE_TILEC");
        path = env && *env ? env : "tilec";
    }
    out.command = ssh_command();
    if (!port.empty()) {
        out.command.push_back("-p");
        out.command.push_back(port);
    }
    out.command.push_back(user.empty() ? host : user + "@" + host);
    out.command.push_back("--");
    // `~/...` stays outside the quotes so the remote shell expands it to the home directory.
    std::string word = path.rfind("~/", 0) == 0 ? "~/" + shell_quote(path.substr(2)) : shell_quote(path);
    out.command.push_back(word + " worker");
    out.where = "ssh://" + authority;
    out.handshake = true;
    return true;
}

// slurm:PARTITION: `srun` allocates one task on a node of the partition and runs the worker
// there, its stdin and stdout forwarded (--unbuffered: each reply as it is written). The path
// is this tilec's (clusters share a file system) unless $TILEPLAY_REMOTE_TILEC says;
// $TILEPLAY_SRUN_OPTIONS adds flags (--gpus-per-task=1, --time=30, an account).
bool parse_slurm(const std::string& partition, const std::string& spec, WorkerOptions& out, std::string* error) {
    if (!plain_name(partition) || partition.find(':') != std::string::npos) {
        if (error) *error = "cannot read the worker `" + spec + "`: expected slurm:PARTITION with a plain partition name";
        return false;
    }
    const char* path = std::getenv("TILEPLAY_REMOTE_TILEC");
    out.command = {"srun", "--partition=" + partition, "--nodes=1", "--ntasks=1", "--unbuffered", "--job-name=tilec-worker"};
    if (const char* extra = std::getenv("TILEPLAY_SRUN_OPTIONS"); extra && *extra) {
        std::istringstream words(extra);
        for (std::string w; words >> w;) out.command.push_back(w);
    }
    out.command.push_back(path && *path ? path : default_tilec_path());
    out.command.push_back("worker");
    out.where = spec;
    out.handshake = true;
    // The job may wait in the queue before the worker can answer its hello.
    out.start_timeout_s = std::max(out.start_timeout_s, 300.0);
    return true;
}

}  // namespace

bool parse_worker_spec(const std::string& spec, WorkerOptions& out, std::string* error) {
    if (spec.empty() || spec == "local") {
        out.command.clear();
        out.where = "local";
        return true;
    }
    if (spec.rfind("ssh://", 0) == 0) return parse_ssh(spec.substr(6), spec, out, error);
    if (spec.rfind("slurm:", 0) == 0) return parse_slurm(spec.substr(6), spec, out, error);
    if (error) *error = "cannot read the worker `" + spec + "`: expected `local`, ssh://[user@]HOST[:PORT][/path/to/tilec] or slurm:PARTITION";
    return false;
}

}  // namespace tp
