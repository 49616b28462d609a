# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_inconsistent_dedent.py:9:1: error: unindent does not match any outer indentation level [InconsistentDedent]


def matmul(M, N):
        block_M = 64
        if M > 128:
            block_M = 128
      return block_M
