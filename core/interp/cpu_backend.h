// The CPU back-end seam: run_on_cpu hands each launch to the LLVM JIT (libtileplay_jit, loaded
// with dlopen where it was built) when the run allows it and the JIT accepts the kernel, and to
// the interpreter otherwise. The interpreter stays the reference and the race checker's engine.
#pragma once

#include <map>
#include <string>

#include "interp/cpu_jit_abi.h"
#include "ir/ir.h"
#include "tileplay/interp.h"

namespace tp::interp {

// The JIT library, loaded once per process; null with `why` set ("LLVM JIT not built", the
// dlopen error, TILEPLAY_JIT=0) when there is none.
const TpJitApi* cpu_jit(std::string* why);

// T.print's line format (defined in tile_ops.cpp), shared with the JIT so both print alike: the
// "msg='...' BlockIdx=(x, y, z), ThreadIdx=(0, 0, 0)" head of a line, and a value of `t`.
std::string print_line_prefix(const int64_t* block, const std::string& msg);
std::string print_value(double v, ir::DataType t);

// Runs the one-launch function `f` on the JIT. True when the JIT settled the run (`rep` filled:
// a result, a timeout or a cancel); false with `note` saying why the interpreter should run it
// (the kernel has something the JIT does not lower, or a fault the interpreter will report).
// The arguments are untouched unless it returns true.
bool run_launch_on_jit(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts, InterpReport& rep,
                       std::string& note);

}  // namespace tp::interp
