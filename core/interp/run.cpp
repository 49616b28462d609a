// run_one_launch (run_on_cpu for a kernel of one launch): binds the arguments, finds the grid,
// and runs the blocks over a pool of std::threads (blocks are independent; global buffers are shared, block-local ones live in
// each thread's frame). The first error in block order wins so reports are deterministic.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "interp/aliases.h"
#include "interp/index_inputs.h"
#include "interp/program.h"
#include "interp/race_check.h"
#include "ir/functor.h"
#include "ir/ir.h"
#include "tileplay/interp.h"
#include "transform/insert_syncs.h"

namespace tp {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
    std::string o = "[";
    for (size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
    return o + "]";
}

}  // namespace

bool arg_shapes(const ir::PrimFunc& f, const std::map<std::string, int64_t>& symbols,
                std::vector<std::vector<int64_t>>& shapes, std::string* error) {
    shapes.assign(f.params.size(), {});
    for (size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        if (!p.buffer) continue;
        for (const auto& d : p.buffer->shape) {
            if (auto c = ir::as_const_int(d)) {
                shapes[i].push_back(*c);
                continue;
            }
            auto* v = d->as<ir::VarNode>();
            auto it = v ? symbols.find(v->name) : symbols.end();
            if (it == symbols.end()) {
                if (error) *error = "dimension `" + ir::print(d) + "` of `" + p.name + "` has no value; pass `-D " + (v ? v->name : std::string("NAME")) + "=...`";
                return false;
            }
            shapes[i].push_back(it->second);
        }
    }
    return true;
}

bool allocate_args(const ir::PrimFunc& f, uint64_t seed, const std::map<std::string, int64_t>& symbols, std::map<std::string, HostTensor>& args,
                   std::string* error, const MemoryBudget* budget, std::vector<std::string>* notes) {
    // Shapes first, then the budget check, then the allocations: a run too large for this
    // machine is refused with its sizes instead of dying in bad_alloc or the OOM killer.
    std::vector<std::vector<int64_t>> shapes;
    if (!arg_shapes(f, symbols, shapes, error)) return false;
    if (!check_run_memory(f, shapes, error, budget)) return false;
    // Integer tables the kernel indexes with get in-range values (index_inputs.h); a scalar
    // grid size left unset takes the longest segment of its offsets tables.
    const interp::IndexPlan plan = interp::plan_index_inputs(f, shapes, symbols);
    if (notes) notes->insert(notes->end(), plan.notes.begin(), plan.notes.end());
    uint64_t position = 0;
    for (size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        ++position;
        if (p.buffer) {
            HostTensor t(p.buffer->dtype, shapes[i]);
            if (auto fill = plan.fills.find(i); fill != plan.fills.end() && !p.is_output)
                t.from_doubles(interp::index_fill_values(fill->second, t.numel(), seed + position));
            else if (!p.is_output)
                t.fill_random(seed + position);
            args[p.name] = std::move(t);
        } else if (p.var) {
            std::optional<int64_t> value;
            if (auto it = symbols.find(p.name); it != symbols.end())
                value = it->second;
            else if (auto d = plan.scalars.find(p.name); d != plan.scalars.end())
                value = d->second;
            if (!value) {
                if (error) *error = "scalar parameter `" + p.name + "` has no value; pass `-D " + p.name + "=...`";
                return false;
            }
            HostTensor t(p.var->dtype, {});
            t.set(0, static_cast<double>(*value));
            args[p.name] = std::move(t);
        }
    }
    return true;
}

// The first statement that reads a launch's thread index (T.get_thread_binding), as a warning:
// the interpreter runs a block as one program in which it reads 0.
std::optional<Diagnostic> thread_index_warning(const ir::PrimFunc& f, const std::string& file) {
    struct Find : ir::IRVisitor {
        std::set<const ir::VarNode*> threads;
        const ir::VarNode* var = nullptr;
        Span span;
        Span stmt_span;
        void visit_KernelLaunch(const ir::KernelLaunchNode& n, const ir::Stmt& s) override {
            for (const auto& v : n.thread_vars) threads.insert(v.get());
            ir::IRVisitor::visit_KernelLaunch(n, s);
        }
        void visit_stmt(const ir::Stmt& s) override {
            Span saved = stmt_span;
            if (s->span.valid()) stmt_span = s->span;
            ir::IRVisitor::visit_stmt(s);
            stmt_span = saved;
        }
        void visit_Var(const ir::VarNode& n, const ir::Expr&) override {
            if (!var && threads.count(&n)) {
                var = &n;
                span = stmt_span;
            }
        }
    } find;
    find.visit(f.body);
    if (!find.var) return std::nullopt;
    Diagnostic d;
    d.kind = DiagKind::ThreadIndexOnInterpreter;
    d.severity = Severity::Warning;
    d.span = find.span;
    d.file = file;
    d.message = format_diag(d.kind, {find.var->name});
    return d;
}

// The race checker's reach in `f` (InterpReport::races_scope); `elements` whether it follows
// each shared-memory element's accesses.
static std::string race_scope(const ir::PrimFunc& f, bool thread_mode, bool& elements) {
    struct Find : ir::IRVisitor {
        bool roles = false;
        void visit_RoleBlock(const ir::RoleBlockNode& n, const ir::Stmt& s) override {
            roles = true;
            ir::IRVisitor::visit_RoleBlock(n, s);
        }
    } find;
    find.visit(f.body);
    elements = false;
    if (find.roles)
        return "async copies and mbarrier phases; not shared-memory races: the `T.ws` roles are ordered by their mbarriers, "
               "which the checker does not follow";
    if (!thread_mode && thread_index_warning(f, "").has_value())
        return "async copies and mbarrier phases; not shared-memory races: the kernel branches on the thread index around a "
               "tile op, so its blocks run as one program without per-thread indices";
    elements = true;
    return thread_mode ? "shared-memory races (each block run as its threads), async copies and mbarrier phases"
                       : "shared-memory races (T.Parallel iterations and tile ops on the threads the CUDA lowering gives them), "
                         "async copies and mbarrier phases";
}

namespace interp {

InterpReport run_one_launch(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts) {
    InterpReport rep;
    Program prog;
    prog.file = opts.source_path;
    prog.thread_mode = interp::thread_level(f);
    prog.check_races = opts.check_races;
    // What the race checker can follow: element races need every access's thread, which a
    // block run as one program does not have when it branches on the thread index, and an
    // order between warp roles, which only their mbarriers give (not modelled).
    bool check_elements = false;
    if (opts.check_races) {
        rep.races_scope = race_scope(f, prog.thread_mode, check_elements);
    }
    // Thread-level code relies on the barriers the compiler places between one thread's
    // shared-memory writes and another's reads (TileLang's storage sync): the threads run with
    // the same barriers here, and the race checker checks the kernel with them.
    const bool sync = prog.thread_mode || check_elements;
    ir::PrimFuncPtr synced = sync ? transform::insert_syncs(std::make_shared<ir::PrimFunc>(f)) : nullptr;
    const ir::PrimFunc& g = synced ? *synced : f;
    interp::set_alias_groups(prog, g);
    try {
        prog.root = compile_stmt(prog, g.body);
    } catch (const RunError& e) {
        rep.diagnostics.push_back(e.diag);
        return rep;
    }
    if (!prog.thread_mode)
        if (auto w = thread_index_warning(f, opts.source_path)) rep.warnings.push_back(*w);

    // Bind parameters: globals become shared double arrays, scalars and symbolic dims slots.
    // Slots are created first so the template frame has room for all of them.
    for (const auto& p : f.params) {
        if (p.var) prog.slot_of(p.var);
        if (!p.buffer) continue;
        prog.buffer_slot(p.buffer);
        for (const auto& d : p.buffer->shape)
            if (d->as<ir::VarNode>()) prog.slot_of(std::static_pointer_cast<const ir::VarNode>(d));
    }
    Frame tmpl = prog.make_frame();
    std::vector<std::vector<double>> global_data(f.params.size());
    std::vector<std::vector<uint8_t>> written(f.params.size());
    auto set_var = [&](const ir::Var& v, double value) {
        VarSlot s = prog.slot_of(v);
        if (s.is_float) tmpl.fvars[static_cast<size_t>(s.index)] = value;
        else tmpl.ivars[static_cast<size_t>(s.index)] = static_cast<int64_t>(value);
    };
    std::map<const ir::VarNode*, int64_t> bound;
    for (size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        auto it = args.find(p.name);
        if (it == args.end()) {
            rep.error = "no argument for parameter `" + p.name + "`";
            return rep;
        }
        HostTensor& t = it->second;
        if (p.var) {
            if (t.numel() != 1) {
                rep.error = "scalar parameter `" + p.name + "` needs a single value, got " + t.describe();
                return rep;
            }
            set_var(p.var, t.get(0));
            continue;
        }
        if (!p.buffer) continue;
        if (t.dtype != p.buffer->dtype || t.shape.size() != p.buffer->shape.size()) {
            rep.error = "argument `" + p.name + "` is " + t.describe() + " but the kernel expects " + p.buffer->dtype.name() +
                        " with " + std::to_string(p.buffer->shape.size()) + " dimension(s)";
            return rep;
        }
        for (size_t d = 0; d < t.shape.size(); ++d) {
            const ir::Expr& dim = p.buffer->shape[d];
            if (auto c = ir::as_const_int(dim)) {
                if (*c != t.shape[d]) {
                    rep.error = "argument `" + p.name + "` has shape " + shape_str(t.shape) + " but dimension " + std::to_string(d) +
                                " of the kernel's `" + p.name + "` is " + std::to_string(*c);
                    return rep;
                }
            } else if (auto* v = dim->as<ir::VarNode>()) {
                auto b = bound.find(v);
                if (b != bound.end() && b->second != t.shape[d]) {
                    rep.error = "symbolic dimension `" + v->name + "` is " + std::to_string(b->second) + " from an earlier argument but " +
                                std::to_string(t.shape[d]) + " in `" + p.name + "`";
                    return rep;
                }
                bound[v] = t.shape[d];
                rep.symbols[v->name] = t.shape[d];
                set_var(std::static_pointer_cast<const ir::VarNode>(dim), static_cast<double>(t.shape[d]));
            }
        }
        global_data[i] = t.to_doubles();
        if (opts.track_written) written[i].assign(global_data[i].size(), 0);
    }
    for (size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        if (!p.buffer) continue;
        int slot = prog.buffer_slot(p.buffer);
        BufView& v = tmpl.bufs[static_cast<size_t>(slot)];
        const HostTensor& t = args[p.name];
        v.data = global_data[i].data();
        v.rank = static_cast<int>(t.shape.size());
        for (int d = 0; d < v.rank; ++d) v.shape[d] = t.shape[static_cast<size_t>(d)];
        v.size = t.numel();
        v.global = true;
        v.written = opts.track_written ? written[i].data() : nullptr;
    }

    // Discover the grid by running the statements around the kernel launch once.
    try {
        Frame fr = tmpl;
        fr.discover = true;
        prog.root->exec(fr);
        rep.grid = fr.grid;
    } catch (const RunError& e) {
        rep.diagnostics.push_back(e.diag);
        return rep;
    }
    if (rep.grid.empty()) {
        rep.error = "the kernel has no `T.Kernel` launch";
        return rep;
    }
    while (rep.grid.size() < 3) rep.grid.push_back(1);
    rep.total_blocks = rep.grid[0] * rep.grid[1] * rep.grid[2];
    std::vector<int64_t> blocks = opts.sample_blocks;
    if (blocks.empty()) {
        blocks.resize(static_cast<size_t>(std::max<int64_t>(rep.total_blocks, 0)));
        for (size_t b = 0; b < blocks.size(); ++b) blocks[b] = static_cast<int64_t>(b);
    }
    for (int64_t b : blocks) {
        if (b < 0 || b >= rep.total_blocks) {
            rep.error = "sample block " + std::to_string(b) + " is outside the grid of " + std::to_string(rep.total_blocks) + " blocks";
            return rep;
        }
    }

    // A later launch of the kernel adds its blocks to those the earlier ones finished.
    if (opts.progress) opts.progress->total = opts.progress->done.load() + static_cast<int64_t>(blocks.size());
    int nthreads = opts.threads > 0 ? opts.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    nthreads = static_cast<int>(std::min<int64_t>(nthreads, std::max<size_t>(blocks.size(), 1)));
    rep.threads_used = nthreads;
    std::vector<std::string> prints(prog.has_print ? blocks.size() : 0);
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex mu;
    size_t error_pos = SIZE_MAX;
    std::optional<Diagnostic> first_error;
    std::exception_ptr internal;
    std::atomic<int64_t> ran{0};
    std::vector<RaceState> races(opts.check_races ? static_cast<size_t>(nthreads) : 0);
    for (auto& r : races) r.elements = check_elements;
    std::atomic<size_t> next_worker{0};

    // The watchdog: a thread that raises `expired` when the run is over its time; the loops
    // and the block loop below poll it and stop with InterpreterTimeout where they are.
    std::atomic<bool> expired{false};
    std::atomic<bool> cancelled{false};
    tmpl.cancel = opts.cancel;
    std::mutex wd_mu;
    std::condition_variable wd_cv;
    bool finished = false;
    std::thread watchdog;
    if (opts.watchdog_s > 0) {
        tmpl.expired = &expired;
        tmpl.watchdog_s = opts.watchdog_s;
        watchdog = std::thread([&] {
            std::unique_lock<std::mutex> lock(wd_mu);
            auto limit = std::chrono::duration<double>(opts.watchdog_s);
            if (!wd_cv.wait_for(lock, limit, [&] { return finished; })) expired = true;
        });
    }
    auto worker = [&] {
        Frame fr = tmpl;
        RaceState* rs = races.empty() ? nullptr : &races[next_worker.fetch_add(1)];
        while (!stop.load(std::memory_order_relaxed)) {
            size_t pos = next.fetch_add(1);
            if (pos >= blocks.size()) break;
            int64_t b = blocks[pos];
            fr.block[0] = b % rep.grid[0];
            fr.block[1] = (b / rep.grid[0]) % rep.grid[1];
            fr.block[2] = b / (rep.grid[0] * rep.grid[1]);
            fr.breaking = false;
            fr.prints.clear();
            if (rs) {
                rs->begin_block(b, prog.buffers.size());
                fr.races = rs;
                fr.owner = kEveryThread;
                fr.par_index = -1;
            }
            try {
                fr.poll_watchdog(f.body ? f.body->span : f.span);
                prog.root->exec(fr);
                if (rs) race_check_phases(fr);
                ran.fetch_add(1);
                if (opts.progress) opts.progress->done.fetch_add(1, std::memory_order_relaxed);
            } catch (const Cancelled&) {
                cancelled = true;
                stop = true;
            } catch (const RunError& e) {
                std::lock_guard<std::mutex> lock(mu);
                if (pos < error_pos) {
                    error_pos = pos;
                    first_error = e.diag;
                }
                stop = true;
            } catch (...) {
                std::lock_guard<std::mutex> lock(mu);
                if (!internal) internal = std::current_exception();
                stop = true;
            }
            if (prog.has_print) prints[pos] = std::move(fr.prints);
        }
    };
    auto t0 = std::chrono::steady_clock::now();
    if (nthreads <= 1) {
        worker();
    } else {
        std::vector<std::thread> pool;
        for (int k = 0; k < nthreads; ++k) pool.emplace_back(worker);
        for (auto& t : pool) t.join();
    }
    if (watchdog.joinable()) {
        {
            std::lock_guard<std::mutex> lock(wd_mu);
            finished = true;
        }
        wd_cv.notify_all();
        watchdog.join();
    }
    rep.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rep.blocks_run = ran.load();
    if (internal) std::rethrow_exception(internal);
    if (opts.check_races) rep.races = race_diagnostics(races, opts.source_path);

    for (const auto& text : prints) {
        if (text.empty()) continue;
        if (opts.print_sink) opts.print_sink(text);
        else std::fwrite(text.data(), 1, text.size(), stdout);
    }
    // Write globals back (values are already rounded to each dtype, so this is exact).
    for (size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        if (!p.buffer) continue;
        args[p.name].from_doubles(global_data[i]);
        if (opts.track_written) rep.written[p.name] = std::move(written[i]);
    }
    if (first_error) {
        rep.diagnostics.push_back(*first_error);
        return rep;
    }
    if (cancelled) {
        rep.cancelled = true;
        rep.error = "the run was cancelled";
        return rep;
    }
    rep.ok = true;
    return rep;
}

}  // namespace interp

}  // namespace tp
