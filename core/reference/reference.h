// Plain C++ CPU references for the samples' baselines (what cuBLAS / PyTorch compute), used
// by `tilec run --check` and the tests. Independent of the interpreter: straightforward loops
// summed in double, rounded once to the output dtype. Bad shapes throw std::invalid_argument.
#pragma once

#include <string>

#include "tensor/tensor.h"

namespace tp::reference {

// C[M, N] = op(A) @ op(B); op(A) is A[M, K] or, with trans_a, A[K, M]^T; op(B) is B[K, N] or
// B[N, K]^T with trans_b.
HostTensor gemm(const HostTensor& A, const HostTensor& B, bool trans_a, bool trans_b, ir::DataType out);

// gelu(A @ B + bias) with the exact erf GELU; bias has N elements (or M x N).
HostTensor gemm_bias_gelu(const HostTensor& A, const HostTensor& B, const HostTensor& bias, bool trans_a, bool trans_b,
                          ir::DataType out);

// softmax over the last dim (numerically stable), any leading dims.
HostTensor softmax(const HostTensor& x, ir::DataType out);

enum class Layout { BSHD, BHSD };
// O = softmax(Q K^T * scale [+ causal mask]) V over 4-D Q, K, V in the given layout.
// scale <= 0 means 1/sqrt(D). Causal masks key positions after the query position.
HostTensor attention(const HostTensor& Q, const HostTensor& K, const HostTensor& V, bool causal, double scale,
                     Layout layout, ir::DataType out);

// Elementwise A + B (same shape).
HostTensor add(const HostTensor& A, const HostTensor& B, ir::DataType out);

double gelu_exact(double x);

}  // namespace tp::reference
