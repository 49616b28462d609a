// One measured (or CPU-checked) run of a kernel configuration, as reported by the worker:
// latency, throughput, error against the reference, each baseline's time and what the kernel
// printed (T.print, a failed T.device_assert). Parsed from the worker's JSON result event;
// shared by the results and sweep models, the charts and the Output panel.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <utility>
#include <vector>

namespace tpui {

struct BaselineTime {
    QString name;           // "cuBLAS", "PyTorch"
    double median_ms = -1;  // < 0 when unavailable
    QString note;           // "unavailable: <why>"
    // Its time over ours, the median of per-round ratios (timed alternating), and the range.
    double ratio = -1, ratio_min = -1, ratio_max = -1;
    int agrees = -1;         // its result against ours: 1 agrees, 0 differs, -1 not compared
    double vs_rel_fro = -1;  // relative error between the two results
    bool best = false;       // the fastest peer that ran
};

// One finding of the interpreter's race checker (a CPU run with check_races): the access it
// reports and the other thread's access, both as DSL lines, as `tilec run --check-races` prints.
struct RaceFinding {
    QString kind;     // "SharedMemoryRace", "AsyncReadBeforeWait", ...
    QString message;  // at line:col
    int line = 0, col = 0;
    QString other_message;  // the note at the other access
    int other_line = 0, other_col = 0;
};

struct RunResult {
    QString config;  // "block_M=128 block_N=128 ..." for sweeps, or the kernel name
    std::vector<std::pair<QString, QString>> params;
    bool cpu = false;  // CPU interpreter: correctness only, no GPU timings
    QString engine;    // a CPU run's engine as the worker names it: "jit", "interpreter", "jit+interpreter"
    QString device;    // the GPU's name as the worker reports it ("NVIDIA H200"); empty on CPU
    bool ok = true;    // ran (whether or not it was correct)
    bool correct = true;
    // The output was compared with a reference (a CPU run's C++ reference, a GPU run's
    // interpreter): `correct` then says how that went, else only that the kernel ran.
    bool checked = false;
    QString error;     // why it did not run / failed the check
    bool cancelled = false;  // the user stopped it (Cancel) before it finished
    QString note;      // extra facts (e.g. the interpreter's wall time)
    double min_ms = -1, median_ms = -1, spread_pct = -1;
    double wall_ms = -1;  // a plain Run: one launch's wall time (not a benchmark)
    double tflops = -1, gbps = -1;
    double flops = -1, bytes = -1;  // per launch, from the sample's formulas
    double rel_error = -1, max_abs_error = -1;
    qint64 nonfinite = 0;                        // inf or NaN outputs where the reference is finite (not in rel_error)
    int blocks_checked = -1, total_blocks = -1;  // how much of the grid the interpreter compared
    std::vector<BaselineTime> baselines;
    // The semantic check (our output against each peer's): 1 agrees, 0 differs, -1 not run.
    int semantics = -1;
    QString semantics_note;  // what it compared with, or why it did not run
    QString conditions;      // "SM 1755-1980 MHz, 512 W" while it was timed
    const BaselineTime* best_peer() const {
        for (const auto& b : baselines)
            if (b.best) return &b;
        return nullptr;
    }
    // The race checker ran (the run asked for it): its findings, and what it could follow.
    bool races_checked = false;
    std::vector<RaceFinding> races;
    QString races_scope;
    // What the kernel printed (device printf on the GPU, the interpreter's lines on the CPU),
    // at most kPrintedLimit bytes; the cut is said in a last line.
    QString printed;
    // A run with the pass config tp.timeline=true: the Chrome trace of its stamped pipeline
    // events (docs/pipeline.md) as JSON, or why there is none.
    QByteArray timeline;
    QString timeline_note;
    QString worker;  // where it ran when not on this machine: "ssh://box", "slurm:gpu"

    bool has_timing() const { return !cpu && median_ms > 0; }
    // FLOP per byte, or -1 when unknown.
    double arithmetic_intensity() const { return flops > 0 && bytes > 0 ? flops / bytes : -1; }
};

// A kernel printing in a loop can produce megabytes; the Output panel keeps what a reader can use.
constexpr qsizetype kPrintedLimit = 256 * 1024;

// `text` cut to kPrintedLimit UTF-8 bytes at a line end, with a note saying how much was left out
// (`dropped_bytes` more were already dropped before the text got here).
QString cap_printed(const QString& text, qsizetype dropped_bytes = 0);

// Reads a result object; missing fields stay at their "unknown" values.
RunResult run_result_from_json(const QJsonObject& o);
QJsonObject run_result_to_json(const RunResult& r);

}  // namespace tpui

Q_DECLARE_METATYPE(tpui::RunResult)
