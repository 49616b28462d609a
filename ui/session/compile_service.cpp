// CompileService: the main thread owns all state; the worker thread only runs fn_ and posts
// the result back. Posting targets `this`, and the destructor joins the thread first, so a
// result can never arrive at a destroyed service; the QPointer guard covers the window in
// which the service is being torn down while the event is still queued.
#include "session/compile_service.h"

#include <QElapsedTimer>
#include <QPointer>

namespace tpui {

CompileService::CompileService(CompileFn fn, QObject* parent) : QObject(parent), fn_(std::move(fn)) {
    qRegisterMetaType<CompileResultPtr>();
    if (!fn_) fn_ = [](const tp::CompileRequest& r) { return tp::compile(r); };
    runner_ = new QObject;
    runner_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, runner_, &QObject::deleteLater);
    thread_.setObjectName("compile");
    thread_.start();
    debounce_.setSingleShot(true);
    debounce_.setInterval(300);
    connect(&debounce_, &QTimer::timeout, this, [this] {
        if (scheduled_) {
            tp::CompileRequest r = std::move(*scheduled_);
            scheduled_.reset();
            compile_now(r);
        }
    });
}

CompileService::~CompileService() {
    thread_.quit();
    thread_.wait();
}

void CompileService::schedule(const tp::CompileRequest& req) {
    scheduled_ = req;
    debounce_.start();
}

void CompileService::compile_now(const tp::CompileRequest& req) {
    debounce_.stop();
    scheduled_.reset();
    queued_ = std::make_pair(req, ++generation_);
    if (!running_) start_next();
}

void CompileService::warm_up(std::function<void()> job) {
    if (running_) return;  // a compile already pays the start-up
    running_ = true;
    ++warm_ups_run_;
    QPointer<CompileService> guard(this);
    QMetaObject::invokeMethod(runner_, [this, guard, job = std::move(job)]() {
        QElapsedTimer t;
        t.start();
        try {
            job();
        } catch (const std::exception&) {
            // A warm-up that fails costs nothing: the next compile reports its own errors.
        }
        const double ms = static_cast<double>(t.nsecsElapsed()) / 1e6;
        QMetaObject::invokeMethod(this, [guard, ms]() {
            if (guard) guard->on_warmed(ms);
        }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void CompileService::on_warmed(double ms) {
    running_ = false;
    Q_EMIT warmed_up(ms);
    start_next();
}

void CompileService::start_next() {
    if (!queued_) return;
    auto [req, gen] = std::move(*queued_);
    queued_.reset();
    running_ = true;
    ++compiles_run_;
    Q_EMIT started(gen);
    QPointer<CompileService> guard(this);
    CompileFn fn = fn_;
    QMetaObject::invokeMethod(runner_, [this, guard, fn, req = std::move(req), gen = gen]() {
        std::shared_ptr<tp::CompileResult> r;
        try {
            r = std::make_shared<tp::CompileResult>(fn(req));
        } catch (const tp::InternalError& e) {
            r = std::make_shared<tp::CompileResult>();
            r->internal_error = e;
        } catch (const std::exception& e) {
            r = std::make_shared<tp::CompileResult>();
            r->internal_error = tp::InternalError(e.what(), __FILE__, __LINE__, "compile");
        }
        QMetaObject::invokeMethod(this, [guard, r, gen]() {
            if (guard) guard->on_done(r, gen);
        }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void CompileService::on_done(CompileResultPtr r, quint64 gen) {
    running_ = false;
    // Anything requested after this job started makes its result stale.
    if (gen == generation_) Q_EMIT finished(r, gen);
    else Q_EMIT dropped(gen);
    start_next();
}

}  // namespace tpui
