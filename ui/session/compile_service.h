// Compiles on one worker thread while the user types. schedule() debounces (default 300 ms);
// a newer request replaces a queued one, and results of requests that were superseded while
// running are dropped (generation counter), so the views only ever show the newest text.
// warm_up() runs a throw-away job on the same thread first, so the process's one-off compiler
// start-up is paid at launch rather than by the user's first compile.
#pragma once

#include <QObject>
#include <QThread>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>

#include "tileplay/compiler.h"

namespace tpui {

using CompileResultPtr = std::shared_ptr<const tp::CompileResult>;

class CompileService : public QObject {
    Q_OBJECT
public:
    using CompileFn = std::function<tp::CompileResult(const tp::CompileRequest&)>;

    // `fn` defaults to tp::compile; tests pass a slow or counting one.
    explicit CompileService(CompileFn fn = {}, QObject* parent = nullptr);
    ~CompileService() override;

    void set_delay_ms(int ms) { debounce_.setInterval(ms); }
    int delay_ms() const { return debounce_.interval(); }

    // Compile after the debounce delay; each call restarts the delay.
    void schedule(const tp::CompileRequest& req);
    // Compile as soon as the worker thread is free (replacing any queued request).
    void compile_now(const tp::CompileRequest& req);

    // Runs `job` (tp::warm_up) on the compile thread as soon as it is free; requests made
    // meanwhile queue behind it as behind any compile. Nothing is shown of it: warmed_up says
    // when it is done and how long it took.
    void warm_up(std::function<void()> job);

    quint64 latest_generation() const { return generation_; }
    bool busy() const { return running_; }
    int compiles_run() const { return compiles_run_; }
    int warm_ups_run() const { return warm_ups_run_; }

Q_SIGNALS:
    void started(quint64 generation);
    void finished(tpui::CompileResultPtr result, quint64 generation);
    void dropped(quint64 generation);  // a stale result was discarded
    void warmed_up(double ms);

private:
    void start_next();
    void on_done(CompileResultPtr r, quint64 generation);
    void on_warmed(double ms);

    CompileFn fn_;
    QThread thread_;
    QObject* runner_ = nullptr;  // lives on thread_; jobs are posted to it
    QTimer debounce_;
    std::optional<tp::CompileRequest> scheduled_;
    std::optional<std::pair<tp::CompileRequest, quint64>> queued_;
    quint64 generation_ = 0;
    bool running_ = false;
    int compiles_run_ = 0;
    int warm_ups_run_ = 0;
};

}  // namespace tpui

Q_DECLARE_METATYPE(tpui::CompileResultPtr)
