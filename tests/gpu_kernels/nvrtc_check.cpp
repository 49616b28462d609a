// Compiles every tp_*.cuh runtime header with NVRTC, the way the code generator will
// (headers passed in memory; like core/runtime/nvrtc.cpp, --include-path=<toolkit>/include
// for cuda_fp16.h / cuda_bf16.h, which NVRTC 13 does not carry), for each target, and checks
// that the PTX holds the Tensor-Core instructions the templates promise. Needs libnvrtc,
// not a GPU. Usage: nvrtc_check <runtime-header-dir> [<toolkit-include-dir>]
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// One kernel per template family, instantiated like generated code would.
static const char* kSource = R"(
#include "tp_gemm.cuh"
#include "tp_copy.cuh"
#include "tp_reduce.cuh"
using L = tp::AccLayout<64, 64, 2, 2>;
extern "C" __global__ void __launch_bounds__(128) probe(const __half* A, const __half* B, __half* C, float* rows) {
    __shared__ alignas(16) __half As[2][64 * 32];
    __shared__ alignas(16) __half Bs[2][32 * 64];
    __shared__ float scratch[64 * 2];
    float acc[L::kSize];
    tp::fill(acc, 0.0f);
    const tp::GemmSS<64, 64, 32, 2, 2, false, false, __half> mma;
    for (int kt = 0; kt < 4; ++kt) {
        tp::copy_g2s<64, 32, 128>(As[kt & 1], A + kt * 32, 128, 64, 128 - kt * 32, threadIdx.x);
        tp::copy_g2s<32, 64, 128>(Bs[kt & 1], B + kt * 32 * 64, 64, 128 - kt * 32, 64, threadIdx.x);
        tp::cp_async_commit();
        tp::cp_async_wait<0>();
        __syncthreads();
        mma(As[kt & 1], Bs[kt & 1], acc);
        __syncthreads();
    }
    float r[L::kRowSlots];
    tp::reduce_rows<L, tp::ReduceOp::Max>(acc, r, scratch, threadIdx.x);
    tp::frag_store_global<L>(acc, C, 64, 64, 64, threadIdx.x);
    for (int s = 0; s < L::kRowSlots; ++s) rows[L::slot_row(threadIdx.x, s)] = r[s];
}
)";

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: nvrtc_check <runtime-header-dir>\n");
        return 2;
    }
    const std::string dir = argv[1];
    const std::string cuda_inc = argc > 2 ? argv[2] : "/usr/local/cuda/include";
    std::vector<std::string> names = {"tp_mma.cuh", "tp_layout.cuh", "tp_copy.cuh", "tp_gemm.cuh", "tp_reduce.cuh"};
    std::vector<std::string> texts;
    for (auto& n : names) texts.push_back(slurp(dir + "/" + n));
    std::vector<const char*> hdr, inc;
    for (size_t i = 0; i < names.size(); ++i) {
        if (texts[i].empty()) {
            std::printf("[FAIL] cannot read %s/%s\n", dir.c_str(), names[i].c_str());
            return 1;
        }
        hdr.push_back(texts[i].c_str());
        inc.push_back(names[i].c_str());
    }
    int failures = 0;
    for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}) {
        nvrtcProgram prog;
        nvrtcCreateProgram(&prog, kSource, "probe.cu", int(hdr.size()), hdr.data(), inc.data());
        std::string a = std::string("--gpu-architecture=") + arch;
        std::string inc_opt = "--include-path=" + cuda_inc;
        const char* opts[] = {a.c_str(), "-std=c++17", "-default-device", inc_opt.c_str()};
        nvrtcResult res = nvrtcCompileProgram(prog, 4, opts);
        size_t log_size = 0;
        nvrtcGetProgramLogSize(prog, &log_size);
        std::string log(log_size, '\0');
        nvrtcGetProgramLog(prog, log.data());
        std::string ptx;
        if (res == NVRTC_SUCCESS) {
            size_t n = 0;
            nvrtcGetPTXSize(prog, &n);
            ptx.resize(n);
            nvrtcGetPTX(prog, ptx.data());
        }
        nvrtcDestroyProgram(&prog);
        bool sm80 = std::string(arch) != "sm_75";
        bool ok = res == NVRTC_SUCCESS && ptx.find("ldmatrix.sync.aligned.m8n8.x4") != std::string::npos &&
                  ptx.find(sm80 ? "mma.sync.aligned.m16n8k16" : "mma.sync.aligned.m16n8k8") != std::string::npos &&
                  (!sm80 || ptx.find("cp.async.cg.shared.global") != std::string::npos);
        std::printf("%s nvrtc %s: %s\n", ok ? "[ OK ]" : "[FAIL]", arch,
                    res == NVRTC_SUCCESS ? "compiled, mma/ldmatrix/cp.async present" : nvrtcGetErrorString(res));
        if (!ok) {
            std::printf("%s\n", log.c_str());
            ++failures;
        }
    }
    std::printf("nvrtc_check: %s\n", failures ? "CHECK FAILURES" : "all checks passed");
    return failures ? 1 : 0;
}
