// Runs a kernel on the CPU reference interpreter (tileplay/interp.h) on a background thread,
// at the sample header's CPU problem size, and checks the output against the C++ reference of
// the sample's named baseline. CPU runs carry no GPU timings: the result says so. The result
// carries the interpreter's T.print lines, the same text device printf gives on the GPU.
#pragma once

#include <QObject>
#include <QPointer>
#include <QThread>
#include <atomic>

#include "models/run_result.h"
#include "tileplay/compiler.h"

namespace tpui {

class CpuRunner : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~CpuRunner() override;
    // `req` is compiled up to Tile IR and interpreted; inputs are random (seeded).
    void start(tp::CompileRequest req, quint64 seed = 0);
    bool busy() const { return thread_ != nullptr; }
    // Stops the running interpretation at its next loop iteration or block (well within a
    // second); finished() then reports a cancelled result.
    void cancel() { cancel_ = true; }

    // Synchronous core of start(); exposed for tests. `cancel`: as InterpOptions::cancel.
    static RunResult run(const tp::CompileRequest& req, quint64 seed, const std::atomic<bool>* cancel = nullptr);

Q_SIGNALS:
    void finished(const tpui::RunResult& r);

private:
    QThread* thread_ = nullptr;
    std::atomic<bool> cancel_{false};
};

}  // namespace tpui
