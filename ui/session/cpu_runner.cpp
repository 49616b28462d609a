// CpuRunner: compile -> allocate random inputs -> interpret every block, keeping what it printed.
#include "session/cpu_runner.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tileplay/interp.h"
#include "tileplay/sample_header.h"

namespace tpui {

CpuRunner::~CpuRunner() {
    cancel_ = true;  // a run still going stops at its next loop iteration
    if (thread_) thread_->wait();
}

RunResult CpuRunner::run(const tp::CompileRequest& in, quint64 seed, const std::atomic<bool>* cancel) {
    RunResult r;
    r.cpu = true;
    tp::CompileRequest req = in;
    req.stop_after = tp::Stage::Ir;
    tp::CompileResult c = tp::compile(req);
    r.config = QString::fromStdString(c.kernel.factory.empty() ? req.kernel : c.kernel.factory);
    for (const auto& [k, v] : c.kernel.bound_params) r.params.emplace_back(QString::fromStdString(k), QString::fromStdString(v));
    if (!c.ok || !c.func) {
        r.ok = r.correct = false;
        r.error = c.diagnostics.empty() ? QStringLiteral("the kernel did not compile")
                                        : QString::fromStdString(c.diagnostics.front().message);
        return r;
    }
    std::map<std::string, tp::HostTensor> args;
    std::string why;
    if (!tp::allocate_args(*c.func, seed, {}, args, &why)) {
        r.ok = r.correct = false;
        r.error = QString::fromStdString(why);
        return r;
    }
    tp::InterpOptions opts;
    opts.cancel = cancel;
    // T.print lines for the Output panel. Keep a little over the cap so cap_printed can cut at
    // a line end; the rest is only counted, so a kernel printing in a loop cannot eat memory.
    std::string printed;
    qsizetype dropped = 0;
    opts.print_sink = [&](const std::string& text) {
        size_t room = kPrintedLimit + 4096 > printed.size() ? kPrintedLimit + 4096 - printed.size() : 0;
        printed.append(text, 0, std::min(room, text.size()));
        dropped += qsizetype(text.size() - std::min(room, text.size()));
    };
    tp::InterpReport rep = tp::run_on_cpu(*c.func, args, opts);
    // Printed before a failure too: the lines leading up to a failed T.device_assert matter most.
    r.printed = cap_printed(QString::fromStdString(printed), dropped);
    r.ok = rep.ok;
    r.correct = rep.ok;
    r.cancelled = rep.cancelled;
    if (!rep.ok) {
        r.error = !rep.diagnostics.empty() ? QString::fromStdString(rep.diagnostics.front().message)
                                           : QString::fromStdString(rep.error);
        return r;
    }
    r.note = QStringLiteral("interpreted %1 blocks in %2 ms on %3 threads").arg(rep.blocks_run).arg(rep.ms, 0, 'f', 1).arg(rep.threads_used);
    // Check against the C++ reference of the sample's named baseline, as `tilec run --check` does.
    std::string source = req.source;
    if (source.empty() && !req.path.empty()) {
        std::ifstream in(req.path, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        source = ss.str();
    }
    tp::ReferenceResult ref = tp::cpu_reference(tp::parse_sample_header(source).baselines, *c.func, args);
    if (!ref.available) {
        r.note += QStringLiteral("; no reference check (%1)").arg(QString::fromStdString(ref.error));
        return r;
    }
    tp::CompareResult cmp = tp::compare_tensors(args.at(ref.output), ref.expected);
    r.rel_error = cmp.rel_fro;
    r.max_abs_error = cmp.max_abs;
    r.correct = cmp.pass;
    r.note += QStringLiteral("; checked `%1` against the %2 reference").arg(QString::fromStdString(ref.output), QString::fromStdString(ref.name));
    return r;
}

void CpuRunner::start(tp::CompileRequest req, quint64 seed) {
    if (thread_) return;
    QPointer<CpuRunner> guard(this);
    cancel_ = false;
    thread_ = QThread::create([this, guard, req = std::move(req), seed] {
        RunResult r = run(req, seed, &cancel_);
        QMetaObject::invokeMethod(this, [this, guard, r] {
            if (!guard) return;
            thread_->wait();
            thread_->deleteLater();
            thread_ = nullptr;
            Q_EMIT finished(r);
        }, Qt::QueuedConnection);
    });
    thread_->start();
}

}  // namespace tpui
