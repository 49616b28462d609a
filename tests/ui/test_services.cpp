// The compile service (debounce, newest request wins, stale results dropped) with a slow fake
// compiler, and the run service driving a fake worker that answers, dies and hangs.
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>
#include <atomic>
#include <thread>

#include "session/compile_service.h"
#include "session/cpu_runner.h"
#include "session/run_service.h"

using namespace tpui;

namespace {

// Each "compile" takes `ms` and returns the source it compiled in `cuda`.
CompileService::CompileFn slow_compiler(int ms, std::atomic<int>* calls) {
    return [ms, calls](const tp::CompileRequest& r) {
        ++*calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        tp::CompileResult res;
        res.ok = true;
        res.cuda = r.source;
        return res;
    };
}

tp::CompileRequest req(const std::string& text) {
    tp::CompileRequest r;
    r.source = text;
    return r;
}

RunJob sweep_job(std::vector<Defines> configs) {
    RunJob j;
    j.kind = RunJob::Kind::Sweep;
    j.path = "k.py";
    j.kernel = "k";
    j.configs = std::move(configs);
    j.fallback_defines = {{"M", "64"}};
    j.flops_formula = "2*M*M*M";
    j.bytes_formula = "6*M*M";
    j.baselines = {"cublas.gemm"};
    return j;
}

}  // namespace

class TestServices : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void newest_request_wins() {
        std::atomic<int> calls{0};
        CompileService s(slow_compiler(150, &calls));
        QSignalSpy finished(&s, &CompileService::finished);
        QSignalSpy dropped(&s, &CompileService::dropped);
        s.compile_now(req("v1"));  // starts at once
        for (int i = 2; i <= 6; ++i) s.compile_now(req("v" + std::to_string(i)));  // queued; each replaces the last
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
        QTest::qWait(300);
        QCOMPARE(calls.load(), 2);  // v1 (already running) and v6; v2..v5 never ran
        QCOMPARE(dropped.count(), 1);  // v1's result was stale when it came back
        auto r = finished.at(0).at(0).value<CompileResultPtr>();
        QCOMPARE(r->cuda, std::string("v6"));
        QCOMPARE(finished.at(0).at(1).toULongLong(), s.latest_generation());
    }

    void debounce_coalesces_typing() {
        std::atomic<int> calls{0};
        CompileService s(slow_compiler(10, &calls));
        s.set_delay_ms(100);
        QSignalSpy finished(&s, &CompileService::finished);
        for (int i = 0; i < 5; ++i) {
            s.schedule(req("t" + std::to_string(i)));
            QTest::qWait(20);  // faster than the delay: still typing
        }
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 3000);
        QTest::qWait(200);
        QCOMPARE(calls.load(), 1);
        QCOMPARE(finished.at(0).at(0).value<CompileResultPtr>()->cuda, std::string("t4"));
    }

    void compiler_exception_becomes_result() {
        CompileService s([](const tp::CompileRequest&) -> tp::CompileResult { throw std::runtime_error("boom"); });
        QSignalSpy finished(&s, &CompileService::finished);
        s.compile_now(req("x"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 3000);
        auto r = finished.at(0).at(0).value<CompileResultPtr>();
        QVERIFY(r->internal_error.has_value());
        QVERIFY(!r->ok);
    }

    void destroyed_while_compiling() {
        std::atomic<int> calls{0};
        auto* s = new CompileService(slow_compiler(200, &calls));
        s->compile_now(req("x"));
        QTest::qWait(20);
        delete s;  // joins the thread; the queued result must not touch the dead service
        QTest::qWait(50);
        QCOMPARE(calls.load(), 1);
    }

    void run_service_sweep_with_dying_worker() {
        RunService s;
        s.set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        QSignalSpy results(&s, &RunService::result);
        QSignalSpy died(&s, &RunService::worker_died);
        QSignalSpy done(&s, &RunService::job_finished);
        QSignalSpy progress(&s, &RunService::progress);
        s.start(sweep_job({{{"block", "64"}}, {{"die", "1"}}, {{"block", "128"}}}));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
        QCOMPARE(results.count(), 3);
        QCOMPARE(died.count(), 1);
        QVERIFY(died.at(0).at(0).toString().contains("illegal memory access"));
        QCOMPARE(s.workers_started(), 2);  // a fresh worker took over after the crash
        auto r0 = results.at(0).at(0).value<RunResult>();
        auto r1 = results.at(1).at(0).value<RunResult>();
        auto r2 = results.at(2).at(0).value<RunResult>();
        QVERIFY(r0.ok && r0.median_ms > 0);
        QCOMPARE(r0.config, QString("block=64"));
        QCOMPARE(r0.flops, 2.0 * 64 * 64 * 64);  // formula evaluated with the header's args
        QCOMPARE(int(r0.baselines.size()), 1);
        QVERIFY(!r1.ok);
        QVERIFY(r2.ok && r2.median_ms < r0.median_ms);
        QVERIFY(r2.baselines.empty());  // baselines are timed once per sweep
        QVERIFY(done.at(0).at(1).toString().contains("1 of 3"));
        QVERIFY(progress.count() >= 3);
        QVERIFY(!s.busy());
    }

    void run_service_cancel_and_watchdog() {
        RunService s;
        s.set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        QSignalSpy done(&s, &RunService::job_finished);
        QSignalSpy died(&s, &RunService::worker_died);
        RunJob j = sweep_job({{{"hang", "1"}}});
        j.kind = RunJob::Kind::Bench;
        s.start(j);
        QTest::qWait(800);
        QVERIFY(s.busy());
        s.cancel();
        QCOMPARE(done.count(), 1);
        QCOMPARE(done.at(0).at(0).toBool(), false);
        QVERIFY(done.at(0).at(1).toString().contains("cancelled"));
        QCOMPARE(died.count(), 0);  // a cancel is not a death
        // The watchdog kills a silent worker and reports it.
        s.set_watchdog_ms(700);
        QSignalSpy results(&s, &RunService::result);
        s.start(j);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 10000);
        QCOMPARE(died.count(), 1);
        QVERIFY(died.at(0).at(0).toString().contains("watchdog"));
        QVERIFY(!results.at(0).at(0).value<RunResult>().ok);
    }

    // A CPU run of a sample checks its output against the named baseline's C++ reference; a
    // kernel that computes something else is reported wrong, not merely "ran".
    void cpu_run_checks_against_reference() {
        QFile f(QStringLiteral(TILEPLAY_SOURCE_DIR "/samples/vector_add.py"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        tp::CompileRequest r;
        r.path = "vector_add.py";
        r.source = f.readAll().toStdString();
        r.fallback_defines = {{"N", "1000"}};
        RunResult ok = CpuRunner::run(r, 1);
        QVERIFY2(ok.ok, qPrintable(ok.error));
        QVERIFY(ok.cpu);
        QVERIFY(ok.correct);
        QCOMPARE(ok.rel_error, 0.0);
        QVERIFY(ok.median_ms < 0);  // no GPU timing on a CPU run

        std::string wrong = r.source;
        wrong.replace(wrong.find("A[idx] + B[idx]"), 15, "A[idx] - B[idx]");
        r.source = wrong;
        RunResult bad = CpuRunner::run(r, 1);
        QVERIFY(bad.ok);
        QVERIFY(!bad.correct);
        QVERIFY(bad.rel_error > 0.1);
    }

    void missing_worker_binary() {
        RunService s;
        s.set_command("/nonexistent/tilec", {"worker"});
        QSignalSpy done(&s, &RunService::job_finished);
        s.start(sweep_job({{}}));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 5000);
        QVERIFY(done.at(0).at(1).toString().contains("cannot start the worker"));
    }
};

QTEST_MAIN(TestServices)
#include "test_services.moc"
