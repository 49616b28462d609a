// Buffer access helpers of the interpreter: bounds-checked flat indices, rounding stores and
// the run-time diagnostics (out-of-bounds with the buffer, shape, index and block).
#include <sstream>

#include <cstdio>

#include "interp/program.h"
#include "tensor/tensor.h"

namespace tp::interp {

VarSlot Program::slot_of(const ir::Var& v) {
    auto it = vars.find(v.get());
    if (it != vars.end()) return it->second;
    VarSlot s;
    s.is_float = v->dtype.is_float();
    s.index = s.is_float ? n_fvars++ : n_ivars++;
    vars.emplace(v.get(), s);
    return s;
}

int Program::buffer_slot(const ir::Buffer& b) {
    auto it = buffer_slots.find(b.get());
    if (it != buffer_slots.end()) return it->second;
    int slot = static_cast<int>(buffers.size());
    buffers.push_back({b, slot, b->scope == ir::Scope::Global});
    buffer_slots.emplace(b.get(), slot);
    return slot;
}

Frame Program::make_frame() const {
    Frame fr;
    fr.prog = this;
    fr.ivars.assign(static_cast<size_t>(n_ivars), 0);
    fr.fvars.assign(static_cast<size_t>(n_fvars), 0.0);
    fr.bufs.resize(buffers.size());
    fr.local_storage.resize(buffers.size());
    return fr;
}

std::string block_text(const Frame& fr) {
    std::ostringstream os;
    os << '(' << fr.block[0] << ", " << fr.block[1] << ", " << fr.block[2] << ')';
    return os.str();
}

std::string index_text(const int64_t* idx, int n) {
    std::ostringstream os;
    os << '[';
    for (int i = 0; i < n; ++i) os << (i ? ", " : "") << idx[i];
    os << ']';
    return os.str();
}

std::string shape_text(const BufView& b) { return index_text(b.shape, b.rank); }

void throw_diag(const Frame& fr, DiagKind kind, Span span, std::vector<std::string> args) {
    Diagnostic d;
    d.kind = kind;
    d.severity = diag_info(kind).severity;
    d.message = format_diag(kind, args);
    d.file = fr.prog ? fr.prog->file : std::string();
    d.span = span;
    throw RunError{std::move(d)};
}

void Frame::throw_timeout(Span span) const {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", watchdog_s);
    throw_diag(*this, DiagKind::InterpreterTimeout, span, {secs, block_text(*this)});
}

void throw_oob(const Frame& fr, Span span, const char* what, const ir::BufferNode& buf, const BufView& v,
               const int64_t* idx, int n) {
    throw_diag(fr, DiagKind::OutOfBoundsAccess, span, {what, buf.name, shape_text(v), index_text(idx, n), block_text(fr)});
}

int64_t checked_flat(const Frame& fr, Span span, const char* what, const ir::BufferNode& buf, const BufView& v,
                     const int64_t* idx, int n) {
    if (n == 0) {
        // A scalar access (T.alloc_var) reads element 0.
        if (v.size < 1) throw_oob(fr, span, what, buf, v, idx, n);
        return 0;
    }
    if (n != v.rank)
        throw_diag(fr, DiagKind::IndexCountMismatch, span, {buf.name, std::to_string(v.rank), std::to_string(n)});
    int64_t flat = 0;
    for (int d = 0; d < n; ++d) {
        if (idx[d] < 0 || idx[d] >= v.shape[d]) throw_oob(fr, span, what, buf, v, idx, n);
        flat = flat * v.shape[d] + idx[d];
    }
    return flat;
}

double round_value(double v, ir::DataType t) {
    if (t.code == ir::DataType::Float) {
        if (t.bits == 32) return static_cast<double>(static_cast<float>(v));
        if (t.bits == 64) return v;
    }
    return round_to_dtype(v, t);
}

void store_value(BufView& b, int64_t flat, double v, ir::DataType t) {
    b.data[flat] = round_value(v, t);
    if (b.written) std::atomic_ref<uint8_t>(b.written[flat]).store(1, std::memory_order_relaxed);
}

}  // namespace tp::interp
