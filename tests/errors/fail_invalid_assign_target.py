# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_invalid_assign_target.py:7:5: error: cannot assign to function call [InvalidAssignTarget]
import tilelang.language as T


def matmul(M, N):
    T.ceildiv(M, 64) = N
    return M
