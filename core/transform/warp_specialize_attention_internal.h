// Internal to warp_specialize_attention, which is split in three files:
//   warp_specialize_attention_patterns.cpp  small IR pattern checks (linear index forms through
//                                           let bindings, constant bounds, loads, exp2 of a
//                                           scaled difference, T.Parallel stores)
//   warp_specialize_attention_match.cpp     the statement-by-statement match of the
//                                           FlashAttention kernel (Matcher::run)
//   warp_specialize_attention.cpp           the entry point: the rewrite into the template call
// The matcher's result (Plan) and the patterns are all the rewrite and the matcher share.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tp::transform::ws_attention {

// The moved code names IR types unqualified, as every transform source does; the directive stays
// inside this internal namespace.
using namespace ir;

using Lets = std::map<const VarNode*, Expr>;

// Integer expression as sum(coeff * var) + constant, through the kernel's let bindings.
struct Lin {
    std::map<const VarNode*, int64_t> c;
    int64_t k = 0;
    bool operator==(const Lin& o) const { return c == o.c && k == o.k; }
};
std::optional<Lin> lin(const Expr& e, const Lets& lets);
Lin var_times(const Var& v, int64_t c);
bool lin_is(const Expr& e, const Lets& lets, const Lin& want);

// Evaluates an integer expression with `env` bound (the loop bound as a function of bx).
std::optional<int64_t> eval_int(const Expr& e, const Lets& lets, const std::map<const VarNode*, int64_t>& env);

bool is_zero(const Expr& e);
bool is_neg_inf(const Expr& e);

bool load_of(const Expr& e, const Buffer& b, const std::vector<Var>& idx);
// a * b in either order, each side checked by its own predicate.
bool mul_of(const Expr& e, const std::function<bool(const Expr&)>& p, const std::function<bool(const Expr&)>& q);
// buf[idx] * c with a float constant c: the softmax scale (all of them must agree).
bool scaled_load(const Expr& e, const Buffer& b, const std::vector<Var>& idx, std::optional<double>& scale);
// exp2(a[ia] * c - b[ib] * c)
bool exp2_diff(const Expr& e, const Buffer& a, const std::vector<Var>& ia, const Buffer& b, const std::vector<Var>& ib,
               std::optional<double>& scale);

// A T.Parallel nest of exactly `extents` (from 0) around one store; returns the store and
// its loop variables.
const BufferStoreNode* parallel_store(const Stmt& s, const std::vector<int64_t>& extents, std::vector<Var>& vars);

bool whole(const BufferRegion& r);
bool shape_is(const Buffer& b, std::vector<int64_t> want, Scope scope, DataType t);

// Statements of s in order, SeqStmts opened and let bindings recorded in `lets`.
void flatten(const Stmt& s, std::vector<Stmt>& out, Lets& lets);

struct Plan {
    bool causal = false;
    double scale = 0;
    int64_t batch = 0, heads = 0, seq = 0, dim = 0;
    Buffer q, k, v, out;  // the global tensors
};

// Match state shared by the checks: the block variables and the let bindings.
struct Matcher {
    const PrimFunc& func;
    const KernelLaunchNode& launch;
    Lets lets;
    Plan plan;
    int64_t bm = 0, bn = 0;
    std::optional<double> scale;

    Matcher(const PrimFunc& f, const KernelLaunchNode& k) : func(f), launch(k) {}

    bool is_param(const Buffer& b) const {
        for (const auto& p : func.params)
            if (p.buffer == b) return true;
        return false;
    }
    // buf[bz, by, row0 : row0 + rows, 0 : dim] of a BHSD tensor; row0 must be `rows_at`.
    std::string tile(const BufferRegion& r, const Lin& rows_at, int64_t rows, const char* what) const;

    std::string run();
};

}  // namespace tp::transform::ws_attention
