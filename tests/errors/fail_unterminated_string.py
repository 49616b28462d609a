# RUN: not %tilec compile %s --emit=ast 2>&1 | FileCheck %s
# CHECK: fail_unterminated_string.py:5:9: error: unterminated string literal [UnterminatedString]
import tilelang.language as T

dtype = "float16
