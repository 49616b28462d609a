// The playground's Tune: tp::run_tune, what `tilec tune` runs (the file's search space, the
// static filter, compiles on every core, worker processes timing configs under one GPU lock,
// each config checked against the interpreter, the on-disk cache), on a background thread.
// Progress and the ranked results come back on the GUI thread; the results as RunResults for
// the sweep table and the charts. The serial Sweep (RunService) stays for timing every config
// against the baselines one by one.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "models/run_result.h"
#include "tileplay/tune.h"

namespace tpui {

class TuneService : public QObject {
    Q_OBJECT
public:
    explicit TuneService(QObject* parent = nullptr);
    ~TuneService() override;  // cancels a running tune and waits for it

    // The worker the tune's processes run (RunService's command, so tests can fake it).
    void set_command(const QString& program, const QStringList& args);
    void start(tp::TuneOptions opts);
    void cancel();
    bool busy() const { return busy_; }

    // A report's results as sweep rows, in its ranked order (the best first).
    static std::vector<RunResult> rows(const tp::TuneReport& r);
    // The last finished tune's rows and best config (set when finished() fires).
    const std::vector<RunResult>& last_rows() const { return rows_; }
    const tp::TuneConfig& last_best() const { return best_; }
    // The best config timed beside the header's peers (TuneReport::peers), when it was.
    const std::optional<RunResult>& last_peers() const { return peers_; }

Q_SIGNALS:
    void progress(int done, int total, const QString& message);
    // ok: a config was timed and passed its check (last_best() is it).
    void finished(bool ok, const QString& message);

private:
    void done(const tp::TuneReport& r);

    std::thread thread_;
    std::atomic<bool> cancel_{false};
    bool busy_ = false;
    std::vector<std::string> command_;
    std::vector<RunResult> rows_;
    tp::TuneConfig best_;
    std::optional<RunResult> peers_;
};

}  // namespace tpui
