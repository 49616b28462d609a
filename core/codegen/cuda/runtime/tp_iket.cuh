// iket.mark / iket.range events (TileLang's tilelang.tools.cuda.iket): each one signals the
// SM's performance monitor with `pmevent.mask ID`, as TileLang's TL_IKET_EVENT does, so a
// profiler that samples PM events sees the kernel's marks. A payload is moved into a register
// at the event, where the monitor's sample finds it. Nothing here touches kernel memory.
#pragma once

#include "tp_common.cuh"

namespace tp {

template <int ID>
__device__ __forceinline__ void iket_event() {
    asm volatile("pmevent.mask %0;" ::"n"(ID) : "memory");
}

template <int ID>
__device__ __forceinline__ void iket_event(unsigned payload) {
    asm volatile("{\n\t.reg .b32 p;\n\tmov.b32 p, %0;\n\tpmevent.mask %1;\n\t}" ::"r"(payload), "n"(ID) : "memory");
}

template <int ID>
__device__ __forceinline__ void iket_event(int payload) {
    iket_event<ID>(static_cast<unsigned>(payload));
}

template <int ID>
__device__ __forceinline__ void iket_event(float payload) {
    iket_event<ID>(__float_as_uint(payload));
}

}  // namespace tp
