// A throw-away compile that pays a process's one-off start-up before the user's first compile:
// page faults of NVRTC and of our own code and static initialisation cost the first compile in
// a process 60 to 80 ms of CPU more than later ones (docs/compile-time.md). The playground runs
// it on its compile thread at launch.
#pragma once

#include <string>

#include "tileplay/compiler.h"

namespace tp {

// Compiles a small built-in Tensor-Core GEMM for `target` to a cubin, the module cache
// bypassed (a hit would skip NVRTC, the start-up worth paying). The result is only for tests
// and timing; nothing of it is kept.
CompileResult warm_up(const std::string& target);

}  // namespace tp
