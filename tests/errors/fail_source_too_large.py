# RUN: not %tilec compile /dev/zero --emit=cuda 2>&1 | FileCheck %s
# CHECK: /dev/zero: error: the source is too large: over 8388608 bytes, the limit for a DSL file; is it a text file? [SizeTooLarge]
# RUN: not %tilec run /dev/zero --device cpu 2>&1 | FileCheck %s
# An endless or huge input is refused after 8 MiB instead of being read (and tokenized) whole.
