// libtileplay_jit's entry (core/interp/cpu_jit_abi.h): compiles one launch with the emitter,
// optimises the module at O2 for this machine's CPU (vector widths from its features), JITs it
// with ORC's LLJIT, and runs the grid's blocks on a pool of std::threads. No exception leaves
// this file: every failure becomes a reason string or a TP_JIT_ERROR status.
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <thread>

#include "interp/cpu_jit_abi.h"
#include "jit/kernel.h"
#include "jit/region_helpers.h"
#include "tensor/tensor.h"

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
double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

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

void* compile(const void* prim_func, int32_t flags, double* compile_ms, char* reason, int32_t reason_size) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = thread_cpu_ms();
    try {
        init_llvm();
        const auto& f = *static_cast<const ir::PrimFunc*>(prim_func);
        auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
        if (!jtmb) {
            copy_reason("LLVM has no target for this machine", reason, reason_size);
            return nullptr;
        }
        jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Default);
        auto tm = jtmb->createTargetMachine();
        if (!tm) {
            copy_reason("LLVM could not make a target machine", reason, reason_size);
            return nullptr;
        }
        auto ctx = std::make_unique<llvm::LLVMContext>();
        auto mod = std::make_unique<llvm::Module>("tileplay_kernel", *ctx);
        mod->setDataLayout((*tm)->createDataLayout());
        mod->setTargetTriple((*tm)->getTargetTriple().str());
        std::vector<Span> sites;
        {
            Emitter em(*ctx, *mod, f, (flags & 1) != 0, (flags & 2) != 0);
            em.emit_block_function();
            em.emit_grid_function();
            sites = em.sites;
        }
        std::string err;
        llvm::raw_string_ostream os(err);
        if (llvm::verifyModule(*mod, &os)) {
            copy_reason("internal: the JIT made invalid LLVM IR (" + os.str().substr(0, 200) + ")", reason, reason_size);
            return nullptr;
        }
        const auto t_emit = std::chrono::steady_clock::now();
        optimise(*mod, **tm);
        const auto t_opt = std::chrono::steady_clock::now();
        if (std::getenv("TILEPLAY_JIT_DUMP")) mod->print(llvm::errs(), nullptr);
        auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
        if (!jit) {
            copy_reason("LLVM could not start ORC: " + llvm::toString(jit.takeError()), reason, reason_size);
            return nullptr;
        }
        auto& jd = (*jit)->getMainJITDylib();
        auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
        if (gen) jd.addGenerator(std::move(*gen));
        llvm::orc::SymbolMap helpers;
        auto& es = (*jit)->getExecutionSession();
        helpers[es.intern("tp_jit_round_f16")] = llvm::JITEvaluatedSymbol::fromPointer(&tp_jit_round_f16, llvm::JITSymbolFlags::Exported);
        helpers[es.intern("tp_jit_round_bf16")] = llvm::JITEvaluatedSymbol::fromPointer(&tp_jit_round_bf16, llvm::JITSymbolFlags::Exported);
        helpers[es.intern("tp_jit_copy_region")] = llvm::JITEvaluatedSymbol::fromPointer(&tp_jit_copy_region, llvm::JITSymbolFlags::Exported);
        helpers[es.intern("tp_jit_fill_region")] = llvm::JITEvaluatedSymbol::fromPointer(&tp_jit_fill_region, llvm::JITSymbolFlags::Exported);
        if (auto e = jd.define(llvm::orc::absoluteSymbols(helpers))) {
            copy_reason("LLVM could not define the JIT's helpers: " + llvm::toString(std::move(e)), reason, reason_size);
            return nullptr;
        }
        if (auto e = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx)))) {
            copy_reason("LLVM could not add the module: " + llvm::toString(std::move(e)), reason, reason_size);
            return nullptr;
        }
        auto block = (*jit)->lookup("tp_block");
        auto grid = block ? (*jit)->lookup("tp_grid") : llvm::Expected<llvm::orc::ExecutorAddr>(block.takeError());
        if (!block || !grid) {
            copy_reason("LLVM could not link the kernel: " + llvm::toString(grid.takeError()), reason, reason_size);
            return nullptr;
        }
        const auto t_end = std::chrono::steady_clock::now();
        if (std::getenv("TILEPLAY_JIT_TIMES")) {
            auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
            std::fprintf(stderr, "jit: emit %.1f ms, optimise %.1f ms, codegen+link %.1f ms (wall); %.1f ms of CPU time\n", ms(t0, t_emit),
                         ms(t_emit, t_opt), ms(t_opt, t_end), thread_cpu_ms() - cpu0);
        }
        auto k = std::make_unique<Kernel>();
        k->block = block->toPtr<BlockFn>();
        k->grid = grid->toPtr<GridFn>();
        k->jit = std::move(*jit);
        k->n_params = static_cast<int>(f.params.size());
        k->sites = std::move(sites);
        if (compile_ms) *compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return k.release();
    } catch (const Reject& r) {
        copy_reason(r.reason, reason, reason_size);
    } catch (const std::exception& e) {
        copy_reason(std::string("internal: ") + e.what(), reason, reason_size);
    } catch (...) {
        copy_reason("internal: an unknown error in the JIT", reason, reason_size);
    }
    if (compile_ms) *compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return nullptr;
}

}  // namespace

void init_llvm_once() { init_llvm(); }
const char* describe() {
    init_llvm();
    return describe_text().c_str();
}
void* compile_launch(const void* f, int32_t flags, double* ms, char* reason, int32_t size) { return compile(f, flags, ms, reason, size); }

int32_t run_blocks(void* handle, TpJitParam* params, int32_t n_params, const TpJitRunOptions* opts, TpJitRunResult* out);  // run_blocks.cpp

}  // namespace tp::jit

extern "C" {

static const char* tp_jit_describe() { return tp::jit::describe(); }

static void tp_jit_release(void* k) { delete static_cast<tp::jit::Kernel*>(k); }

__attribute__((visibility("default"))) const TpJitApi* tileplay_jit_api(void) {
    static const TpJitApi api = {TP_JIT_ABI_VERSION, &tp_jit_describe, &tp::jit::compile_launch, &tp::jit::run_blocks, &tp_jit_release};
    return &api;
}

}  // extern "C"
