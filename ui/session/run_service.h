// Drives `tilec worker` (docs/worker-protocol.md: one JSON request per line on stdin, replies
// and progress events on stdout) through QProcess for Run, Benchmark, Sweep and Tune. Each
// configuration is a `load` then a `run` or `bench`; results arrive one by one so charts update
// live, each with what the kernel printed (`printed`, also on a failed reply: a trapped
// T.device_assert's message). Each fresh worker is first asked `hello` so results name the
// GPU they ran on. Cancel kills the worker; a worker that dies (a fatal CUDA error reply, a
// crash, a hang caught by the watchdog) is reported, the configuration is marked failed, and a
// fresh worker carries on. A Run on the CPU takes the same path: the worker interprets the
// kernel, reports the blocks done as it goes, and refuses a run over the memory budget before
// allocating. A Benchmark times the peers beside the kernel; a Sweep times the configurations
// alone, then its fastest correct one beside the peers (the `peers` signal).
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>
#include <optional>
#include <utility>
#include <vector>

#include "models/run_result.h"

namespace tpui {

using Defines = std::vector<std::pair<std::string, std::string>>;

struct RunJob {
    enum class Kind { Run, Bench, Sweep, Tune };
    Kind kind = Kind::Run;
    QString path, source, kernel, target = "auto";
    Defines defines;           // from the parameters panel
    Defines fallback_defines;  // the sample header's args
    std::vector<Defines> configs = {{}};  // extra defines per configuration (sweeps)
    QString flops_formula, bytes_formula;  // sample header formulas, evaluated per config
    QStringList baselines;
    int warmup = 10, iters = 50;
    int check_blocks = 0;  // thread blocks the interpreter checks per config; 0: the worker's 64
    quint64 seed = 0;
    // Run on the CPU interpreter in the worker (Kind::Run only): no GPU is opened, the run is
    // refused before allocating when its tensors need more than `memory_budget` bytes (0: the
    // worker's default), and `budget_note` is added to that refusal (why a size is large).
    bool cpu = false;
    qint64 memory_budget = 0;
    QString memory_budget_from;  // where the budget was set, for the refusal
    QString budget_note;
    // CPU runs: the interpreter's race checker watches shared memory, async copies and
    // mbarriers (docs/race_checker.md); its findings come back in RunResult::races.
    bool check_races = false;
    // Where it runs: empty for this machine's worker, else a remote worker's spec
    // (ssh://[user@]HOST[:PORT][/path/to/tilec], slurm:PARTITION), started with the handshake.
    QString worker;
    int local_gpu = -1;    // with no `worker`: this machine's GPU N alone (CUDA_VISIBLE_DEVICES), -1: the default
    Defines pass_configs;  // --pass-config KEY=VALUE for the load (tp.timeline=true records a timeline)
};

class RunService : public QObject {
    Q_OBJECT
public:
    explicit RunService(QObject* parent = nullptr);
    ~RunService() override;

    // The local worker command; default: the tilec next to this executable (or $TILEC),
    // "worker". An idle worker of another command is stopped, so the next job starts the new one.
    // A job with RunJob::worker set runs that remote worker's command instead.
    void set_command(const QString& program, const QStringList& args);
    // Where the current (or last) job runs: "local" or the remote worker ("ssh://box").
    QString where() const { return where_; }
    // The host the current worker runs on, from its `hello`; empty until it answered.
    QString host() const { return host_; }
    void set_watchdog_ms(int ms) { watchdog_ms_ = ms; }

    void start(const RunJob& job);
    void cancel();
    bool busy() const { return active_; }
    int workers_started() const { return workers_started_; }
    // The running worker's process id; 0 when none runs.
    qint64 worker_pid() const { return proc_ ? proc_->processId() : 0; }
    // The GPU of the current worker from its `hello` reply; empty until it answered.
    QString device_name() const { return device_name_; }

    static const char* kind_name(RunJob::Kind k);
    // "CPU run" for a run on the interpreter, else kind_name(): what the Results panel says.
    QString job_name() const;
    static QString default_tilec();

Q_SIGNALS:
    void job_started(int total_configs);
    void progress(int done, int total, const QString& message);
    void result(const tpui::RunResult& r);
    void job_finished(bool ok, const QString& message);
    void worker_died(const QString& message);
    // A worker answered `hello`: where it runs (as RunJob::worker names it, or "local"), its
    // host and its GPU (empty when it has none).
    void worker_ready(const QString& where, const QString& host, const QString& device);
    // A sweep's fastest correct configuration timed once more beside the peers, alternating in
    // one call: the ratio to the best peer the charts show comes from this, never from two runs.
    void peers(const tpui::RunResult& r);

private:
    bool use_worker(const QString& spec, QString* error);
    void ensure_worker();
    void send(QJsonObject req);
    void on_stdout();
    void on_line(const QByteArray& line);
    void on_reply(const QJsonObject& msg);
    void on_event(const QJsonObject& msg);
    void on_failed(const QJsonObject& msg);
    void send_run();
    void on_worker_gone();
    void on_hello(const QJsonObject& msg);
    void abandon_worker(const QString& why);
    void refuse_worker(const QString& why);
    void next_config();
    bool peers_only(const RunResult& r);
    void report_failure(const RunResult& r);
    void finish(bool ok, const QString& message);
    RunResult base_result() const;

    QProcess* proc_ = nullptr;
    QString program_;  // the command the next worker starts with
    QStringList args_;
    QString local_program_;  // this machine's worker command (set_command)
    QStringList local_args_;
    QString where_ = "local";
    bool handshake_ = false;  // a remote worker: its hello must match this build (tp::hello_mismatch)
    QString host_;
    QByteArray buffer_;
    QByteArray stderr_tail_;
    QTimer watchdog_;
    int watchdog_ms_ = 30000;
    int workers_started_ = 0;
    qint64 next_id_ = 1;
    qint64 waiting_id_ = 0;
    QString waiting_op_;
    qint64 hello_id_ = 0;
    QString device_name_;

    RunJob job_;
    bool active_ = false;
    bool killing_ = false;  // we killed the worker on purpose (cancel)
    size_t index_ = 0;      // current config
    int failures_ = 0;
    QString last_error_;  // why the last failed configuration did not run
    bool peers_pass_ = false;  // timing the best config beside the peers (after the sweep)
    std::optional<size_t> best_index_;
    double best_ms_ = 0;
    QJsonObject kernel_info_;
};

}  // namespace tpui
