// Internal to the layout model (tileplay/layout.h), split over three files:
//   layout_model.cpp    compile, find the buffer, fragment owners (FragLayout), shared offsets
//   layout_access.cpp   the buffer's accesses in the lowered IR and their bank conflicts
//   layout_templates.cpp the tile templates' thread mappings (cp.async, ldmatrix, fragment stores)
// and an integer evaluator of IR index expressions with some variables bound.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "layout/bank_conflicts.h"
#include "tileplay/layout.h"

namespace tp::layout {

using Env = std::map<const ir::VarNode*, int64_t>;

// Integer value of an index expression; variables not in `env` count as 0 and are named in
// `assumed` (the model's notes say which values it took).
struct Evaluator {
    std::set<std::string> assumed;
    int64_t value(const ir::Expr& e, const Env& env);
};

// Where one stage element lands: element offset within a stage -> byte offset, from the
// BufferLayout's table; `stage_bytes` apart per stage.
struct SharedGeometry {
    const BufferLayout* bl = nullptr;
    int64_t stage_bytes = 0;
    // Byte address of element (row, col) of stage `stage` (rows past the tile wrap to the
    // next stage, as the row-major offset does).
    int64_t byte(int64_t stage, int64_t row, int64_t col) const;
    bool inside(int64_t row, int64_t col) const { return row >= 0 && col >= 0 && row < bl->rows && col < bl->cols; }
};

// Accumulates warp requests into one LayoutAccess (degree, wavefronts, touches).
struct AccessBuilder {
    LayoutAccess a;
    explicit AccessBuilder(const BufferLayout& bl);
    void request(const std::vector<LaneAddress>& lanes);
    void touch(int64_t row, int64_t col, int thread, int reg, const BufferLayout& bl);
    void touch_all();
};

// A call of a tile template on the buffer: the template's name and arguments (split at the
// top level), which of the call's buffer operands is ours (0: the first) and where it starts.
struct TemplateCall {
    std::string name;                // "tp::gemm_ss"
    std::vector<std::string> targs;  // "128", "half_t", "tp::AccLayout<128, 128, 2, 2>", ...
    std::string text;
    int operand = 0;
    std::vector<int64_t> origin;  // the operand's first element (stage, row, col)
    Span span;
    int threads = 0;  // of the block
};
std::optional<TemplateCall> parse_template(const std::string& text);

// The access of a template call, or nullopt when the template is not one the model knows.
std::optional<LayoutAccess> template_access(const TemplateCall& call, const BufferLayout& bl, const SharedGeometry& g);

// Every access of the shared buffer `name` in a lowered launch.
std::vector<LayoutAccess> shared_accesses(const ir::PrimFunc& lowered, const std::string& name, const BufferLayout& bl);

}  // namespace tp::layout
