# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_invalid_character.py:6:14: error: invalid character `$` in source [InvalidCharacter]
import tilelang.language as T


block_M = 64 $ 2
