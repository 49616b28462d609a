// CPU references: GEMM (both transposes), GEMM + bias + GELU, row softmax, attention forward
// (causal / non-causal, BSHD / BHSD) and vector add.
#include "reference/reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tp::reference {

namespace {

std::string shp(const HostTensor& t) { return t.describe(); }

void need(bool ok, const std::string& msg) {
    if (!ok) throw std::invalid_argument(msg);
}

// Computes op(A) @ op(B) into a double matrix.
std::vector<double> matmul(const HostTensor& A, const HostTensor& B, bool ta, bool tb, int64_t& M, int64_t& N) {
    need(A.shape.size() == 2 && B.shape.size() == 2, "gemm reference needs 2-D A and B, got " + shp(A) + " and " + shp(B));
    M = ta ? A.shape[1] : A.shape[0];
    int64_t K = ta ? A.shape[0] : A.shape[1];
    int64_t KB = tb ? B.shape[1] : B.shape[0];
    N = tb ? B.shape[0] : B.shape[1];
    need(K == KB, "gemm reference: inner dims differ (" + shp(A) + " and " + shp(B) + ")");
    std::vector<double> a = A.to_doubles(), b = B.to_doubles(), c(static_cast<size_t>(M * N), 0.0);
    // Row-major i-k-j loop over contiguous rows of op(B).
    std::vector<double> bk(static_cast<size_t>(K * N));
    for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < N; ++j) bk[static_cast<size_t>(k * N + j)] = tb ? b[static_cast<size_t>(j * K + k)] : b[static_cast<size_t>(k * N + j)];
    for (int64_t i = 0; i < M; ++i) {
        double* ci = c.data() + i * N;
        for (int64_t k = 0; k < K; ++k) {
            double aik = ta ? a[static_cast<size_t>(k * M + i)] : a[static_cast<size_t>(i * K + k)];
            const double* bkr = bk.data() + k * N;
            for (int64_t j = 0; j < N; ++j) ci[j] += aik * bkr[j];
        }
    }
    return c;
}

}  // namespace

double gelu_exact(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

HostTensor gemm(const HostTensor& A, const HostTensor& B, bool trans_a, bool trans_b, ir::DataType out) {
    int64_t M, N;
    std::vector<double> c = matmul(A, B, trans_a, trans_b, M, N);
    HostTensor C(out, {M, N});
    C.from_doubles(c);
    return C;
}

HostTensor gemm_bias_gelu(const HostTensor& A, const HostTensor& B, const HostTensor& bias, bool trans_a, bool trans_b,
                          ir::DataType out) {
    int64_t M, N;
    std::vector<double> c = matmul(A, B, trans_a, trans_b, M, N);
    bool row = bias.numel() == N;
    need(row || bias.numel() == M * N, "gemm_bias_gelu reference: bias " + shp(bias) + " is neither [N] nor [M, N]");
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double& v = c[static_cast<size_t>(i * N + j)];
            v = gelu_exact(v + bias.get(row ? j : i * N + j));
        }
    HostTensor C(out, {M, N});
    C.from_doubles(c);
    return C;
}

HostTensor softmax(const HostTensor& x, ir::DataType out) {
    need(!x.shape.empty(), "softmax reference needs at least one dimension");
    int64_t n = x.shape.back(), rows = n ? x.numel() / n : 0;
    std::vector<double> v = x.to_doubles();
    for (int64_t r = 0; r < rows; ++r) {
        double* p = v.data() + r * n;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, p[j]);
        for (int64_t j = 0; j < n; ++j) sum += (p[j] = std::exp(p[j] - mx));
        for (int64_t j = 0; j < n; ++j) p[j] /= sum;
    }
    HostTensor y(out, x.shape);
    y.from_doubles(v);
    return y;
}

HostTensor attention(const HostTensor& Q, const HostTensor& K, const HostTensor& V, bool causal, double scale,
                     Layout layout, ir::DataType out) {
    need(Q.shape.size() == 4 && K.shape.size() == 4 && V.shape.size() == 4,
         "attention reference needs 4-D Q, K, V, got " + shp(Q) + ", " + shp(K) + ", " + shp(V));
    bool bshd = layout == Layout::BSHD;
    auto dims = [&](const HostTensor& t, int64_t& b, int64_t& h, int64_t& s, int64_t& d) {
        b = t.shape[0];
        h = bshd ? t.shape[2] : t.shape[1];
        s = bshd ? t.shape[1] : t.shape[2];
        d = t.shape[3];
    };
    int64_t B, H, Sq, D, Bk, Hk, Sk, Dk, Bv, Hv, Sv, Dv;
    dims(Q, B, H, Sq, D);
    dims(K, Bk, Hk, Sk, Dk);
    dims(V, Bv, Hv, Sv, Dv);
    need(B == Bk && B == Bv && H == Hk && H == Hv && Sk == Sv && D == Dk,
         "attention reference: Q " + shp(Q) + ", K " + shp(K) + " and V " + shp(V) + " do not agree");
    if (scale <= 0) scale = 1.0 / std::sqrt(static_cast<double>(D));
    auto at = [&](const HostTensor& t, int64_t b, int64_t h, int64_t s, int64_t d, int64_t S, int64_t Dd) {
        int64_t f = bshd ? ((b * S + s) * H + h) * Dd + d : ((b * H + h) * S + s) * Dd + d;
        return t.get(f);
    };
    std::vector<int64_t> oshape = bshd ? std::vector<int64_t>{B, Sq, H, Dv} : std::vector<int64_t>{B, H, Sq, Dv};
    HostTensor O(out, oshape);
    std::vector<double> score(static_cast<size_t>(Sk)), acc(static_cast<size_t>(Dv));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < Sq; ++i) {
                double mx = -INFINITY;
                // Causal masks keep j <= i, the diagonal aligned to the top-left as in torch's
                // scaled_dot_product_attention(is_causal=True), the baseline samples name.
                int64_t limit = causal ? std::min(i, Sk - 1) : Sk - 1;
                for (int64_t j = 0; j < Sk; ++j) {
                    if (j > limit) {
                        score[static_cast<size_t>(j)] = -INFINITY;
                        continue;
                    }
                    double s = 0;
                    for (int64_t d = 0; d < D; ++d) s += at(Q, b, h, i, d, Sq, D) * at(K, b, h, j, d, Sk, D);
                    score[static_cast<size_t>(j)] = s * scale;
                    mx = std::fmax(mx, s * scale);
                }
                double sum = 0;
                for (int64_t j = 0; j < Sk; ++j) sum += (score[static_cast<size_t>(j)] = std::isinf(score[static_cast<size_t>(j)]) ? 0.0 : std::exp(score[static_cast<size_t>(j)] - mx));
                std::fill(acc.begin(), acc.end(), 0.0);
                for (int64_t j = 0; j < Sk; ++j) {
                    double p = score[static_cast<size_t>(j)];
                    if (p == 0) continue;
                    for (int64_t d = 0; d < Dv; ++d) acc[static_cast<size_t>(d)] += p * at(V, b, h, j, d, Sk, Dv);
                }
                for (int64_t d = 0; d < Dv; ++d) {
                    int64_t f = bshd ? ((b * Sq + i) * H + h) * Dv + d : ((b * H + h) * Sq + i) * Dv + d;
                    O.set(f, sum > 0 ? acc[static_cast<size_t>(d)] / sum : 0.0);
                }
            }
    return O;
}

HostTensor add(const HostTensor& A, const HostTensor& B, ir::DataType out) {
    need(A.shape == B.shape, "add reference: shapes " + shp(A) + " and " + shp(B) + " differ");
    HostTensor C(out, A.shape);
    for (int64_t i = 0; i < A.numel(); ++i) C.set(i, A.get(i) + B.get(i));
    return C;
}

}  // namespace tp::reference
