// CpuRunner: compile -> allocate random inputs -> interpret every block.
#include "session/cpu_runner.h"

#include "tileplay/interp.h"

namespace tpui {

CpuRunner::~CpuRunner() {
    if (thread_) thread_->wait();
}

RunResult CpuRunner::run(const tp::CompileRequest& in, quint64 seed) {
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
    opts.print_sink = [](const std::string&) {};
    tp::InterpReport rep = tp::run_on_cpu(*c.func, args, opts);
    r.ok = rep.ok;
    r.correct = rep.ok;
    if (!rep.ok)
        r.error = !rep.diagnostics.empty() ? QString::fromStdString(rep.diagnostics.front().message)
                                           : QString::fromStdString(rep.error);
    else
        r.note = QStringLiteral("interpreted %1 blocks in %2 ms on %3 threads").arg(rep.blocks_run).arg(rep.ms, 0, 'f', 1).arg(rep.threads_used);
    return r;
}

void CpuRunner::start(tp::CompileRequest req, quint64 seed) {
    if (thread_) return;
    QPointer<CpuRunner> guard(this);
    thread_ = QThread::create([this, guard, req = std::move(req), seed] {
        RunResult r = run(req, seed);
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
