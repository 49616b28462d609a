// The race and barrier checker's shadow state and reports (see race_check.h).
#include "interp/race_check.h"

#include <algorithm>

#include "interp/program.h"

namespace tp::interp {

namespace {

enum KeyKind { kWriteRead, kReadWrite, kWriteWrite, kAsync, kPhase };

std::string where(const Frame& fr, const Span* s) {
    std::string file = fr.prog ? fr.prog->file : std::string();
    if (!s) return file;
    return file + ":" + std::to_string(s->begin.line) + ":" + std::to_string(s->begin.col);
}

std::string who(int32_t t) {
    if (t == kEveryThread) return "every thread";
    if (t == kSomeThread) return "a tile op's thread";
    return "thread " + std::to_string(t);
}

// Whether `b` (now) conflicts with `a` (earlier in the epoch); one of them writes.
bool conflicts(int32_t a, bool a_writes, int32_t b, bool b_writes) {
    if (a >= 0 && b >= 0) return a != b;
    // Every thread wrote the same value before any of them reads it: each reads that value.
    if (a == kEveryThread && a_writes && !b_writes) return false;
    (void)b_writes;
    return true;  // one side stands for several threads, or a thread the checker does not know
}

std::string element_text(const Frame& fr, int slot, int64_t flat) {
    const BufView& v = fr.bufs[static_cast<size_t>(slot)];
    int64_t idx[kMaxRank] = {};
    for (int d = v.rank - 1; d >= 0; --d) {
        const int64_t e = v.shape[d] > 0 ? v.shape[d] : 1;
        idx[d] = flat % e;
        flat /= e;
    }
    return index_text(idx, v.rank);
}

const ir::BufferNode& buffer_of(const Frame& fr, int slot) { return *fr.prog->buffers[static_cast<size_t>(slot)].buffer; }

void report_pair(Frame& fr, int slot, int64_t flat, KeyKind kind, int32_t t1, const Span* s1, int32_t t2, const Span* s2) {
    RaceState& rs = *fr.races;
    static const char* names[] = {"write-read", "read-write", "write-write"};
    static const char* verbs1[] = {"writes", "reads", "writes"};
    static const char* verbs2[] = {"reads", "writes", "writes"};
    const std::string& name = buffer_of(fr, slot).name;
    RaceFinding f;
    f.kind = DiagKind::SharedMemoryRace;
    f.args = {names[kind],
              name,
              element_text(fr, slot, flat),
              block_text(fr),
              who(t1) + " " + verbs1[kind] + " it at " + where(fr, s1),
              who(t2) + " " + verbs2[kind] + " it"};
    if (s2) f.span = *s2;
    if (s1) f.first_span = *s1;
    f.first_note = "the other access: " + who(t1) + " " + verbs1[kind] + " `" + name + f.args[2] + "` here";
    f.block = rs.linear_block;
    rs.add(std::move(f), kind, s1, s2, name);
}

}  // namespace

void RaceState::begin_block(int64_t linear, size_t slots) {
    linear_block = linear;
    epoch = 1;
    shadow.resize(slots);
    pending.resize(slots);
    pending_count.assign(slots, 0);
    for (auto& s : shadow) s.clear();
    for (auto& p : pending) p.clear();
    last_arrive.clear();
}

void RaceState::reset_buffer(int slot, int64_t size) {
    const auto n = static_cast<size_t>(std::max<int64_t>(size, 0));
    if (elements) shadow[static_cast<size_t>(slot)].assign(n, ElemShadow{});
    pending[static_cast<size_t>(slot)].assign(n, PendingAsync{});
    pending_count[static_cast<size_t>(slot)] = 0;
}

void RaceState::add(RaceFinding f, int key_kind, const Span* a, const Span* b, const std::string& buffer) {
    auto key = std::make_tuple(key_kind, a, b, buffer);
    auto it = seen.find(key);
    if (it != seen.end()) {
        ++findings[it->second].count;
        return;
    }
    seen.emplace(key, findings.size());
    findings.push_back(std::move(f));
}

// An access (`verb`: "reads" or "writes") of an element an asynchronous copy is still filling:
// no wait has seen the copy's mbarrier phase complete.
static void check_pending_async(Frame& fr, int slot, int64_t flat, const Span* span, const char* verb) {
    RaceState& rs = *fr.races;
    const auto s = static_cast<size_t>(slot);
    if (rs.pending_count[s] == 0 || rs.pending[s].empty()) return;
    const PendingAsync& p = rs.pending[s][static_cast<size_t>(flat)];
    if (!p.copy_span) return;
    const ir::BufferNode& bar = buffer_of(fr, p.mbar_slot);
    const std::string& name = buffer_of(fr, slot).name;
    RaceFinding f;
    f.kind = DiagKind::AsyncReadBeforeWait;
    f.args = {who(fr.owner) + " " + verb,   name,
              element_text(fr, slot, flat), block_text(fr),
              where(fr, p.copy_span),       bar.name + "[" + std::to_string(p.mbar_index) + "]"};
    if (span) f.span = *span;
    f.first_span = *p.copy_span;
    f.first_note = "the asynchronous copy into `" + name + "` was issued here";
    f.block = rs.linear_block;
    rs.add(std::move(f), kAsync, p.copy_span, span, name);
}

void race_read(Frame& fr, int slot, int64_t flat, const Span* span) {
    RaceState& rs = *fr.races;
    const auto s = static_cast<size_t>(slot);
    check_pending_async(fr, slot, flat, span, "reads");
    if (!rs.elements || rs.shadow[s].empty()) return;
    ElemShadow& e = rs.shadow[s][static_cast<size_t>(flat)];
    const int32_t me = fr.owner;
    if (e.w_epoch == rs.epoch && conflicts(e.writer, true, me, false)) report_pair(fr, slot, flat, kWriteRead, e.writer, e.wspan, me, span);
    if (e.r_epoch != rs.epoch) {
        e.r_epoch = rs.epoch;
        e.reader0 = me;
        e.rspan0 = span;
        e.two_readers = false;
    } else if (!e.two_readers && e.reader0 != me) {
        e.reader1 = me;
        e.rspan1 = span;
        e.two_readers = true;
    }
}

void race_write(Frame& fr, int slot, int64_t flat, const Span* span, double before, double after) {
    RaceState& rs = *fr.races;
    const auto s = static_cast<size_t>(slot);
    check_pending_async(fr, slot, flat, span, "writes");
    // Storing the value the element already holds cannot be told apart from not storing it.
    if (before == after || (before != before && after != after)) return;
    if (!rs.elements || rs.shadow[s].empty()) return;
    ElemShadow& e = rs.shadow[s][static_cast<size_t>(flat)];
    const int32_t me = fr.owner;
    if (e.w_epoch == rs.epoch && conflicts(e.writer, true, me, true))
        report_pair(fr, slot, flat, kWriteWrite, e.writer, e.wspan, me, span);
    else if (e.r_epoch == rs.epoch) {
        if (conflicts(e.reader0, false, me, true))
            report_pair(fr, slot, flat, kReadWrite, e.reader0, e.rspan0, me, span);
        else if (e.two_readers && conflicts(e.reader1, false, me, true))
            report_pair(fr, slot, flat, kReadWrite, e.reader1, e.rspan1, me, span);
    }
    e.w_epoch = rs.epoch;
    e.writer = me;
    e.wspan = span;
}

void race_async_write(Frame& fr, int slot, int64_t flat, int mbar_slot, int64_t mbar_index, int64_t phase, const Span* span) {
    RaceState& rs = *fr.races;
    auto& p = rs.pending[static_cast<size_t>(slot)];
    if (p.empty()) return;  // not a buffer the checker follows
    PendingAsync& e = p[static_cast<size_t>(flat)];
    if (!e.copy_span) ++rs.pending_count[static_cast<size_t>(slot)];
    e = {mbar_slot, mbar_index, phase, span};
}

void race_async_waited(Frame& fr, int mbar_slot, int64_t mbar_index, int64_t completed_phase) {
    RaceState& rs = *fr.races;
    for (size_t s = 0; s < rs.pending.size(); ++s) {
        if (rs.pending_count[s] == 0) continue;
        for (auto& e : rs.pending[s])
            if (e.copy_span && e.mbar_slot == mbar_slot && e.mbar_index == mbar_index && e.phase <= completed_phase) {
                e = PendingAsync{};
                --rs.pending_count[s];
            }
    }
}

void race_phase_incomplete(Frame& fr, const ir::BufferNode& buf, int64_t index, int64_t arrived, int64_t count, const Span& last_arrive) {
    RaceState& rs = *fr.races;
    RaceFinding f;
    f.kind = DiagKind::BarrierPhaseIncomplete;
    f.args = {buf.name + "[" + std::to_string(index) + "]", block_text(fr), std::to_string(arrived), std::to_string(count)};
    f.span = last_arrive;
    f.block = rs.linear_block;
    rs.add(std::move(f), kPhase, &last_arrive, nullptr, buf.name + "[" + std::to_string(index) + "]");
}

std::vector<Diagnostic> race_diagnostics(std::vector<RaceState>& states, const std::string& file) {
    // The same pair of lines found by several workers: keep the earliest block's, add counts.
    std::map<std::tuple<int, uint32_t, uint32_t, uint32_t, uint32_t, std::string>, RaceFinding> merged;
    for (auto& st : states) {
        for (auto& f : st.findings) {
            auto key = std::make_tuple(static_cast<int>(f.kind), f.span.begin.line, f.span.begin.col, f.first_span.begin.line, f.first_span.begin.col,
                                       f.args.size() > 1 ? f.args[1] + f.args[0] : std::string());
            auto it = merged.find(key);
            if (it == merged.end()) {
                merged.emplace(key, f);
            } else {
                const int64_t total = it->second.count + f.count;
                if (f.block < it->second.block) it->second = f;
                it->second.count = total;
            }
        }
    }
    std::vector<Diagnostic> out;
    for (auto& [key, f] : merged) {
        Diagnostic d;
        d.kind = f.kind;
        d.severity = diag_info(f.kind).severity;
        d.message = format_diag(f.kind, f.args);
        if (f.count > 1) d.message += " (" + std::to_string(f.count) + " elements or blocks with these lines in all)";
        d.file = file;
        d.span = f.span;
        if (f.first_span.valid() && !f.first_note.empty()) {
            Diagnostic n;
            n.kind = f.kind;
            n.severity = Severity::Note;
            n.message = f.first_note;
            n.file = file;
            n.span = f.first_span;
            d.notes.push_back(std::move(n));
        }
        out.push_back(std::move(d));
    }
    std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.span.begin.line, a.span.begin.col) < std::tie(b.span.begin.line, b.span.begin.col);
    });
    return out;
}

}  // namespace tp::interp
