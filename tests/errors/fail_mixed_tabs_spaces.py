# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_mixed_tabs_spaces.py:7:1: error: inconsistent use of tabs and spaces in indentation [MixedTabsSpaces]


def matmul(M, N):
        block_M = 64
	block_N = 64
        return block_M, block_N
