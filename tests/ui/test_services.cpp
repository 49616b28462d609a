// The compile service (debounce, newest request wins, stale results dropped) with a slow fake
// compiler, and the run service driving a fake GPU worker (tests/ui/data/fake_worker.py, the
// `tilec worker` protocol) that answers with GPU results, dies, crashes and hangs, and prints
// like device printf. CPU runs through the real worker are in test_cpu_runs.cpp.
#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>
#include <atomic>
#include <thread>

#include "models/results_model.h"
#include "session/compile_service.h"
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
    j.fallback_defines = {{"M", "1024"}};
    j.flops_formula = "2*M*M*M";
    j.bytes_formula = "6*M*M";
    j.baselines = {"cublas.gemm"};
    return j;
}

RunJob gemm_job(RunJob::Kind kind) {
    RunJob j;
    j.kind = kind;
    j.path = "gemm.py";
    j.kernel = "matmul";
    j.fallback_defines = {{"M", "4096"}, {"N", "4096"}, {"K", "2048"}};
    j.flops_formula = "2*M*N*K";
    j.bytes_formula = "2*(M*K + K*N + M*N)";
    j.baselines = {"cublas.gemm", "torch: A @ B", "cutlass.gemm"};
    return j;
}

// Runs one job to the end and returns its results.
std::vector<RunResult> run_job(RunService& s, const RunJob& j, QString* message = nullptr) {
    QSignalSpy results(&s, &RunService::result);
    QSignalSpy done(&s, &RunService::job_finished);
    s.start(j);
    if (!done.wait(20000) && done.isEmpty()) return {};
    if (message) *message = done.at(0).at(1).toString();
    std::vector<RunResult> out;
    for (const auto& args : results) out.push_back(args.at(0).value<RunResult>());
    return out;
}

QString cell(const ResultsModel& m, int row, int col) { return m.index(row, col).data().toString(); }

std::string read_sample(const char* name) {
    QFile f(QStringLiteral(TILEPLAY_SOURCE_DIR "/samples/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing sample %s", name);
    return f.readAll().toStdString();
}

RunJob debug_print_job(const std::string& extra_source = {}) {
    RunJob j;
    j.path = "debug_print.py";
    j.source = QString::fromStdString(read_sample("debug_print.py") + extra_source);
    j.kernel = "scale_tile";
    j.fallback_defines = {{"M", "1024"}, {"N", "1024"}};
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

    // The launch's throw-away compile: it runs first on the compile thread, a request made
    // meanwhile waits for it and is the only result shown, and a second warm-up while the
    // thread is busy is skipped (the compile then pays the start-up itself).
    void warm_up_runs_first_and_shows_nothing() {
        std::atomic<int> calls{0}, warm_calls{0};
        CompileService s(slow_compiler(10, &calls));
        QSignalSpy finished(&s, &CompileService::finished);
        QSignalSpy started(&s, &CompileService::started);
        QSignalSpy warmed(&s, &CompileService::warmed_up);
        s.warm_up([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            QCOMPARE(calls.load(), 0);  // nothing compiled beside it
            ++warm_calls;
        });
        QVERIFY(s.busy());
        s.compile_now(req("after"));
        s.warm_up([&] { ++warm_calls; });  // busy: skipped
        QCOMPARE(started.count(), 0);  // queued behind the warm-up
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
        QCOMPARE(warmed.count(), 1);
        QVERIFY(warmed.at(0).at(0).toDouble() >= 100);
        QCOMPARE(warm_calls.load(), 1);
        QCOMPARE(s.warm_ups_run(), 1);
        QCOMPARE(calls.load(), 1);
        QCOMPARE(finished.at(0).at(0).value<CompileResultPtr>()->cuda, std::string("after"));
        s.warm_up([] { throw std::runtime_error("no NVRTC"); });  // a failing warm-up is harmless
        QTRY_COMPARE_WITH_TIMEOUT(warmed.count(), 2, 3000);
        QVERIFY(!s.busy());
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

    // Every way a worker can go: dying while loading (no reply), a fatal CUDA error reply
    // followed by exit, a crash by signal. Each fails only its own configuration; a fresh
    // worker takes over and the next configuration runs on it.
    void run_service_sweep_with_dying_worker() {
        RunService s;
        s.set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        QSignalSpy results(&s, &RunService::result);
        QSignalSpy died(&s, &RunService::worker_died);
        QSignalSpy done(&s, &RunService::job_finished);
        QSignalSpy progress(&s, &RunService::progress);
        QSignalSpy peers(&s, &RunService::peers);
        s.start(sweep_job({{{"block", "64"}}, {{"die", "load"}}, {{"block", "128"}}, {{"die", "run"}}, {{"crash", "run"}},
                           {{"block", "256"}}}));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 30000);
        QCOMPARE(results.count(), 6);
        QCOMPARE(died.count(), 3);
        QVERIFY(died.at(0).at(0).toString().contains("illegal memory access"));
        QVERIFY(died.at(1).at(0).toString().contains("ILLEGAL_ADDRESS"));
        QVERIFY(died.at(2).at(0).toString().contains("crashed"));
        QCOMPARE(s.workers_started(), 4);  // a fresh worker took over after each death
        std::vector<RunResult> r;
        for (const auto& args : results) r.push_back(args.at(0).value<RunResult>());
        QVERIFY(r[0].ok && r[0].median_ms > 0);
        QCOMPARE(r[0].config, QString("block=64"));
        QCOMPARE(r[0].flops, 2.0 * 1024 * 1024 * 1024);  // formula evaluated with the header's args
        QVERIFY(r[0].baselines.empty());  // configs are timed alone
        QCOMPARE(r[0].device, QString("NVIDIA H200"));
        QVERIFY(!r[1].ok);
        QVERIFY(r[2].ok && r[2].median_ms < r[0].median_ms);  // after the death: really measured
        QVERIFY(r[2].baselines.empty());
        QVERIFY(!r[3].ok && r[3].error.contains("illegal memory access"));
        QVERIFY(!r[4].ok && r[4].error.contains("crashed"));
        QVERIFY2(r[5].ok && r[5].median_ms < r[2].median_ms, qPrintable(r[5].error));
        QCOMPARE(r[5].device, QString("NVIDIA H200"));
        // Then the fastest correct config once more, beside its peers in one call: no extra row.
        QCOMPARE(peers.count(), 1);
        RunResult p = peers.at(0).at(0).value<RunResult>();
        QCOMPARE(p.config, QString("block=256"));
        QCOMPARE(int(p.baselines.size()), 1);
        QVERIFY(p.baselines[0].median_ms > 0);
        QVERIFY(done.at(0).at(1).toString().contains("3 of 6"));
        QVERIFY(progress.count() >= 6);
        QVERIFY(!s.busy());
    }

    // A bench on the (fake) GPU: the GPU's name, our timings with TFLOP/s and GB/s from the
    // sample's formulas, the error against the reference and each baseline's time, and the
    // Results table showing all of it labelled GPU.
    void gpu_bench_results() {
        RunService s;
        s.set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        QString message;
        auto rs = run_job(s, gemm_job(RunJob::Kind::Bench), &message);
        QCOMPARE(int(rs.size()), 1);
        const RunResult& r = rs[0];
        QVERIFY2(r.ok && r.correct, qPrintable(r.error));
        QVERIFY(!r.cpu);
        QCOMPARE(r.device, QString("NVIDIA H200"));
        QVERIFY(message.contains("on NVIDIA H200"));
        QVERIFY(r.has_timing() && r.min_ms > 0 && r.min_ms <= r.median_ms);
        const double flops = 2.0 * 4096 * 4096 * 2048, bytes = 2.0 * (4096 * 2048 * 2 + 4096 * 4096);
        QCOMPARE(r.flops, flops);
        QCOMPARE(r.bytes, bytes);
        QVERIFY(qAbs(r.tflops - flops / (r.median_ms * 1e-3) / 1e12) < 1e-6 * r.tflops);
        QVERIFY(qAbs(r.gbps - bytes / (r.median_ms * 1e-3) / 1e9) < 1e-6 * r.gbps);
        QVERIFY(r.rel_error > 0 && r.rel_error < 1e-2);
        QCOMPARE(int(r.baselines.size()), 3);
        QVERIFY(r.baselines[0].median_ms > 0 && r.baselines[1].median_ms > 0);
        QVERIFY(r.baselines[2].median_ms < 0 && r.baselines[2].note.startsWith("unavailable"));

        ResultsModel m;
        QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.set_result(r);
        QCOMPARE(m.rowCount(), 4);  // ours + three baselines
        QCOMPARE(cell(m, 0, ResultsModel::Name), QString("matmul (GPU: NVIDIA H200)"));
        QCOMPARE(cell(m, 0, ResultsModel::Latency), ResultsModel::format_ms(r.median_ms));
        QCOMPARE(cell(m, 0, ResultsModel::Tflops), ResultsModel::format_number(r.tflops, 2));
        QCOMPARE(cell(m, 0, ResultsModel::Gbps), ResultsModel::format_number(r.gbps, 0));
        QVERIFY(cell(m, 0, ResultsModel::Error).contains("e-04") && cell(m, 0, ResultsModel::Error).contains("✓"));
        QVERIFY(cell(m, 0, ResultsModel::Note).contains("spread"));
        QCOMPARE(cell(m, 1, ResultsModel::Name), QString("cublas.gemm (GPU)"));
        QCOMPARE(cell(m, 1, ResultsModel::Latency), ResultsModel::format_ms(r.baselines[0].median_ms));
        QCOMPARE(cell(m, 1, ResultsModel::Tflops), ResultsModel::format_number(flops / (r.baselines[0].median_ms * 1e-3) / 1e12, 2));
        QVERIFY(cell(m, 1, ResultsModel::Note).contains("its speed"));
        QCOMPARE(cell(m, 2, ResultsModel::Name), QString("torch: A @ B (GPU)"));
        QCOMPARE(cell(m, 2, ResultsModel::Latency), ResultsModel::format_ms(r.baselines[1].median_ms));
        QCOMPARE(cell(m, 3, ResultsModel::Latency), QString("—"));
        QVERIFY(cell(m, 3, ResultsModel::Note).contains("unknown baseline"));
    }

    // A plain Run on the GPU reports one launch's wall time and the check, not a benchmark;
    // the device name comes from the worker (`hello`), never from the client.
    void gpu_run_results() {
        qputenv("FAKE_GPU_NAME", "NVIDIA H100 80GB HBM3");
        RunService s;
        s.set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        auto rs = run_job(s, gemm_job(RunJob::Kind::Run));
        qunsetenv("FAKE_GPU_NAME");
        QCOMPARE(int(rs.size()), 1);
        const RunResult& r = rs[0];
        QVERIFY2(r.ok && r.correct, qPrintable(r.error));
        QCOMPARE(r.device, QString("NVIDIA H100 80GB HBM3"));
        QCOMPARE(s.device_name(), r.device);
        QVERIFY(r.wall_ms > 0);
        QVERIFY(!r.has_timing());
        QVERIFY(r.rel_error > 0 && r.rel_error < 1e-2);
        ResultsModel m;
        m.set_result(r);
        QCOMPARE(cell(m, 0, ResultsModel::Name), QString("matmul (GPU: NVIDIA H100 80GB HBM3)"));
        QCOMPARE(cell(m, 0, ResultsModel::Latency), QString("—"));
        QVERIFY(cell(m, 0, ResultsModel::Note).contains("one launch took " + ResultsModel::format_ms(r.wall_ms)));
        QCOMPARE(m.rowCount(), 1);  // a Run times no baselines

        RunJob wrong = gemm_job(RunJob::Kind::Run);
        wrong.defines = {{"wrong", "1"}};
        rs = run_job(s, wrong);
        QCOMPARE(int(rs.size()), 1);
        QVERIFY(rs[0].ok && !rs[0].correct && rs[0].rel_error > 0.1);
        m.set_result(rs[0]);
        QVERIFY(cell(m, 0, ResultsModel::Error).contains("✗"));
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

    // The worker's `printed` reaches the result for run and bench, and after a trapped
    // T.device_assert the fatal reply's text does too, while a fresh worker takes over.
    void gpu_run_keeps_printed_text() {
        RunService s;
        s.set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        const QString first = "msg='first element of the tile' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=float value=0.500000\n";
        for (RunJob::Kind kind : {RunJob::Kind::Run, RunJob::Kind::Bench}) {
            RunJob j = debug_print_job();
            j.kind = kind;
            auto rs = run_job(s, j);
            QCOMPARE(int(rs.size()), 1);
            QVERIFY2(rs[0].ok, qPrintable(rs[0].error));
            QVERIFY(!rs[0].cpu);
            QVERIFY2(rs[0].printed.startsWith(first), qPrintable(rs[0].printed));
            QCOMPARE(rs[0].printed.count('\n'), 3);
        }
        QVERIFY(run_job(s, gemm_job(RunJob::Kind::Run)).at(0).printed.isEmpty());  // prints nothing

        QSignalSpy died(&s, &RunService::worker_died);
        auto rs = run_job(s, debug_print_job("\n# fake-worker: assert=run\n"));
        QCOMPARE(int(rs.size()), 1);
        QVERIFY(!rs[0].ok);
        QVERIFY(rs[0].error.contains("CUDA_ERROR_LAUNCH_FAILED"));
        QCOMPARE(rs[0].printed, QString("device assertion failed at line 29: input larger than limit block=(0,0,0) thread=(0,0,0)\n"));
        QCOMPARE(died.count(), 1);
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
