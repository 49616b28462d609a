// Helpers shared by the tilec commands.
#include "cli_common.h"

#include "tileplay/diagnostics.h"
#include "tileplay/source_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace tilec {

bool read_file(const std::string& path, std::string& out) {
    std::string why;
    if (!tp::read_source_file(path, out, &why)) {
        std::fprintf(stderr, "tilec: error: cannot read `%s`: %s\n", path.c_str(), why.c_str());
        return false;
    }
    if (out.size() > tp::kMaxSourceBytes) {
        tp::Diagnostic diag;
        diag.kind = tp::DiagKind::SizeTooLarge;
        diag.severity = tp::Severity::Error;
        diag.message = tp::format_diag(tp::DiagKind::SizeTooLarge, {"the source", tp::source_too_large_message()});
        diag.file = path;
        std::cerr << tp::render_diagnostic(diag, nullptr, use_color());
        out.clear();
        return false;
    }
    return true;
}

bool parse_defines(const std::vector<std::string>& raw, std::vector<std::pair<std::string, std::string>>& out, bool dotted) {
    bool ok = true;
    for (const auto& d : raw) {
        size_t eq = d.find('=');
        bool valid = eq != std::string::npos && eq > 0;
        for (size_t i = 0; valid && i < eq; ++i)
            valid = isalnum(static_cast<unsigned char>(d[i])) || d[i] == '_' || (dotted && d[i] == '.');
        if (!valid) {
            tp::Diagnostic diag;
            diag.kind = tp::DiagKind::BadDefine;
            diag.severity = tp::Severity::Error;
            diag.message = tp::format_diag(tp::DiagKind::BadDefine, {d});
            diag.file = "tilec";
            std::cerr << tp::render_diagnostic(diag, nullptr, use_color());
            ok = false;
            continue;
        }
        out.emplace_back(d.substr(0, eq), d.substr(eq + 1));
    }
    return ok;
}

tp::CompileRequest make_request(const std::string& path, const std::string& source, const std::string& kernel,
                                const std::vector<std::pair<std::string, std::string>>& defines,
                                const std::string& target, bool cpu_sizes) {
    tp::CompileRequest req;
    req.path = path;
    req.source = source;
    req.defines = defines;
    req.target = target;
    tp::SampleHeader h = tp::parse_sample_header(source);
    req.kernel = kernel.empty() ? h.kernel : kernel;
    // CPU sizes first so they win over the GPU sizes for a CPU run; both only fill gaps.
    if (cpu_sizes) req.fallback_defines = h.cpu_args;
    req.fallback_defines.insert(req.fallback_defines.end(), h.args.begin(), h.args.end());
    return req;
}

bool use_color() {
    if (std::getenv("TILEPLAY_NO_COLOR") || std::getenv("NO_COLOR")) return false;
    return isatty(STDERR_FILENO) != 0;
}

int report_failure(const tp::CompileResult& r, bool remarks) {
    std::cerr << r.render_diagnostics(use_color(), remarks);
    if (r.internal_error) {
        const auto& e = *r.internal_error;
        std::cerr << "tilec: internal compiler error: " << e.what() << " (" << e.file << ":" << e.line;
        if (!e.pass.empty()) std::cerr << ", pass " << e.pass;
        std::cerr << ")\n";
        return kInternalError;
    }
    return kUserError;
}

void add_worker_option(CLI::App* cmd, std::vector<std::string>& specs, bool many) {
    auto* o = cmd->add_option("--worker", specs,
                              many ? "where workers run: local, ssh://[user@]HOST[:PORT][/path/to/tilec] or slurm:PARTITION; repeat for a pool"
                                   : "where the worker runs: local, ssh://[user@]HOST[:PORT][/path/to/tilec] or slurm:PARTITION");
    if (!many) o->expected(1);
}

bool workers_from_specs(const std::vector<std::string>& specs, const tp::WorkerOptions& base, std::vector<tp::WorkerOptions>& out,
                        const char* command) {
    out.clear();
    std::map<std::string, int> seen;
    for (const auto& spec : specs) seen[spec]++;
    std::map<std::string, int> nth;
    for (const auto& spec : specs) {
        tp::WorkerOptions w = base;
        std::string why;
        if (!tp::parse_worker_spec(spec, w, &why)) {
            std::fprintf(stderr, "tilec %s: error: %s\n", command, why.c_str());
            return false;
        }
        // The same SPEC twice is two workers (two Slurm jobs, two ssh sessions): name them apart.
        if (seen[spec] > 1) w.where += " #" + std::to_string(++nth[spec]);
        out.push_back(std::move(w));
    }
    if (out.empty()) out.push_back(base);
    return true;
}

int inspect_failed(const std::string& file, bool json, const std::string& error, const std::vector<tp::Diagnostic>& diags,
                   const tp::SourceFile* source) {
    if (json) {
        std::printf("%s\n", nlohmann::json{{"file", file}, {"ok", false}, {"error", error}}.dump(2).c_str());
        return kUserError;
    }
    bool failed = std::any_of(diags.begin(), diags.end(), [](const tp::Diagnostic& d) { return d.severity == tp::Severity::Error; });
    if (failed) std::fputs(tp::render_diagnostics(diags, source, use_color()).c_str(), stderr);
    std::fprintf(stderr, "tilec inspect: error: %s\n", error.c_str());
    return kUserError;
}

}  // namespace tilec
