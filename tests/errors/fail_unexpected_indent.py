# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_unexpected_indent.py:7:9: error: unexpected indent [UnexpectedIndent]


def matmul(M, N):
    block_M = 64
        block_N = 64
    return block_M, block_N
