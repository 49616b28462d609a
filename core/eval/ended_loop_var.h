// What a kernel loop's variable name holds once its loop has ended. Python keeps the name
// bound to the last value, but an IR loop's variable has no value outside the loop; using it
// there would reach the passes as an unbound variable (an internal error), so the name is
// rebound to this marker and a use is a located error (Evaluator::lookup).
#pragma once

#include <cstdint>

#include "eval/value.h"

namespace tp::eval {

struct EndedLoopVarObj : OpaqueObj {
    uint32_t loop_line = 0;  // the loop's `for` line, for the message
};

inline Value ended_loop_var(const std::string& name, uint32_t loop_line) {
    auto o = std::make_shared<EndedLoopVarObj>();
    o->what = "loop variable `" + name + "` after its loop";
    o->loop_line = loop_line;
    return Value::make(VK::Opaque, o);
}

// The loop line when `v` is such a marker, else 0.
inline uint32_t ended_loop_line(const Value& v) {
    if (v.kind != VK::Opaque) return 0;
    auto* e = dynamic_cast<const EndedLoopVarObj*>(v.obj.get());
    return e ? e->loop_line : 0;
}

}  // namespace tp::eval
