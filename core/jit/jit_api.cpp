// libtileplay_jit's entry (core/interp/cpu_jit_abi.h): compiles one launch with the emitter,
// optimises the module at O2 for this machine's CPU (vector widths from its features), JITs it
// with ORC's LLJIT, and runs the grid's blocks on a pool of std::threads. No exception leaves
// this file: every failure becomes a reason string or a TP_JIT_ERROR status.
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "interp/cpu_jit_abi.h"
#include "interp/program.h"
#include "jit/block_pool.h"
#include "jit/block_threads.h"
#include "jit/kernel.h"
#include "jit/kernel_cache.h"
#include "jit/region_helpers.h"
#include "jit/value_helpers.h"
#include "runtime/jit_object_cache.h"
#include "tensor/tensor.h"
#include "transform/insert_syncs.h"

// Rounding helpers the generated code calls for a double rounded to fp16 / bf16 (one rounding,
// the interpreter's own routine); the value comes back as a double.
extern "C" double tp_jit_round_f16(double v) { return tp::half_bits_to_double(tp::double_to_half_bits(v)); }
extern "C" double tp_jit_round_bf16(double v) { return tp::bf16_bits_to_double(tp::double_to_bf16_bits(v)); }

namespace tp::jit {

namespace {

std::string& describe_text() {
    static std::string s;
    return s;
}

void init_llvm() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        std::string feats;
        llvm::StringMap<bool> f;
        if (llvm::sys::getHostCPUFeatures(f))
            for (const char* k : {"avx2", "avx512f", "fma", "f16c"})
                if (f.lookup(k)) feats += std::string(feats.empty() ? "" : " ") + k;
        describe_text() = "LLVM " LLVM_VERSION_STRING " ORC JIT, " + llvm::sys::getHostCPUName().str() + " (" + feats + ")";
    });
}

// CPU time of this thread: the compile's own cost, apart from what other processes take.
void copy_reason(const std::string& s, char* out, int32_t size) {
    if (!out || size <= 0) return;
    std::snprintf(out, static_cast<size_t>(size), "%s", s.c_str());
}

// The module's functions carry the host CPU and features so the optimiser's cost model
// vectorises for this machine; then the standard O2 pipeline.
void optimise(llvm::Module& m, llvm::TargetMachine& tm) {
    for (auto& f : m) {
        if (f.isDeclaration()) continue;
        f.addFnAttr("target-cpu", tm.getTargetCPU());
        f.addFnAttr("target-features", tm.getTargetFeatureString());
    }
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cam;
    llvm::ModuleAnalysisManager mam;
    // O2 with the loop vectoriser and without unrolling or interleaving: the hot loop (T.gemm's
    // register tile) is explicit vector code already, and unrolled copies of every T.Parallel nest
    // would double the compile time for little gain (measured: docs/cpu-jit.md).
    llvm::PipelineTuningOptions pto;
    pto.LoopUnrolling = false;
    pto.LoopInterleaving = false;
    pto.LoopVectorization = true;
    pto.SLPVectorization = false;
    llvm::PassBuilder pb(&tm, pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    mpm.run(m, mam);
}

// Generates the module's object code for the target (the cache stores these bytes).
std::string codegen(llvm::Module& m, llvm::TargetMachine& tm) {
    auto obj = llvm::orc::SimpleCompiler(tm)(m);
    if (!obj) throw std::runtime_error("LLVM could not generate code: " + llvm::toString(obj.takeError()));
    return (*obj)->getBuffer().str();
}

// A fresh LLJIT with the generated code's helpers defined, the object linked, and the two entry
// points looked up.
std::unique_ptr<Kernel> link(const std::string& object, llvm::orc::JITTargetMachineBuilder jtmb) {
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
    if (!jit) throw std::runtime_error("LLVM could not start ORC: " + llvm::toString(jit.takeError()));
    auto& jd = (*jit)->getMainJITDylib();
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
    if (gen) jd.addGenerator(std::move(*gen));
    llvm::orc::SymbolMap helpers;
    auto& es = (*jit)->getExecutionSession();
    auto add = [&](const char* name, auto* fn) {
        helpers[es.intern(name)] = llvm::JITEvaluatedSymbol::fromPointer(fn, llvm::JITSymbolFlags::Exported);
    };
    add("tp_jit_round_f16", &tp_jit_round_f16);
    add("tp_jit_round_bf16", &tp_jit_round_bf16);
    add("tp_jit_copy_region", &tp_jit_copy_region);
    add("tp_jit_fill_region", &tp_jit_fill_region);
    add("tp_jit_copy_dynamic", &tp_jit_copy_dynamic);
    add("tp_jit_print_scalar", &tp_jit_print_scalar);
    add("tp_jit_print_buffer", &tp_jit_print_buffer);
    add("tp_jit_fp8_round", &tp_jit_fp8_round);
    add("tp_jit_fp8_bits", &tp_jit_fp8_bits);
    add("tp_jit_barrier", &tp_jit_barrier);
    add("tp_jit_shuffle", &tp_jit_shuffle);
    if (auto e = jd.define(llvm::orc::absoluteSymbols(helpers)))
        throw std::runtime_error("LLVM could not define the JIT's helpers: " + llvm::toString(std::move(e)));
    if (auto e = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object, "tileplay_kernel.o")))
        throw std::runtime_error("LLVM could not add the object: " + llvm::toString(std::move(e)));
    auto block = (*jit)->lookup("tp_block");
    auto grid = block ? (*jit)->lookup("tp_grid") : llvm::Expected<llvm::orc::ExecutorAddr>(block.takeError());
    if (!block || !grid) throw std::runtime_error("LLVM could not link the kernel: " + llvm::toString(grid.takeError()));
    auto k = std::make_unique<Kernel>();
    k->block = block->toPtr<BlockFn>();
    k->grid = grid->toPtr<GridFn>();
    k->jit = std::move(*jit);
    return k;
}

// The launch's two functions in `mod`, verified (an invalid module is the emitter's bug), and
// in `info` what the block loop needs to know of them.
void emit_module(const ir::PrimFunc& f, int32_t flags, llvm::TargetMachine& tm, llvm::Module& mod, Kernel& info) {
    mod.setDataLayout(tm.createDataLayout());
    mod.setTargetTriple(tm.getTargetTriple().str());
    // A thread-level kernel runs as its threads with the barriers the compiler places between
    // one thread's shared write and another's read, as on the interpreter (interp/run.cpp).
    const bool threads = interp::thread_level(f);
    if (threads && !block_threads_supported()) throw Reject{"a thread-level kernel (fibers are built for x86-64 only)"};
    if (threads && interp::hand_split_roles(f)) throw Reject{"roles split by hand on the thread index (their mbarrier waits and role-wide tile ops)"};
    ir::PrimFuncPtr synced = threads ? transform::insert_syncs(std::make_shared<ir::PrimFunc>(f)) : nullptr;
    Emitter em(mod.getContext(), mod, synced ? *synced : f, (flags & 1) != 0, (flags & 2) != 0);
    em.thread_mode = threads;
    em.emit_block_function();
    em.emit_grid_function();
    info.sites = em.sites;
    info.has_print = em.has_print;
    info.thread_mode = threads;
    info.threads = std::max<int64_t>(em.block_threads, 1);
    info.shared_bytes = em.shared_bytes;
    // A thread's fiber needs room for the block function's frame: its allocas (local buffers,
    // T.gemm's operand tiles, descriptors), whatever the emitter put there.
    info.stack_bytes = 0;
    for (auto& inst : mod.getFunction("tp_block")->getEntryBlock())
        if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&inst))
            if (auto size = a->getAllocationSizeInBits(mod.getDataLayout())) info.stack_bytes += static_cast<int64_t>(*size / 8) + 64;
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(mod, &os)) throw std::runtime_error("the JIT made invalid LLVM IR (" + os.str().substr(0, 200) + ")");
}

// Emits the launch, then takes its kernel from this process's cache, or links the object code
// the disk cache holds, or optimises and generates it (and stores it in both).
void* compile(const void* prim_func, int32_t flags, double* compile_ms, int32_t* cached, char* reason, int32_t reason_size) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const double cpu0 = thread_cpu_ms();
    if (cached) *cached = 0;
    auto elapsed = [&] { return std::chrono::duration<double, std::milli>(clock::now() - t0).count(); };
    try {
        init_llvm();
        // The run's helpers start while this compiles (or loads from the cache).
        block_pool_warm(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) - 1);
        const auto& f = *static_cast<const ir::PrimFunc*>(prim_func);
        auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
        if (!jtmb) {
            copy_reason("LLVM has no target for this machine", reason, reason_size);
            return nullptr;
        }
        // What LLJIT itself sets for JITLink, fixed here so the object made below (and stored)
        // is one the linker takes.
        jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Default);
        jtmb->setRelocationModel(llvm::Reloc::PIC_);
        jtmb->setCodeModel(llvm::CodeModel::Small);
        auto tm = jtmb->createTargetMachine();
        if (!tm) {
            copy_reason("LLVM could not make a target machine", reason, reason_size);
            return nullptr;
        }
        auto ctx = std::make_unique<llvm::LLVMContext>();
        auto mod = std::make_unique<llvm::Module>("tileplay_kernel", *ctx);
        Kernel info;
        emit_module(f, flags, **tm, *mod, info);
        const std::string key = kernel_cache_key(*mod, info.sites, flags, **tm);
        const auto t_emit = clock::now();
        const bool times = std::getenv("TILEPLAY_JIT_TIMES") != nullptr;
        auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
        if (auto hit = kernel_cache_find(key)) {
            if (cached) *cached = 1;
            if (times) std::fprintf(stderr, "jit: cache hit (memory), emit %.1f ms (wall)\n", ms(t0, t_emit));
            if (compile_ms) *compile_ms = elapsed();
            return new Handle{std::move(hit)};
        }
        std::optional<std::string> object = runtime::jit_cache_read(key);
        if (object && cached) *cached = 2;
        const bool from_disk = object.has_value();
        auto t_opt = clock::now();
        if (!object) {
            optimise(*mod, **tm);
            t_opt = clock::now();
            if (std::getenv("TILEPLAY_JIT_DUMP")) mod->print(llvm::errs(), nullptr);
            object = codegen(*mod, **tm);
            runtime::jit_cache_write(key, *object);
        }
        std::shared_ptr<Kernel> k = link(*object, std::move(*jtmb));
        k->n_params = static_cast<int>(f.params.size());
        k->sites = std::move(info.sites);
        k->has_print = info.has_print;
        k->thread_mode = info.thread_mode;
        k->threads = info.threads;
        k->shared_bytes = info.shared_bytes;
        k->stack_bytes = info.stack_bytes;
        kernel_cache_store(key, k);
        const auto t_end = clock::now();
        if (times && from_disk)
            std::fprintf(stderr, "jit: cache hit (disk), emit %.1f ms, link %.1f ms (wall); %.1f ms of CPU time\n", ms(t0, t_emit), ms(t_emit, t_end),
                         thread_cpu_ms() - cpu0);
        else if (times)
            std::fprintf(stderr, "jit: emit %.1f ms, optimise %.1f ms, codegen+link %.1f ms (wall); %.1f ms of CPU time\n", ms(t0, t_emit),
                         ms(t_emit, t_opt), ms(t_opt, t_end), thread_cpu_ms() - cpu0);
        if (compile_ms) *compile_ms = elapsed();
        return new Handle{std::move(k)};
    } catch (const Reject& r) {
        copy_reason(r.reason, reason, reason_size);
    } catch (const std::exception& e) {
        copy_reason(std::string("internal: ") + e.what(), reason, reason_size);
    } catch (...) {
        copy_reason("internal: an unknown error in the JIT", reason, reason_size);
    }
    if (compile_ms) *compile_ms = elapsed();
    return nullptr;
}

}  // namespace

void init_llvm_once() { init_llvm(); }
const char* describe() {
    init_llvm();
    return describe_text().c_str();
}
void* compile_launch(const void* f, int32_t flags, double* ms, int32_t* cached, char* reason, int32_t size) {
    return compile(f, flags, ms, cached, reason, size);
}

int32_t run_blocks(void* handle, TpJitParam* params, int32_t n_params, const TpJitRunOptions* opts, TpJitRunResult* out);  // run_blocks.cpp

}  // namespace tp::jit

extern "C" {

static const char* tp_jit_describe() { return tp::jit::describe(); }

static void tp_jit_release(void* k) { delete static_cast<tp::jit::Handle*>(k); }

static void tp_jit_forget_kernels() { tp::jit::kernel_cache_clear(); }

__attribute__((visibility("default"))) const TpJitApi* tileplay_jit_api(void) {
    static const TpJitApi api = {TP_JIT_ABI_VERSION,   &tp_jit_describe, &tp::jit::compile_launch,
                                 &tp::jit::run_blocks, &tp_jit_release,  &tp_jit_forget_kernels};
    return &api;
}

}  // extern "C"
