// Modules a kernel file imports from its own folder, as Python finds them through sys.path[0]:
// `from block_causal_attention import _check_dllm_block` beside block_causal_attention_varlen.py.
// Such a module is parsed once, its globals evaluated lazily like the compiled file's, and its
// functions run at trace time (asserts, arithmetic, helpers that build IR). Its source lines are
// not lines of the compiled file, which is all diagnostics and line maps can point into, so
// every node of it carries the span of the import statement; an error raised inside one of its
// functions moves to the call that reached it, with a note naming the function's module.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "eval/interp.h"
#include "frontend/parser.h"

namespace tp::eval {

namespace {

namespace fs = std::filesystem;

// Python's source-size sanity bound for a helper module; larger files are data, not helpers.
constexpr std::uintmax_t kMaxModuleBytes = 4u << 20;

bool valid_dotted(const std::string& dotted) {
    if (dotted.empty() || dotted.front() == '.' || dotted.back() == '.') return false;
    for (size_t i = 0; i < dotted.size(); ++i) {
        char c = dotted[i];
        bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c == '.' && dotted[i - 1] != '.');
        if (!ok) return false;
    }
    return true;
}

// `<folder of the compiled file>/a/b.py` for `a.b`, or `a/b/__init__.py` when `a.b` is a package;
// empty when the file has no folder on disk (an editor buffer) or no such module is there.
fs::path sibling_path(const ast::Module& main, const std::string& dotted) {
    if (!main.file || main.file->path().empty() || !valid_dotted(dotted)) return {};
    std::error_code ec;
    fs::path dir = fs::path(main.file->path()).parent_path();
    if (dir.empty()) dir = ".";
    if (!fs::is_regular_file(main.file->path(), ec)) return {};
    std::string rel = dotted;
    for (char& c : rel)
        if (c == '.') c = '/';
    fs::path p = dir / (rel + ".py");
    if (fs::is_regular_file(p, ec)) return p;
    p = dir / rel / "__init__.py";  // a package: the folder's __init__.py
    if (fs::is_regular_file(p, ec)) return p;
    return {};
}

}  // namespace

ModuleGlobals* Evaluator::user_module(const std::string& dotted, Span span) {
    if (auto it = user_modules_.find(dotted); it != user_modules_.end()) return it->second.get();
    fs::path path = sibling_path(*module, dotted);
    if (path.empty()) return nullptr;
    std::error_code ec;
    std::uintmax_t size = fs::file_size(path, ec);
    if (ec || size > kMaxModuleBytes)
        fail(DiagKind::ImportFailed, span, {dotted, path.string(), ec ? ec.message() : "the file is larger than 4 MiB"});
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) fail(DiagKind::ImportFailed, span, {dotted, path.string(), "the file cannot be read"});
    auto file = SourceFile::from_string(path.string(), text.str());
    DiagnosticEngine local(file);
    ast::ModulePtr ast = frontend::parse_module_pinned(file, span, local);
    if (!ast) {
        // Parse again with the module's own lines, only to say where its syntax error is.
        DiagnosticEngine located(file);
        frontend::parse_module(file, located);
        std::string why = "it does not parse";
        if (!located.diagnostics().empty()) {
            const Diagnostic& d = located.diagnostics().front();
            why = std::to_string(d.span.begin.line) + ":" + std::to_string(d.span.begin.col) + ": " + d.message;
        }
        fail(DiagKind::ImportFailed, span, {dotted, path.string(), why});
    }
    auto m = std::make_unique<ModuleGlobals>();
    m->name = dotted;
    m->package = path.filename() == "__init__.py";
    m->ast = std::move(ast);
    m->pin = span;
    index_module_globals(*m, false);
    ModuleGlobals* raw = m.get();
    module_by_scope_[raw->scope.get()] = raw;
    user_modules_[dotted] = std::move(m);
    return raw;
}

std::optional<Value> Evaluator::user_module_attr(const std::string& dotted, const std::string& name, Span span) {
    ModuleGlobals* m = user_module(dotted, span);
    if (!m) return std::nullopt;
    bool found = false;
    Value v = global_in(*m, name, span, &found);
    if (found) return v;
    // `import pkg` then `pkg.mod`: a submodule file in the package's folder.
    if (user_module(dotted + "." + name, span)) return module_value(dotted + "." + name, span);
    return std::nullopt;
}

Value Evaluator::call_imported(const FuncObj& f, ModuleGlobals& home, CallArgs& args) {
    try {
        return call_function(f, args);
    } catch (UserError& e) {
        // Raised by the imported code itself (its spans are all the import's): show the call.
        // An error at a span of the compiled file (an argument's, a nested call already moved)
        // is left where it is.
        if (!(e.diag.span == home.pin) || args.span == home.pin) throw;
        Diagnostic note;
        note.kind = DiagKind::ImportedCodeHere;
        note.severity = Severity::Note;
        note.message = format_diag(DiagKind::ImportedCodeHere, {f.name, fs::path(home.ast->file->path()).filename().string()});
        note.file = e.diag.file;
        note.span = home.pin;
        e.diag.span = args.span;
        e.diag.notes.push_back(std::move(note));
        throw;
    }
}

}  // namespace tp::eval
