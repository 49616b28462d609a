# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_invalid_syntax.py:6:25: error: invalid syntax: positional argument follows keyword argument [InvalidSyntax]
import tilelang.language as T


kernel = matmul(M=1024, 1024, 1024)
