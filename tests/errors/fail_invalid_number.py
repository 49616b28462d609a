# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_invalid_number.py:5:11: error: invalid number literal `0128` [InvalidNumber]
import tilelang.language as T

block_M = 0128
