# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_unmatched_bracket.py:5:22: error: unmatched `]` [UnmatchedBracket]
import tilelang.language as T

shape = (128, 128, 64]
