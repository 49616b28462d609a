// TuneService (see tune_service.h). The tune thread never touches a QObject: it posts each
// event as a functor queued to this object, which drops it if the service is gone.
#include "session/tune_service.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <QMetaObject>
#include <algorithm>

namespace tpui {

TuneService::TuneService(QObject* parent) : QObject(parent) {}

TuneService::~TuneService() {
    cancel_ = true;
    if (thread_.joinable()) thread_.join();
}

void TuneService::set_command(const QString& program, const QStringList& args) {
    command_ = {program.toStdString()};
    for (const auto& a : args) command_.push_back(a.toStdString());
}

void TuneService::cancel() { cancel_ = true; }

void TuneService::start(tp::TuneOptions opts) {
    if (busy_) return;
    if (thread_.joinable()) thread_.join();  // the previous tune has already reported
    busy_ = true;
    cancel_ = false;
    if (opts.worker_command.empty()) opts.worker_command = command_;
    thread_ = std::thread([this, opts] {
        auto on_event = [this](const tp::TuneEvent& e) {
            QString what = QString::fromStdString(e.phase);
            if (!e.config.empty()) what += QStringLiteral(" · ") + QString::fromStdString(e.config);
            QMetaObject::invokeMethod(this, [this, e, what] { Q_EMIT progress(e.done, e.total, tr("tune: %1").arg(what)); },
                                      Qt::QueuedConnection);
        };
        tp::TuneReport r = tp::run_tune(opts, on_event, &cancel_);
        QMetaObject::invokeMethod(this, [this, r] { done(r); }, Qt::QueuedConnection);
    });
}

void TuneService::done(const tp::TuneReport& r) {
    busy_ = false;
    rows_ = rows(r);
    best_ = r.best >= 0 ? r.results[r.best].config : tp::TuneConfig{};
    peers_.reset();
    if (r.peers.is_object()) {
        QJsonObject p = QJsonDocument::fromJson(QByteArray::fromStdString(r.peers.dump())).object();
        RunResult pr = run_result_from_json(p);
        if (p.contains("error")) pr.ok = false;
        peers_ = pr;
    }
    QString msg;
    if (!r.ok && !r.from_cache) {
        msg = tr("Tune failed: %1").arg(QString::fromStdString(r.error.empty() ? r.diagnostics_text : r.error));
    } else if (r.best >= 0) {
        const tp::TuneResult& b = r.results[r.best];
        msg = tr("Tune: best of %1 configs %2 (%3 ms) on %4%5")
                  .arg(r.results.size())
                  .arg(QString::fromStdString(tp::config_text(b.config)))
                  .arg(b.median_ms, 0, 'f', 4)
                  .arg(QString::fromStdString(r.device))
                  .arg(r.from_cache ? tr(", from the cache") : tr(", %1 s").arg(r.seconds, 0, 'f', 1));
    } else {
        msg = r.cancelled ? tr("Tune cancelled") : tr("Tune: no config passed its check");
        for (const auto& n : r.notes) msg += QStringLiteral("; ") + QString::fromStdString(n);
    }
    Q_EMIT finished(r.best >= 0, msg);
}

std::vector<RunResult> TuneService::rows(const tp::TuneReport& rep) {
    std::vector<RunResult> out;
    for (const auto& t : rep.results) {
        RunResult r;
        r.config = QString::fromStdString(tp::config_text(t.config));
        for (const auto& [k, v] : t.config) r.params.emplace_back(QString::fromStdString(k), QString::fromStdString(v));
        r.cpu = !rep.gpu;
        if (rep.gpu) r.device = QString::fromStdString(rep.device);
        const bool ran = t.status == tp::TuneStatus::Timed || t.status == tp::TuneStatus::Passed ||
                         t.status == tp::TuneStatus::Wrong;
        r.ok = ran;
        r.correct = t.status == tp::TuneStatus::Timed || t.status == tp::TuneStatus::Passed;
        if (!r.correct) r.error = QString::fromStdString(std::string(tp::tune_status_name(t.status)) + (t.reason.empty() ? "" : ": " + t.reason));
        if (t.status == tp::TuneStatus::Timed) {
            r.median_ms = t.median_ms;
            r.min_ms = t.min_ms;
            r.spread_pct = t.spread_pct;
            r.tflops = t.tflops > 0 ? t.tflops : -1;
            r.gbps = t.gbps > 0 ? t.gbps : -1;
        }
        r.rel_error = t.rel_fro;
        if (t.registers >= 0)
            r.note = QObject::tr("%1 registers, %2 KB shared%3")
                         .arg(t.registers)
                         .arg((std::max<int64_t>(t.shared_bytes, 0) + 1023) / 1024)
                         .arg(t.spill_bytes > 0 ? QObject::tr(", %1 B spilled").arg(t.spill_bytes) : QString());
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace tpui
