# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_expected_token.py:6:27: error: expected `)`, found `C_local` [ExpectedToken]
import tilelang.language as T


T.gemm(A_shared, B_shared C_local)
