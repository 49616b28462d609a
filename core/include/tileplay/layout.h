// The layout model behind `tilec inspect --layout` and the playground's layout panel: for one
// fragment or shared buffer of a compiled kernel, which thread and register holds each element
// (mma.sync and wgmma accumulators, row vectors, striped fragments), where each shared element
// lands after the swizzle (byte, bank, XOR key), and every access of the buffer in the generated
// code (cp.async, ldmatrix, ld/st.shared, wgmma, TMA) with its bank-conflict degree and DSL line.
// Everything is asked of the compiler's own layout functions (layout inference, the shared
// swizzle, the tile templates' thread mappings in runtime/tp_layout.cuh), never a second copy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tileplay/compiler.h"

namespace tp {

// Who holds (fragment) or touches (access) an element. thread -1: every thread of the block
// (replicated fragments, whole-tile accesses by the async proxy); reg -1: not a register.
struct LayoutOwner {
    int thread = -1;
    int reg = -1;
};

struct LayoutAccess {
    std::string what;  // "cp.async 16 B store", "ldmatrix.x4 (T.gemm operand A)", "ld.shared 4 B", ...
    std::string call;  // the generated template call or statement it comes from
    bool write = false;
    Span span;      // the DSL statement (file: LayoutReport::file)
    int bytes = 0;  // bytes each thread moves per instruction (16 for cp.async / ldmatrix rows)
    // Bank conflicts over the warp requests modelled (see core/layout/bank_conflicts.h for what is
    // counted): degree = the worst phase's wavefronts (1: conflict free); 0 when not counted
    // (the async proxy: TMA and wgmma descriptors have no per-thread addresses to conflict).
    int degree = 0;
    int64_t requests = 0;          // warp-wide instructions modelled
    int64_t wavefronts = 0;        // their shared-memory wavefronts
    int64_t ideal_wavefronts = 0;  // the same without conflicts
    std::string note;              // assumptions (loop values taken, paths chosen), or why not counted
    // Per element of one stage (row-major rows x cols): the first thread (and, for ldmatrix, the
    // operand register element it lands in) that touches it; thread -1 with touched set: all.
    std::vector<LayoutOwner> touch;
    std::vector<uint8_t> touched;
};

// tp::SmemTile's swizzle of a shared tile: 16-byte chunk c of row r is stored at chunk
// c ^ ((r / rows_per_key) & mask).
struct LayoutSwizzle {
    std::string layout;     // as lowering chose it: "" row-major, "swizzle", "panels"
    bool swizzled = false;  // the layout moves chunks (rows of one 16-byte chunk stay put)
    bool panels = false;  // rows wider than 128 bytes kept as 128-byte panels (wgmma)
    int64_t pitch = 0;    // elements from one stored row to the next
    int64_t vec = 0;      // elements per 16-byte chunk
    int64_t rows_per_key = 1;
    int64_t mask = 0;
    int mode_bytes = 0;   // 128, 64, 32: the matching TMA / wgmma swizzle mode; 0 none
    std::string formula;  // "chunk' = chunk ^ ((row / 2) & 3)"
    std::string cutlass;  // "Swizzle<2,4,3> on byte addresses", or why none applies
};

struct BufferLayout {
    std::string name, scope, dtype, description;  // scope: "fragment" or "shared"
    Span decl;
    int64_t rows = 0, cols = 0, stages = 1;  // the last two dims; leading dims are stages
    int elem_bytes = 0;
    int threads = 0;  // of the block
    // Fragments: the owners of each element (row-major), one for mma/wgmma accumulators and
    // striped fragments, several for row/column vectors replicated across a quad.
    std::vector<std::vector<LayoutOwner>> owners;
    int64_t regs_per_thread = 0;
    bool wgmma = false;  // the accumulator of a wgmma (warpgroups of 128)
    // Shared tiles: byte offset of each element within its stage, and the swizzle.
    std::vector<int64_t> byte_offset;
    LayoutSwizzle swizzle;
    std::vector<LayoutAccess> accesses;

    int bank(int64_t e) const { return int((byte_offset[size_t(e)] / 4) % 32); }
};

struct LayoutBufferInfo {
    std::string name, scope;
};

struct LayoutReport {
    bool ok = false;
    std::string error;  // compile failure or unknown buffer, user-facing
    std::vector<Diagnostic> diagnostics;
    SourceFilePtr file;
    std::string target, kernel;
    std::vector<LayoutBufferInfo> buffers;  // every fragment and shared tile of the kernel
    BufferLayout layout;                    // the one asked for (empty name: none asked)
};

// Compiles `req` (to the lowered IR) and models `buffer`; an empty `buffer` only lists them.
LayoutReport inspect_layout(const CompileRequest& req, const std::string& buffer);

}  // namespace tp
