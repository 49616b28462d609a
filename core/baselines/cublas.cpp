// cuBLAS / cuBLASLt baselines loaded with dlopen: `cublasGemmEx` (fp16, bf16, fp32, either
// operand transposed) and cuBLASLt, plain or with the GELU_BIAS epilogue. They read the
// kernel's own input tensors and write an output buffer of their own, which is downloaded
// afterwards to check our result against. Row-major C = A @ B is computed as column-major
// C^T = B^T @ A^T.
#include <dlfcn.h>

#include <mutex>
#include <sstream>

#include "baselines/baselines.h"

namespace tp::baselines {

namespace {

using Status = int;
using Handle = void*;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kComputeF32 = 68;
constexpr int kGemmDefault = -1;

struct HeuristicResult {
    uint64_t algo[8];
    size_t workspace;
    Status state;
    float waves;
    int reserved[4];
};

struct Lib {
    void* blas = nullptr;
    void* lt = nullptr;
    std::string why, lt_why;
    Status (*create)(Handle*) = nullptr;
    Status (*destroy)(Handle) = nullptr;
    Status (*get_version)(Handle, int*) = nullptr;
    Status (*gemm_ex)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                      const void*, void*, int, int, int, int) = nullptr;
    Status (*lt_create)(Handle*) = nullptr;
    Status (*lt_desc_create)(Handle*, int, int) = nullptr;
    Status (*lt_desc_set)(Handle, int, const void*, size_t) = nullptr;
    Status (*lt_layout_create)(Handle*, int, uint64_t, uint64_t, int64_t) = nullptr;
    Status (*lt_pref_create)(Handle*) = nullptr;
    Status (*lt_pref_set)(Handle, int, const void*, size_t) = nullptr;
    Status (*lt_heuristic)(Handle, Handle, Handle, Handle, Handle, Handle, Handle, int, HeuristicResult*, int*) = nullptr;
    Status (*lt_matmul)(Handle, Handle, const void*, const void*, Handle, const void*, Handle, const void*,
                        const void*, Handle, void*, Handle, const void*, void*, size_t, void*) = nullptr;
};

template <typename Fn>
bool sym(void* lib, Fn& f, const char* name) {
    f = reinterpret_cast<Fn>(dlsym(lib, name));
    return f != nullptr;
}

const Lib& lib() {
    static Lib l;
    static std::once_flag once;
    std::call_once(once, [] {
        for (const char* n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
            if ((l.blas = dlopen(n, RTLD_NOW | RTLD_LOCAL))) break;
        if (!l.blas) {
            l.why = "libcublas.so.13/.12 not found (install the CUDA toolkit's cuBLAS or add it to LD_LIBRARY_PATH)";
        } else if (!sym(l.blas, l.create, "cublasCreate_v2") || !sym(l.blas, l.destroy, "cublasDestroy_v2") ||
                   !sym(l.blas, l.get_version, "cublasGetVersion_v2") || !sym(l.blas, l.gemm_ex, "cublasGemmEx")) {
            l.why = "libcublas lacks cublasGemmEx";
            l.blas = nullptr;
        }
        for (const char* n : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"})
            if ((l.lt = dlopen(n, RTLD_NOW | RTLD_LOCAL))) break;
        if (!l.lt) {
            l.lt_why = "libcublasLt.so.13/.12 not found";
        } else if (!sym(l.lt, l.lt_create, "cublasLtCreate") || !sym(l.lt, l.lt_desc_create, "cublasLtMatmulDescCreate") ||
                   !sym(l.lt, l.lt_desc_set, "cublasLtMatmulDescSetAttribute") ||
                   !sym(l.lt, l.lt_layout_create, "cublasLtMatrixLayoutCreate") ||
                   !sym(l.lt, l.lt_pref_create, "cublasLtMatmulPreferenceCreate") ||
                   !sym(l.lt, l.lt_pref_set, "cublasLtMatmulPreferenceSetAttribute") ||
                   !sym(l.lt, l.lt_heuristic, "cublasLtMatmulAlgoGetHeuristic") ||
                   !sym(l.lt, l.lt_matmul, "cublasLtMatmul")) {
            l.lt_why = "libcublasLt lacks the cublasLtMatmul API";
            l.lt = nullptr;
        }
    });
    return l;
}

// cudaDataType_t for a TileLang dtype name; -1 when cuBLAS has none we use.
int cuda_type(const ir::DataType& t) {
    if (t == ir::DataType::float16()) return 2;
    if (t == ir::DataType::bfloat16()) return 14;
    if (t == ir::DataType::float32()) return 0;
    return -1;
}

// The GEMM operands taken from the kernel's signature: A, B (and bias) inputs, C output.
struct GemmOperands {
    const runtime::DeviceTensor *a = nullptr, *b = nullptr, *bias = nullptr, *c = nullptr;
    int64_t m = 0, n = 0, k = 0;
    bool ta = false, tb = false;
};

bool gemm_operands(const BaselineSpec& spec, const BaselineInputs& in, bool want_bias, GemmOperands& g, std::string& why,
                   std::string& output) {
    std::vector<const runtime::DeviceTensor*> inputs;
    for (const auto& p : in.kernel->params) {
        if (p.is_scalar) continue;
        const runtime::DeviceTensor* t = &in.device->at(p.name);
        if (p.is_output && !g.c) {
            g.c = t;
            output = p.name;
        } else if (!p.is_output) {
            inputs.push_back(t);
        }
    }
    size_t need = want_bias ? 3 : 2;
    if (inputs.size() < need || !g.c) {
        why = "the kernel's signature is not A, B" + std::string(want_bias ? ", bias" : "") + " -> C";
        return false;
    }
    g.a = inputs[0];
    g.b = inputs[1];
    if (want_bias) g.bias = inputs[2];
    if (g.a->shape.size() != 2 || g.b->shape.size() != 2 || g.c->shape.size() != 2) {
        why = "A, B and C must be 2-D";
        return false;
    }
    g.ta = spec.trans_a;
    g.tb = spec.trans_b;
    g.m = g.c->shape[0];
    g.n = g.c->shape[1];
    // Infer a transposed operand from the shapes when the spec does not say.
    if (!g.ta && g.a->shape[0] != g.m && g.a->shape[1] == g.m) g.ta = true;
    g.k = g.ta ? g.a->shape[0] : g.a->shape[1];
    if (!g.tb && g.b->shape[1] != g.n && g.b->shape[0] == g.n) g.tb = true;
    int64_t kb = g.tb ? g.b->shape[1] : g.b->shape[0], nb = g.tb ? g.b->shape[0] : g.b->shape[1];
    int64_t ma = g.ta ? g.a->shape[1] : g.a->shape[0];
    if (ma != g.m || kb != g.k || nb != g.n) {
        std::ostringstream s;
        s << "shapes A[" << g.a->shape[0] << "," << g.a->shape[1] << "] B[" << g.b->shape[0] << "," << g.b->shape[1]
          << "] C[" << g.m << "," << g.n << "] are not a GEMM";
        why = s.str();
        return false;
    }
    if (want_bias && (g.bias->shape.size() != 1 || g.bias->shape[0] != g.n)) {
        why = "bias must be 1-D of length N = " + std::to_string(g.n);
        return false;
    }
    if (cuda_type(g.a->dtype) < 0 || g.a->dtype != g.b->dtype || cuda_type(g.c->dtype) < 0) {
        why = "cuBLAS baseline supports float16, bfloat16 and float32 operands of one dtype";
        return false;
    }
    return true;
}

// The baseline's own C: same dtype and shape as the kernel's output, never the kernel's buffer.
struct OwnOutput {
    ir::DataType dtype;
    std::vector<int64_t> shape;
    runtime::DeviceBuffer buffer;
    explicit OwnOutput(const runtime::DeviceTensor& like) : dtype(like.dtype), shape(like.shape), buffer(like.buffer.size()) {}
    HostTensor download() const {
        HostTensor h(dtype, shape);
        buffer.download(h.data(), buffer.size());
        return h;
    }
};

struct BlasState {
    Handle h = nullptr;
    float alpha = 1, beta = 0;
    ~BlasState() {
        if (h) lib().destroy(h);
    }
};

struct LtState {
    Handle h = nullptr, desc = nullptr, la = nullptr, lb = nullptr, lc = nullptr, pref = nullptr;
    HeuristicResult algo{};
    runtime::DeviceBuffer workspace;
    float alpha = 1, beta = 0;
};

}  // namespace

std::string cublas_version(std::string* why) {
    const Lib& l = lib();
    if (!l.blas) {
        if (why) *why = l.why;
        return "";
    }
    // cublasGetVersion needs a handle, which needs a device; report the library instead.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(l.gemm_ex), &info) && info.dli_fname) return info.dli_fname;
    return "loaded";
}

InProcessBaseline make_in_process_baseline(const BaselineSpec& spec, const BaselineInputs& in) {
    InProcessBaseline r;
    const Lib& l = lib();
    bool lt = spec.kind == BaselineSpec::Kind::CublasLt, bias_gelu = spec.op == "gemm_bias_gelu";
    if (!lt && !l.blas) {
        r.why = l.why;
        return r;
    }
    if (lt && !l.lt) {
        r.why = l.lt_why;
        return r;
    }
    GemmOperands g;
    if (!gemm_operands(spec, in, bias_gelu, g, r.why, r.output)) return r;
    auto out = std::make_shared<OwnOutput>(*g.c);
    r.result = [out] { return out->download(); };
    int ta = cuda_type(g.a->dtype), tc = cuda_type(g.c->dtype);
    int m = static_cast<int>(g.n), n = static_cast<int>(g.m), k = static_cast<int>(g.k);
    int lda = static_cast<int>(g.tb ? g.k : g.n), ldb = static_cast<int>(g.ta ? g.m : g.k), ldc = m;
    int opa = g.tb ? kOpT : kOpN, opb = g.ta ? kOpT : kOpN;
    runtime::CUdeviceptr pa = g.b->buffer.ptr(), pb = g.a->buffer.ptr(), pc = out->buffer.ptr();
    if (!lt) {
        auto st = std::make_shared<BlasState>();
        if (Status s = l.create(&st->h); s != 0) {
            r.why = "cublasCreate failed with status " + std::to_string(s);
            return r;
        }
        r.launch = [st, opa, opb, m, n, k, pa, pb, pc, lda, ldb, ldc, ta, tc] {
            lib().gemm_ex(st->h, opa, opb, m, n, k, &st->alpha, reinterpret_cast<const void*>(pa), ta, lda,
                          reinterpret_cast<const void*>(pb), ta, ldb, &st->beta, reinterpret_cast<void*>(pc), tc, ldc,
                          kComputeF32, kGemmDefault);
        };
        r.state = std::make_shared<std::pair<std::shared_ptr<BlasState>, std::shared_ptr<OwnOutput>>>(st, out);
        r.ok = true;
        return r;
    }
    auto st = std::make_shared<LtState>();
    auto fail = [&](const char* what, Status s) {
        r.why = std::string(what) + " failed with status " + std::to_string(s);
        return r;
    };
    if (Status s = l.lt_create(&st->h)) return fail("cublasLtCreate", s);
    if (Status s = l.lt_desc_create(&st->desc, kComputeF32, 0)) return fail("cublasLtMatmulDescCreate", s);
    l.lt_desc_set(st->desc, 3, &opa, sizeof(opa));
    l.lt_desc_set(st->desc, 4, &opb, sizeof(opb));
    if (bias_gelu) {
        int epilogue = 32 | 4;  // CUBLASLT_EPILOGUE_GELU_BIAS
        runtime::CUdeviceptr bias = g.bias->buffer.ptr();
        int bias_type = cuda_type(g.bias->dtype);
        l.lt_desc_set(st->desc, 7, &epilogue, sizeof(epilogue));
        l.lt_desc_set(st->desc, 8, &bias, sizeof(bias));
        if (bias_type >= 0) l.lt_desc_set(st->desc, 26, &bias_type, sizeof(bias_type));
    }
    // Column-major layouts: rows x cols of the stored matrices.
    if (Status s = l.lt_layout_create(&st->la, ta, opa == kOpN ? m : k, opa == kOpN ? k : m, lda)) return fail("layout", s);
    if (Status s = l.lt_layout_create(&st->lb, ta, opb == kOpN ? k : n, opb == kOpN ? n : k, ldb)) return fail("layout", s);
    if (Status s = l.lt_layout_create(&st->lc, tc, m, n, ldc)) return fail("layout", s);
    size_t ws = 32u << 20;
    st->workspace = runtime::DeviceBuffer(ws);
    if (Status s = l.lt_pref_create(&st->pref)) return fail("cublasLtMatmulPreferenceCreate", s);
    l.lt_pref_set(st->pref, 1, &ws, sizeof(ws));
    int found = 0;
    Status s = l.lt_heuristic(st->h, st->desc, st->la, st->lb, st->lc, st->lc, st->pref, 1, &st->algo, &found);
    if (s != 0 || found == 0) {
        r.why = std::string("cuBLASLt has no ") + (bias_gelu ? "GELU_BIAS " : "") + "algorithm for these shapes and dtypes";
        return r;
    }
    r.launch = [st, pa, pb, pc] {
        lib().lt_matmul(st->h, st->desc, &st->alpha, reinterpret_cast<const void*>(pa), st->la,
                        reinterpret_cast<const void*>(pb), st->lb, &st->beta, reinterpret_cast<const void*>(pc), st->lc,
                        reinterpret_cast<void*>(pc), st->lc, st->algo.algo, reinterpret_cast<void*>(st->workspace.ptr()),
                        st->workspace.size(), nullptr);
    };
    r.state = std::make_shared<std::pair<std::shared_ptr<LtState>, std::shared_ptr<OwnOutput>>>(st, out);
    r.ok = true;
    return r;
}

}  // namespace tp::baselines
