// Fragment reductions and fragment copies (tp_reduce.cuh, tp_copy.cuh) on the GPU against
// a CPU reference: reduce_rows / reduce_cols for sum, max, min, abssum, absmax with
// clear=False folding, checked in every replica thread, on float and int32 fragments (exact
// int partials, e.g. top-k's column indices); fragment -> global (f16 pairs),
// fragment -> swizzled shared -> global (copy_s2g) round trips.
#include <climits>

#include "common.cuh"
#include "tp_common.cuh"  // tp::sync_threads, which generated kernels get first
#include "tp_copy.cuh"
#include "tp_reduce.cuh"

using namespace harness;

// rows_out[rep][BM]: rep = warp_n*4 + lane%4 (every thread holding the row writes its copy);
// cols_out[rep][BN]: rep = warp_m*8 + lane/4.
template <class L, tp::ReduceOp OP>
__global__ void reduce_kernel(const float* in, const float* prev_rows, const float* prev_cols, float* rows_out,
                              float* cols_out) {
    __shared__ float scratch[L::kBM * L::kWarpsN + L::kBN * L::kWarpsM];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    float frag[L::kSize];
    tp::frag_load_global<L>(frag, in, L::kBN, L::kBM, L::kBN, tid);
    float r[L::kRowSlots], c[L::kColSlots];
    for (int s = 0; s < L::kRowSlots; ++s) r[s] = prev_rows[L::slot_row(tid, s)];
    for (int s = 0; s < L::kColSlots; ++s) c[s] = prev_cols[L::slot_col(tid, s)];
    tp::reduce_rows<L, OP, false>(frag, r, scratch, tid);
    tp::reduce_cols<L, OP, false>(frag, c, scratch + L::kBM * L::kWarpsN, tid);
    const int rep_r = L::warp_n(warp) * 4 + (lane & 3), rep_c = L::warp_m(warp) * 8 + (lane >> 2);
    for (int s = 0; s < L::kRowSlots; ++s) rows_out[rep_r * L::kBM + L::slot_row(tid, s)] = r[s];
    for (int s = 0; s < L::kColSlots; ++s) cols_out[rep_c * L::kBN + L::slot_col(tid, s)] = c[s];
}

// The same on an int32 fragment into int32 row / column vectors (int partials, exact).
template <class L, tp::ReduceOp OP>
__global__ void reduce_int_kernel(const int* in, const int* prev_rows, const int* prev_cols, int* rows_out, int* cols_out) {
    __shared__ float scratch[L::kBM * L::kWarpsN + L::kBN * L::kWarpsM];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int frag[L::kSize];
    for (int i = 0; i < L::kSize; ++i) frag[i] = in[L::row(tid, i) * L::kBN + L::col(tid, i)];
    int r[L::kRowSlots], c[L::kColSlots];
    for (int s = 0; s < L::kRowSlots; ++s) r[s] = prev_rows[L::slot_row(tid, s)];
    for (int s = 0; s < L::kColSlots; ++s) c[s] = prev_cols[L::slot_col(tid, s)];
    tp::reduce_rows<L, OP, false>(frag, r, scratch, tid);
    tp::reduce_cols<L, OP, false>(frag, c, scratch + L::kBM * L::kWarpsN, tid);
    const int rep_r = L::warp_n(warp) * 4 + (lane & 3), rep_c = L::warp_m(warp) * 8 + (lane >> 2);
    for (int s = 0; s < L::kRowSlots; ++s) rows_out[rep_r * L::kBM + L::slot_row(tid, s)] = r[s];
    for (int s = 0; s < L::kColSlots; ++s) cols_out[rep_c * L::kBN + L::slot_col(tid, s)] = c[s];
}

// A column vector (L's Col layout, each column replicated over row groups and warps along M)
// reduced to one value in every thread (tp::reduce_col_vector), folded into `prev`.
template <class L, tp::ReduceOp OP>
__global__ void col_vector_kernel(const float* in, float prev, float* out) {
    __shared__ float scratch[L::kWarps];
    const int tid = threadIdx.x;
    float c[L::kColSlots];
    for (int s = 0; s < L::kColSlots; ++s) c[s] = in[L::slot_col(tid, s)];
    float v = prev;
    tp::reduce_col_vector<L, OP, false>(c, &v, scratch, tid);
    out[tid] = v;
}

// out_g = half(in) through frag_store_global; out_s = half(in) through a swizzled shared tile.
template <class L>
__global__ void copy_kernel(const float* in, __half* out_g, __half* out_s, int rows_valid, int cols_valid) {
    __shared__ alignas(16) __half tile[L::kBM * L::kBN];
    const int tid = threadIdx.x;
    float frag[L::kSize];
    tp::frag_load_global<L>(frag, in, L::kBN, L::kBM, L::kBN, tid);
    tp::frag_store_global<L>(frag, out_g, L::kBN, rows_valid, cols_valid, tid);
    tp::frag_store_smem<L, L::kBN, true>(frag, tile, tid);
    __syncthreads();
    tp::copy_s2g<L::kBM, L::kBN, L::kThreads>(tile, out_s, L::kBN, rows_valid, cols_valid, tid);
}

static float ref_combine(tp::ReduceOp op, float a, float b) {
    switch (op) {
        case tp::ReduceOp::Max:
        case tp::ReduceOp::AbsMax: return std::max(a, b);
        case tp::ReduceOp::Min: return std::min(a, b);
        default: return a + b;
    }
}
static float ref_elem(tp::ReduceOp op, float x) {
    return (op == tp::ReduceOp::AbsSum || op == tp::ReduceOp::AbsMax) ? std::fabs(x) : x;
}
static const char* op_name(tp::ReduceOp op) {
    const char* n[] = {"sum", "max", "min", "abssum", "absmax"};
    return n[int(op)];
}

static bool all_ok = true;

template <int BM, int BN, int WM, int WN, tp::ReduceOp OP>
void run_reduce() {
    using L = tp::AccLayout<BM, BN, WM, WN>;
    auto in = random_vec<float>(BM * BN, 3 + BM + BN, 2.0f);
    auto prev_r = random_vec<float>(BM, 5), prev_c = random_vec<float>(BN, 6);
    DeviceBuf<float> din(in), dpr(prev_r), dpc(prev_c), dro(size_t(WN) * 4 * BM), dco(size_t(WM) * 8 * BN);
    reduce_kernel<L, OP><<<1, L::kThreads>>>(din.ptr, dpr.ptr, dpc.ptr, dro.ptr, dco.ptr);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto ro = dro.download(), co = dco.download();
    double worst = 0;
    for (int r = 0; r < BM; ++r) {
        float v = prev_r[r];
        float acc = (OP == tp::ReduceOp::Max) ? -INFINITY : (OP == tp::ReduceOp::Min ? INFINITY : 0.0f);
        for (int c = 0; c < BN; ++c) acc = ref_combine(OP, acc, ref_elem(OP, in[r * BN + c]));
        v = ref_combine(OP, v, acc);
        for (int rep = 0; rep < WN * 4; ++rep) worst = std::max(worst, double(std::fabs(ro[rep * BM + r] - v)) / (1 + std::fabs(v)));
    }
    for (int c = 0; c < BN; ++c) {
        float v = prev_c[c];
        float acc = (OP == tp::ReduceOp::Max) ? -INFINITY : (OP == tp::ReduceOp::Min ? INFINITY : 0.0f);
        for (int r = 0; r < BM; ++r) acc = ref_combine(OP, acc, ref_elem(OP, in[r * BN + c]));
        v = ref_combine(OP, v, acc);
        for (int rep = 0; rep < WM * 8; ++rep) worst = std::max(worst, double(std::fabs(co[rep * BN + c] - v)) / (1 + std::fabs(v)));
    }
    bool ok = worst < 1e-4;
    all_ok = all_ok && ok;
    std::printf("%s reduce %-6s acc %3dx%-3d warps %dx%d (rows+cols, clear=False, all replicas) max rel err %.1e\n",
                ok ? "[ OK ]" : "[FAIL]", op_name(OP), BM, BN, WM, WN, worst);
}

static long long ref_int(tp::ReduceOp op, long long a, long long x) {
    if (op == tp::ReduceOp::AbsSum || op == tp::ReduceOp::AbsMax) x = x < 0 ? -x : x;
    if (op == tp::ReduceOp::Max || op == tp::ReduceOp::AbsMax) return std::max(a, x);
    if (op == tp::ReduceOp::Min) return std::min(a, x);
    return a + x;
}

template <int BM, int BN, int WM, int WN, tp::ReduceOp OP>
void run_reduce_int() {
    using L = tp::AccLayout<BM, BN, WM, WN>;
    std::mt19937 rng(7 + BM + BN);
    std::uniform_int_distribution<int> dist(-100000, 100000);
    std::vector<int> in(BM * BN), prev_r(BM), prev_c(BN);
    for (auto& x : in) x = dist(rng);
    for (auto& x : prev_r) x = dist(rng);
    for (auto& x : prev_c) x = dist(rng);
    DeviceBuf<int> din(in), dpr(prev_r), dpc(prev_c), dro(size_t(WN) * 4 * BM), dco(size_t(WM) * 8 * BN);
    reduce_int_kernel<L, OP><<<1, L::kThreads>>>(din.ptr, dpr.ptr, dpc.ptr, dro.ptr, dco.ptr);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto ro = dro.download(), co = dco.download();
    const long long init = OP == tp::ReduceOp::Max ? INT_MIN : (OP == tp::ReduceOp::Min ? INT_MAX : 0);
    int bad = 0;
    for (int r = 0; r < BM; ++r) {
        long long acc = init;
        for (int c = 0; c < BN; ++c) acc = ref_int(OP, acc, in[r * BN + c]);
        long long v = OP == tp::ReduceOp::AbsSum || OP == tp::ReduceOp::AbsMax ? ref_int(OP == tp::ReduceOp::AbsSum ? tp::ReduceOp::Sum : tp::ReduceOp::Max, prev_r[r], acc)
                                                                                 : ref_int(OP, prev_r[r], acc);
        for (int rep = 0; rep < WN * 4; ++rep) bad += ro[rep * BM + r] != v;
    }
    for (int c = 0; c < BN; ++c) {
        long long acc = init;
        for (int r = 0; r < BM; ++r) acc = ref_int(OP, acc, in[r * BN + c]);
        long long v = OP == tp::ReduceOp::AbsSum || OP == tp::ReduceOp::AbsMax ? ref_int(OP == tp::ReduceOp::AbsSum ? tp::ReduceOp::Sum : tp::ReduceOp::Max, prev_c[c], acc)
                                                                                 : ref_int(OP, prev_c[c], acc);
        for (int rep = 0; rep < WM * 8; ++rep) bad += co[rep * BN + c] != v;
    }
    all_ok = all_ok && bad == 0;
    std::printf("%s reduce %-6s int32 acc %3dx%-3d warps %dx%d (rows+cols, clear=False, all replicas): %d mismatches\n",
                bad ? "[FAIL]" : "[ OK ]", op_name(OP), BM, BN, WM, WN, bad);
}

template <int BM, int BN, int WM, int WN>
void run_all_ops() {
    run_reduce<BM, BN, WM, WN, tp::ReduceOp::Sum>();
    run_reduce<BM, BN, WM, WN, tp::ReduceOp::Max>();
    run_reduce<BM, BN, WM, WN, tp::ReduceOp::Min>();
    run_reduce<BM, BN, WM, WN, tp::ReduceOp::AbsSum>();
    run_reduce<BM, BN, WM, WN, tp::ReduceOp::AbsMax>();
}

template <int BM, int BN, int WM, int WN, tp::ReduceOp OP>
void run_col_vector() {
    using L = tp::AccLayout<BM, BN, WM, WN>;
    auto in = random_vec<float>(BN, 11 + BN, 2.0f);
    const float prev = 0.25f;
    DeviceBuf<float> din(in), dout(L::kThreads);
    col_vector_kernel<L, OP><<<1, L::kThreads>>>(din.ptr, prev, dout.ptr);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto out = dout.download();
    float acc = (OP == tp::ReduceOp::Max) ? -INFINITY : (OP == tp::ReduceOp::Min ? INFINITY : 0.0f);
    for (int c = 0; c < BN; ++c) acc = ref_combine(OP, acc, ref_elem(OP, in[c]));
    const float want = ref_combine(OP, prev, acc);
    double worst = 0;
    for (int t = 0; t < L::kThreads; ++t) worst = std::max(worst, double(std::fabs(out[t] - want)) / (1 + std::fabs(want)));
    bool ok = worst < 1e-4;
    all_ok = all_ok && ok;
    std::printf("%s reduce %-6s column vector of %3d warps %dx%d (clear=False, every thread) max rel err %.1e\n", ok ? "[ OK ]" : "[FAIL]",
                op_name(OP), BN, WM, WN, worst);
}

template <int BM, int BN, int WM, int WN>
void run_copy(int rows_valid, int cols_valid) {
    using L = tp::AccLayout<BM, BN, WM, WN>;
    auto in = random_vec<float>(BM * BN, 9);
    DeviceBuf<float> din(in);
    DeviceBuf<__half> dg(BM * BN), ds(BM * BN);
    CK(cudaMemset(dg.ptr, 0, BM * BN * 2));
    CK(cudaMemset(ds.ptr, 0, BM * BN * 2));
    copy_kernel<L><<<1, L::kThreads>>>(din.ptr, dg.ptr, ds.ptr, rows_valid, cols_valid);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto g = dg.download(), s = ds.download();
    int bad = 0;
    for (int r = 0; r < BM; ++r)
        for (int c = 0; c < BN; ++c) {
            bool inside = r < rows_valid && c < cols_valid;
            float want = inside ? __half2float(__float2half_rn(in[r * BN + c])) : 0.0f;
            bad += __half2float(g[r * BN + c]) != want;
            bad += __half2float(s[r * BN + c]) != want;
        }
    all_ok = all_ok && bad == 0;
    std::printf("%s copy fragment->global and fragment->smem->global %dx%d warps %dx%d valid %dx%d: %d mismatches\n",
                bad ? "[FAIL]" : "[ OK ]", BM, BN, WM, WN, rows_valid, cols_valid, bad);
}

int main() {
    require_device("reduce_test");
    run_all_ops<64, 64, 2, 2>();
    run_all_ops<128, 64, 4, 1>();
    run_all_ops<64, 128, 1, 4>();
    run_all_ops<128, 128, 2, 4>();
    run_all_ops<32, 40, 2, 1>();
    run_reduce_int<64, 128, 2, 2, tp::ReduceOp::Max>();  // TileLang's top-k: argmax as max of indices
    run_reduce_int<64, 128, 2, 2, tp::ReduceOp::Min>();
    run_reduce_int<128, 64, 2, 2, tp::ReduceOp::Sum>();
    run_reduce_int<64, 64, 1, 4, tp::ReduceOp::AbsMax>();
    run_col_vector<64, 128, 2, 4, tp::ReduceOp::AbsMax>();  // dsa_hisa's per-block fp8 scale
    run_col_vector<64, 128, 2, 4, tp::ReduceOp::Sum>();     // each column counted once
    run_col_vector<128, 64, 4, 1, tp::ReduceOp::Max>();
    run_col_vector<64, 64, 1, 1, tp::ReduceOp::AbsSum>();
    run_copy<64, 64, 2, 2>(64, 64);
    run_copy<128, 128, 2, 4>(100, 77);
    run_copy<64, 40, 4, 1>(63, 40);
    std::printf("reduce_test: %s\n", all_ok ? "all checks passed" : "CHECK FAILURES");
    return all_ok ? 0 : 1;
}
