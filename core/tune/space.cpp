// The tuner's search space: -T axes, the factory's @autotune(configs=...) decorator (evaluated
// by the trace-time evaluator) or the sample header's `# tileplay: tune` line; plus the small
// helpers around configs and the cache's hash.
#include <algorithm>
#include <cstdio>

#include "eval/evaluator.h"
#include "frontend/parser.h"
#include "tileplay/sample_header.h"
#include "tileplay/tune.h"

namespace tp {

std::string config_text(const TuneConfig& c) {
    std::string s;
    for (const auto& [k, v] : c) s += (s.empty() ? "" : " ") + k + "=" + v;
    return s;
}

std::vector<TuneConfig> expand_axes(const TuneAxes& axes) {
    std::vector<TuneConfig> out = {{}};
    for (const auto& [name, values] : axes) {
        std::vector<TuneConfig> next;
        for (const auto& c : out)
            for (const auto& v : values) {
                TuneConfig n = c;
                n.emplace_back(name, v);
                next.push_back(std::move(n));
            }
        out = std::move(next);
    }
    return out;
}

bool parse_axis(const std::string& text, std::pair<std::string, std::vector<std::string>>& out, std::string* error) {
    size_t eq = text.find('=');
    bool named = eq != std::string::npos && eq > 0;
    for (size_t i = 0; named && i < eq; ++i)
        named = std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_';
    if (!named) {
        if (error) *error = "cannot parse `" + text + "`; expected NAME=V1,V2,...";
        return false;
    }
    out.first = text.substr(0, eq);
    out.second.clear();
    // Commas split values, except inside brackets: `-T shape=(64,64),(128,64)`.
    std::string cur;
    int depth = 0;
    for (char c : text.substr(eq + 1)) {
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            if (!cur.empty()) out.second.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.second.push_back(cur);
    if (out.second.empty()) {
        if (error) *error = "`" + text + "` lists no values";
        return false;
    }
    return true;
}

uint64_t fnv1a64(const std::string& data, uint64_t seed) {
    uint64_t h = seed;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string digest128(const std::string& data) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(fnv1a64(data)),
                  static_cast<unsigned long long>(fnv1a64(data, 0x84222325cbf29ce4ull)));
    return buf;
}

namespace {

// default_tune_axes of the named factory (else the file's first).
TuneAxes factory_default_axes(const SourceFilePtr& file, const std::string& kernel, const TuneConfig& fixed) {
    DiagnosticEngine diags(file);
    ast::ModulePtr module = frontend::parse_module(file, diags);
    if (!module || diags.has_errors()) return {};
    auto factories = eval::find_factories(*module);
    for (const auto& f : factories)
        if (kernel.empty() || f.name == kernel) return default_tune_axes(f.params, fixed);
    return {};
}

}  // namespace

TuneSpace find_tune_space(const std::string& path, const std::string& source, const std::string& kernel,
                          const TuneAxes& cli_axes, const TuneConfig& fixed, const std::string& target) {
    TuneSpace space;
    auto file = SourceFile::from_string(path.empty() ? "<input>" : path, source);
    DiagnosticEngine diags(file);
    try {
        ast::ModulePtr module = frontend::parse_module(file, diags);
        if (module && !diags.has_errors() && !kernel.empty()) {
            // An unknown -k is the user's error, said once, not once per config.
            auto factories = eval::find_factories(*module);
            std::string names;
            bool known = false;
            for (const auto& f : factories) {
                known |= f.name == kernel;
                names += (names.empty() ? "`" : ", `") + f.name + "`";
            }
            if (!known) diags.report(DiagKind::UnknownKernel, {}, {kernel, names.empty() ? "(none)" : names});
        }
        if (module && !diags.has_errors() && !cli_axes.empty()) {
            space.origin = "-T";
            space.configs = expand_axes(cli_axes);
            space.ok = true;
        } else if (module && !diags.has_errors()) {
            eval::EvalRequest req;
            req.kernel = kernel;
            req.fallback_defines = fixed;
            req.target = target;
            eval::AutotuneSpace a = eval::evaluate_autotune_space(module, req, diags);
            if (a.found && !diags.has_errors()) {
                space.origin = "@autotune(configs=...) at line " + std::to_string(a.line);
                space.configs = std::move(a.configs);
                space.ok = true;
            }
        }
    } catch (const InternalError& e) {
        diags.report(DiagKind::BadTuneSpace, {}, {std::string("internal compiler error: ") + e.what()});
    } catch (const std::exception& e) {
        diags.report(DiagKind::BadTuneSpace, {}, {std::string("internal error: ") + e.what()});
    }
    if (!space.ok && !diags.has_errors() && cli_axes.empty()) {
        SampleHeader h = parse_sample_header(source);
        if (!h.tune.empty()) {
            space.origin = "`# tileplay: tune` header";
            space.configs = expand_axes(h.tune);
            space.ok = true;
        } else if (TuneAxes axes = factory_default_axes(file, kernel.empty() ? h.kernel : kernel, fixed); !axes.empty()) {
            std::string names;
            for (const auto& [n, v] : axes) names += (names.empty() ? "" : ", ") + n;
            space.origin = "default space over the factory's schedule parameters (" + names + ")";
            space.configs = expand_axes(axes);
            space.ok = true;
        } else {
            diags.report(DiagKind::BadTuneSpace, {},
                         {"nothing to tune in `" + file->path() +
                          "`: no schedule parameter (block_*, threads, num_stages, vec*) with an integer value; add "
                          "`@autotune(configs=...)` to the factory, a `# tileplay: tune NAME=V1,V2` line, or pass `-T NAME=V1,V2`"});
        }
    }
    space.diagnostics = diags.take();
    space.diagnostics_text = render_diagnostics(space.diagnostics, file.get(), false);
    return space;
}

}  // namespace tp
