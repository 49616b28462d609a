// RunService: a small state machine over the worker's replies (load -> run/bench -> next); the
// worker itself (its command, handshake and death) is in run_service_worker.cpp.
#include "session/run_service.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <map>

#include "tileplay/sample_header.h"

namespace tpui {

namespace {

// `tilec worker` takes defines as an object {NAME: VALUE} and rejects anything else (a later
// duplicate name wins, as it would on the command line).
QJsonObject pairs_json(const Defines& d) {
    QJsonObject o;
    for (const auto& [k, v] : d) o[QString::fromStdString(k)] = QString::fromStdString(v);
    return o;
}

// Integer bindings for the FLOP/byte formulas: fallback first, then overrides.
std::map<std::string, double> bindings(const RunJob& j, const Defines& config) {
    std::map<std::string, double> vars;
    for (const Defines* d : {&j.fallback_defines, &j.defines, &config})
        for (const auto& [k, v] : *d) {
            bool ok = false;
            double x = QString::fromStdString(v).toDouble(&ok);
            if (ok) vars[k] = x;
        }
    return vars;
}

}  // namespace

const char* RunService::kind_name(RunJob::Kind k) {
    switch (k) {
        case RunJob::Kind::Run: return "Run";
        case RunJob::Kind::Bench: return "Benchmark";
        case RunJob::Kind::Sweep: return "Sweep";
        case RunJob::Kind::Tune: return "Tune";
    }
    return "";
}

QString RunService::job_name() const {
    if (job_.cpu) return job_.kind == RunJob::Kind::Sweep ? tr("CPU sweep") : tr("CPU run");
    return tr(kind_name(job_.kind));
}

QString RunService::default_tilec() {
    QString env = qEnvironmentVariable("TILEC");
    if (!env.isEmpty()) return env;
    QString dir = QCoreApplication::applicationDirPath();
    for (const char* rel : {"/tilec", "/../cli/tilec", "/../app/cli/tilec", "/../../app/cli/tilec"})
        if (QFileInfo::exists(dir + rel)) return QFileInfo(dir + rel).canonicalFilePath();
    return QStringLiteral("tilec");
}

RunService::RunService(QObject* parent) : QObject(parent) {
    program_ = local_program_ = default_tilec();
    args_ = local_args_ = {"worker"};
    watchdog_.setSingleShot(true);
    connect(&watchdog_, &QTimer::timeout, this, [this] {
        if (!proc_) return;
        stderr_tail_ += QStringLiteral("\nno reply for %1 s: the watchdog killed the worker").arg(watchdog_ms_ / 1000.0).toUtf8();
        proc_->kill();
    });
}

RunService::~RunService() {
    if (proc_) {
        proc_->disconnect(this);
        proc_->kill();
        proc_->waitForFinished(2000);
    }
}

void RunService::send(QJsonObject req) {
    ensure_worker();
    waiting_id_ = next_id_++;
    waiting_op_ = req.value("op").toString();
    req["id"] = waiting_id_;
    if (proc_) proc_->write(QJsonDocument(req).toJson(QJsonDocument::Compact) + "\n");
    watchdog_.start(waiting_op_ == "load" ? std::max(watchdog_ms_, 300000) : watchdog_ms_);
}

void RunService::start(const RunJob& job) {
    if (active_) cancel();
    job_ = job;
    if (job_.configs.empty()) job_.configs = {{}};
    QString error;
    if (!use_worker(job.worker, &error)) {
        active_ = true;
        index_ = 0;
        Q_EMIT job_started(1);
        RunResult r = base_result();
        r.ok = r.correct = false;
        r.error = error;
        Q_EMIT result(r);
        finish(false, error);
        return;
    }
    if (job_.configs.empty()) job_.configs = {{}};
    active_ = true;
    index_ = 0;
    failures_ = 0;
    last_error_.clear();
    peers_pass_ = false;
    best_index_.reset();
    Q_EMIT job_started(int(job_.configs.size()));
    next_config();
}

void RunService::cancel() {
    if (!active_) return;
    killing_ = true;
    watchdog_.stop();
    if (proc_) {
        proc_->kill();
        proc_->waitForFinished(2000);
    }
    killing_ = false;
    finish(false, tr("%1 cancelled").arg(job_name()));
}

void RunService::next_config() {
    if (!active_) return;
    int total = int(job_.configs.size());
    if (index_ >= job_.configs.size() && !peers_pass_ && job_.kind == RunJob::Kind::Sweep && best_index_ &&
        !job_.baselines.isEmpty()) {
        peers_pass_ = true;
        index_ = *best_index_;
        Q_EMIT progress(total, total, tr("timing the best configuration beside its peers"));
    } else if (peers_pass_ || index_ >= job_.configs.size()) {
        index_ = job_.configs.size();
        QString where = device_name_.isEmpty() || job_.cpu ? QString() : tr(" on %1").arg(device_name_);
        if (handshake_) where = tr(" on %1").arg(device_name_.isEmpty() || job_.cpu ? where_ : tr("%1 at %2").arg(device_name_, where_));
        QString msg = failures_ ? tr("%1 finished%2: %3 of %4 configurations failed").arg(job_name(), where).arg(failures_).arg(total)
                                : tr("%1 finished%2").arg(job_name(), where);
        // One configuration that did not run: its reason is the message (a CPU run refused
        // over the memory budget says so where the user looks).
        if (total == 1 && failures_ == 1 && !last_error_.isEmpty()) msg = tr("%1 failed%2: %3").arg(job_name(), where, last_error_);
        finish(failures_ < total, msg);
        return;
    }
    Defines defs = job_.defines;
    for (const auto& kv : job_.configs[index_]) {
        bool replaced = false;
        for (auto& d : defs)
            if (d.first == kv.first) d.second = kv.second, replaced = true;
        if (!replaced) defs.push_back(kv);
    }
    QJsonObject load{{"op", "load"}, {"path", job_.path}, {"kernel", job_.kernel}, {"target", job_.target},
                     {"defines", pairs_json(defs)}, {"fallback_defines", pairs_json(job_.fallback_defines)}};
    if (!job_.pass_configs.empty()) load["pass_configs"] = pairs_json(job_.pass_configs);
    if (!job_.source.isEmpty()) load["source"] = job_.source;
    if (job_.cpu) load["device"] = "cpu";
    kernel_info_ = {};  // a failed load must not describe the previous configuration's kernel
    Q_EMIT progress(int(index_), total, job_.cpu && total == 1 ? tr("CPU run: compiling to Tile IR")
                                                               : tr("compiling configuration %1 of %2").arg(index_ + 1).arg(total));
    send(load);
}

RunResult RunService::base_result() const {
    RunResult r;
    r.cpu = job_.cpu;
    if (!job_.cpu) r.device = device_name_;
    if (handshake_) r.worker = where_;
    const Defines& cfg = job_.configs[index_];
    QStringList parts;
    for (const auto& [k, v] : cfg) {
        r.params.emplace_back(QString::fromStdString(k), QString::fromStdString(v));
        parts << QString::fromStdString(k + "=" + v);
    }
    r.config = parts.isEmpty() ? job_.kernel : parts.join(' ');
    if (r.config.isEmpty()) r.config = kernel_info_.value("name").toString(tr("kernel"));
    // A plain Run or Benchmark has no sweep config: name the sizes the kernel was built with
    // (the load reply's), as a CPU run does, so Output can say what printed.
    if (cfg.empty()) {
        const QJsonObject bound = kernel_info_.value("bound_params").toObject();
        for (auto it = bound.begin(); it != bound.end(); ++it) r.params.emplace_back(it.key(), it.value().toVariant().toString());
    }
    return r;
}

void RunService::on_stdout() {
    buffer_ += proc_->readAllStandardOutput();
    int nl;
    while ((nl = buffer_.indexOf('\n')) >= 0) {
        QByteArray line = buffer_.left(nl).trimmed();
        buffer_.remove(0, nl + 1);
        if (!line.isEmpty()) on_line(line);
    }
}

void RunService::on_line(const QByteArray& line) {
    QJsonParseError err;
    QJsonDocument doc = QJsonDocument::fromJson(line, &err);
    if (!doc.isObject()) return;  // stray output is not ours to interpret
    QJsonObject msg = doc.object();
    if (active_) watchdog_.start();  // any sign of life resets the watchdog
    if (msg.contains("event")) return on_event(msg);
    if (hello_id_ && msg.value("id").toInteger() == hello_id_) return on_hello(msg);
    if (msg.value("id").toInteger() != waiting_id_) return;  // late reply to an abandoned request
    on_reply(msg);
}

// Progress while the worker computes: the stage it is in, and for a CPU run the blocks the
// interpreter has done, which drive the bar of a single run.
void RunService::on_event(const QJsonObject& msg) {
    int done = int(index_), total = int(job_.configs.size());
    const QString stage = msg.value("stage").toString();
    QString text = msg.value("message").toString();
    const qint64 blocks = msg.value("total").toInteger(), ran = msg.value("done").toInteger();
    if (stage == "interpret" && blocks > 0) {
        if (total == 1) done = int(ran * 1000 / blocks), total = 1000;
        if (text.isEmpty()) text = tr("%1: %2 of %3 blocks interpreted").arg(job_name()).arg(ran).arg(blocks);
    }
    if (text.isEmpty() && !stage.isEmpty()) {
        static const QMap<QString, const char*> names = {{"compile", "compiling"}, {"inputs", "preparing the inputs"},
                                                          {"check", "checking against the interpreter"},
                                                          {"interpret", "interpreting on the CPU"},
                                                          {"torch", "timing the PyTorch peers"}, {"bench", "timing"}};
        text = names.contains(stage) ? tr(names.value(stage)) : stage;
        if (msg.contains("total")) text += tr(": %1 of %2").arg(ran).arg(msg.value("total").toInteger());
        // A CPU run's check is against the sample's C++ reference, not the interpreter.
        if (job_.cpu) text = job_name() + ": " + (stage == "check" ? tr("checking against the C++ reference") : text);
    }
    Q_EMIT progress(done, total, text.isEmpty() ? msg.value("event").toString() : text);
}

void RunService::on_failed(const QJsonObject& msg) {
    RunResult r = base_result();
    r.ok = false;
    r.correct = false;
    r.error = msg.value("error").toString(tr("the worker reported an error"));
    // Over the CPU memory budget: the caller may know why a size is that large.
    if (msg.value("kind").toString() == "over_budget" && !job_.budget_note.isEmpty()) r.error += "; " + job_.budget_note;
    if (msg.value("diagnostics").isString()) r.note = msg.value("diagnostics").toString().trimmed();
    // A failed T.device_assert prints its message before the kernel traps: the fatal reply
    // carries it, and it says more than the CUDA error does.
    r.printed = cap_printed(msg.value("printed").toString());
    // A run the race checker stopped (a wait that cannot complete) still reports what it found.
    const RunResult parsed = run_result_from_json(msg);
    r.races_checked = parsed.races_checked;
    r.races = parsed.races;
    r.races_scope = parsed.races_scope;
    if (msg.value("fatal").toBool()) abandon_worker(tr("the kernel failed: %1").arg(r.error));
    if (peers_only(r)) return;
    report_failure(r);
    ++index_;
    next_config();
}

// In the peers pass the configuration itself was timed already: a reply is only the peers'.
bool RunService::peers_only(const RunResult& r) {
    if (!peers_pass_) return false;
    Q_EMIT peers(r);
    next_config();
    return true;
}

void RunService::report_failure(const RunResult& r) {
    ++failures_;
    last_error_ = r.error;
    Q_EMIT result(r);
}

// After a successful `load`: the `run` (CPU or GPU) or the `bench` of this configuration.
void RunService::send_run() {
    const Defines& cfg = job_.configs[index_];
    auto vars = bindings(job_, cfg);
    const QJsonObject bound = kernel_info_.value("bound_params").toObject();
    std::map<std::string, std::string> bound_text;
    for (auto it = bound.begin(); it != bound.end(); ++it) bound_text[it.key().toStdString()] = it.value().toVariant().toString().toStdString();
    for (const auto& [name, value] : tp::formula_values(bound_text)) vars.emplace(name, value);
    bool bench = job_.kind != RunJob::Kind::Run && !job_.cpu;
    QJsonObject req{{"op", bench ? "bench" : "run"}, {"seed", double(job_.seed)}, {"check", true}};
    if (job_.check_blocks > 0) req["check_blocks"] = job_.check_blocks;
    if (job_.cpu && job_.check_races) req["check_races"] = true;
    if (job_.cpu && job_.memory_budget > 0) {
        req["memory_budget"] = job_.memory_budget;
        if (!job_.memory_budget_from.isEmpty()) req["memory_budget_from"] = job_.memory_budget_from;
    }
    if (bench) {
        req["warmup"] = job_.warmup;
        req["iters"] = job_.iters;
        req["flush_l2"] = true;
        auto f = tp::eval_formula(job_.flops_formula.toStdString(), vars);
        auto b = tp::eval_formula(job_.bytes_formula.toStdString(), vars);
        req["flops"] = f ? *f : 0.0;
        req["bytes"] = b ? *b : 0.0;
        // A Benchmark times its peers beside the kernel; a sweep only beside its best config.
        bool with_peers = job_.kind == RunJob::Kind::Bench || peers_pass_;
        req["baselines"] = with_peers ? QJsonArray::fromStringList(job_.baselines) : QJsonArray();
    }
    const int total = int(job_.configs.size());
    if (job_.cpu && total == 1) Q_EMIT progress(0, total, tr("CPU run: interpreting"));
    else if (job_.cpu) Q_EMIT progress(int(index_), total, tr("interpreting configuration %1 of %2").arg(index_ + 1).arg(total));
    else Q_EMIT progress(int(index_), total, tr("%1 configuration %2 of %3").arg(bench ? tr("timing") : tr("running")).arg(index_ + 1).arg(total));
    send(req);
}

void RunService::on_reply(const QJsonObject& msg) {
    watchdog_.stop();
    if (!active_) return;
    bool ok = msg.value("ok").toBool();
    QString op = waiting_op_;
    waiting_id_ = 0;
    if (!ok) return on_failed(msg);
    if (op == "load") {
        kernel_info_ = msg.value("kernel").toObject();
        send_run();
        return;
    }
    RunResult r = run_result_from_json(msg);
    r.cpu = r.cpu || job_.cpu;
    if (r.device.isEmpty() && !job_.cpu) r.device = device_name_;  // a `run` reply does not name the GPU
    RunResult base = base_result();
    r.config = base.config;
    r.params = base.params;
    r.worker = base.worker;
    if (peers_only(r)) return;
    if (!r.correct) ++failures_;
    if (r.ok && r.correct && r.has_timing() && (!best_index_ || r.median_ms < best_ms_)) {
        best_index_ = index_;
        best_ms_ = r.median_ms;
    }
    Q_EMIT result(r);
    ++index_;
    Q_EMIT progress(int(index_), int(job_.configs.size()), tr("%1 of %2 done").arg(index_).arg(job_.configs.size()));
    next_config();
}

void RunService::finish(bool ok, const QString& message) {
    active_ = false;
    waiting_id_ = 0;
    Q_EMIT job_finished(ok, message);
}

}  // namespace tpui
