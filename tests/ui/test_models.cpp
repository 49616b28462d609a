// Models: QAbstractItemModelTester on each, plus their own behaviour (defines from edited
// parameters, results rows for CPU and GPU runs, sweep sorting and CSV, the printed-output log
// and its caps).
#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include "models/output_log.h"
#include "models/parameters_model.h"
#include "models/problems_model.h"
#include "models/results_model.h"
#include "models/run_result.h"
#include "models/sweep_model.h"
#include "settings.h"

using namespace tpui;

namespace {

tp::FactoryInfo gemm_factory() {
    tp::FactoryInfo f;
    f.name = "matmul";
    f.params = {{"M", "", "int", true}, {"block_M", "128", "int", false}, {"dtype", "\"float16\"", "dtype", false},
                {"use_swizzle", "True", "bool", false}};
    return f;
}

RunResult timed(const QString& config, double ms) {
    RunResult r;
    r.config = config;
    r.median_ms = ms;
    r.flops = 2e9;
    r.bytes = 1e6;
    r.tflops = r.flops / (ms * 1e-3) / 1e12;
    r.baselines = {{"cuBLAS", 0.4, {}}};
    return r;
}

}  // namespace

class TestModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void problems() {
        ProblemsModel m;
        QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tp::Diagnostic d;
        d.kind = tp::DiagKind(0);
        d.severity = tp::Severity::Error;
        d.message = "unknown builtin `T.gem`; did you mean `T.gemm`";
        d.span = {{12, 5}, {12, 10}};
        tp::Diagnostic n = d;
        n.severity = tp::Severity::Note;
        d.notes.push_back(n);
        m.set_problems(problems_from({d}));
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.error_count(), 1);
        QCOMPARE(m.index(0, ProblemsModel::Location).data().toString(), QString("12:5"));
        QCOMPARE(m.index(0, 0).data(ProblemsModel::LineRole).toInt(), 12);
        QVERIFY(m.index(0, ProblemsModel::Message).data().toString().contains("T.gemm"));
        m.set_problems({});
        QCOMPARE(m.rowCount(), 0);
        // A fast path the compiler could not take is listed as a remark, not counted as a problem.
        tp::Diagnostic r;
        r.kind = tp::DiagKind::FastPathNotTaken;
        r.severity = tp::Severity::Remark;
        r.message = "wgmma not used: each warpgroup multiplies 64 rows; block M is 32; this T.gemm runs on mma.sync";
        r.span = {{20, 9}, {20, 40}};
        m.set_problems(problems_from({r}));
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.error_count(), 0);
        QCOMPARE(m.warning_count(), 0);
        QCOMPARE(m.index(0, ProblemsModel::Severity).data().toString(), QString("remark"));
    }

    void parameters() {
        ParametersModel m;
        QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.set_factory(gemm_factory(), {{"M", "4096"}});
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.index(0, ParametersModel::Value).data().toString(), QString("4096"));
        QCOMPARE(m.index(2, ParametersModel::Value).data().toString(), QString("float16"));
        QVERIFY(m.index(3, 1).data(ParametersModel::ChoicesRole).toStringList().contains("False"));
        // Only the required value and edits that differ from the default become defines.
        auto d = m.values_as_defines();
        QCOMPARE(int(d.size()), 1);
        QSignalSpy edited(&m, &ParametersModel::values_edited);
        QVERIFY(!m.setData(m.index(1, 1), "12x"));  // not an int
        QVERIFY(m.setData(m.index(1, 1), "64"));
        QVERIFY(m.set_value("dtype", "bfloat16"));
        QCOMPARE(edited.count(), 2);
        d = m.values_as_defines();
        QCOMPARE(int(d.size()), 3);
        QCOMPARE(d[1].first, std::string("block_M"));
        QCOMPARE(d[1].second, std::string("64"));
        // A recompile of the same factory keeps what the user typed.
        m.set_factory(gemm_factory(), {{"M", "4096"}});
        QCOMPARE(m.index(1, 1).data().toString(), QString("64"));
        QVERIFY(!(m.flags(m.index(0, 0)) & Qt::ItemIsEditable));
        // Overrides are marked against what the file says, and reset to it.
        QVERIFY(m.index(1, 1).data(ParametersModel::OverriddenRole).toBool());
        QVERIFY(!m.index(0, 1).data(ParametersModel::OverriddenRole).toBool());  // the header's M
        QVERIFY(m.index(1, 1).data(Qt::ToolTipRole).toString().contains("this compile uses 64"));
        QVERIFY(m.reset_value("block_M"));
        QCOMPARE(m.index(1, 1).data().toString(), m.index(1, 1).data(ParametersModel::FileValueRole).toString());
        QVERIFY(!m.index(1, 1).data(ParametersModel::OverriddenRole).toBool());
        QCOMPARE(edited.count(), 3);
    }

    void results_gpu_and_cpu() {
        ResultsModel m;
        QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.set_result(timed("matmul", 0.5));
        QCOMPARE(m.rowCount(), 2);  // ours + cuBLAS
        QCOMPARE(m.index(0, ResultsModel::Name).data().toString(), QString("matmul (GPU)"));
        QCOMPARE(m.index(1, ResultsModel::Name).data().toString(), QString("cuBLAS (GPU)"));
        QVERIFY(m.index(0, ResultsModel::Latency).data().toString().contains("ms"));
        RunResult cpu;
        cpu.cpu = true;
        cpu.config = "matmul";
        cpu.baselines = {{"cuBLAS", 0.4, {}}};
        m.set_result(cpu);
        QCOMPARE(m.rowCount(), 1);  // no GPU baselines for a CPU run
        QVERIFY(m.index(0, ResultsModel::Name).data().toString().contains("CPU"));
        QVERIFY(!m.index(0, ResultsModel::Latency).data().toString().contains("ms"));
        QVERIFY(m.index(0, ResultsModel::Tflops).data().toString().isEmpty());
        QVERIFY(!m.index(0, ResultsModel::Name).data().toString().contains("GPU"));
        m.clear();
        QCOMPARE(m.rowCount(), 0);
    }

    void sweep() {
        SweepModel m;
        QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.add(timed("block=64", 2.0));
        m.add(timed("block=128", 1.0));
        RunResult bad;
        bad.config = "block=256";
        bad.ok = false;
        bad.error = "the worker crashed";
        m.add(bad);
        QCOMPARE(inserted.count(), 3);
        auto sorted = m.sorted_by_latency();
        QCOMPARE(int(sorted.size()), 2);
        QCOMPARE(sorted.front().config, QString("block=128"));
        QCOMPARE(int(m.baselines().size()), 1);
        QString csv = m.to_csv();
        QVERIFY(csv.startsWith("config,"));
        QVERIFY(csv.contains("block=256,gpu,0"));
        QVERIFY(csv.contains("baseline:cuBLAS"));
        QCOMPARE(m.index(2, SweepModel::Status).data().toString(), QString("the worker crashed"));
    }

    void run_result_json_round_trip() {
        RunResult r = timed("block=64", 1.5);
        r.params = {{"block", "64"}};
        RunResult back = run_result_from_json(run_result_to_json(r));
        QCOMPARE(back.config, r.config);
        QCOMPARE(back.median_ms, 1.5);
        QCOMPARE(int(back.baselines.size()), 1);
        QCOMPARE(back.params.front().second, QString("64"));
        r.device = "NVIDIA H200";
        r.wall_ms = 0.25;
        back = run_result_from_json(run_result_to_json(r));
        QCOMPARE(back.device, r.device);
        QCOMPARE(back.wall_ms, 0.25);
        QVERIFY(!back.cpu);
    }

    // The reply `tilec worker` gives for a bench (docs/worker-protocol.md), as seen on the H200.
    void run_result_from_worker_bench_reply() {
        const char* reply = R"({"ok":true,"device":"NVIDIA H200","ours":{"n":30,"median_ms":0.3230,"min_ms":0.3201,"spread_pct":1.5,
            "tflops":425.5,"gbps":311.0},"check":{"ok":true,"outputs":[{"name":"C","rel_fro":6.0e-05,"max_abs":0.01}]},
            "baselines":[{"name":"cublas.gemm","ok":true,"stats":{"median_ms":0.1815},"ratio":0.56},
                         {"name":"torch: A @ B","ok":false,"why":"unavailable: torch missing"}]})";
        tpui::RunResult r = tpui::run_result_from_json(QJsonDocument::fromJson(reply).object());
        QCOMPARE(r.median_ms, 0.3230);
        QCOMPARE(r.device, QString("NVIDIA H200"));
        QVERIFY(!r.cpu);
        QCOMPARE(r.tflops, 425.5);
        QCOMPARE(r.rel_error, 6.0e-05);
        QVERIFY(r.correct);
        QCOMPARE(static_cast<int>(r.baselines.size()), 2);
        QCOMPARE(r.baselines[0].median_ms, 0.1815);
        QCOMPARE(r.baselines[1].note, QString("unavailable: torch missing"));
    }

    // The peers' per-round ratios, which is best, whether each agrees with ours, the semantic
    // verdict and the clocks: read from a bench reply, shown in the Results table, kept in JSON.
    void run_result_peers_and_semantics() {
        const char* reply = R"({"ok":true,"device":"NVIDIA H200","ours":{"n":50,"median_ms":0.20,"min_ms":0.19,"spread_pct":1.0},
            "check":{"ok":true,"outputs":[{"name":"C","rel_fro":2.0e-05}]},
            "baselines":[{"name":"cublas.gemm","ok":true,"stats":{"median_ms":0.18},"ratio":0.9,"ratio_min":0.88,"ratio_max":0.93,
                          "vs_ours":{"agree":false,"rel_fro":0.18}},
                         {"name":"torch: A @ B","ok":true,"stats":{"median_ms":0.19},"ratio":0.95,"ratio_min":0.9,"ratio_max":1.0,
                          "vs_ours":{"agree":false,"rel_fro":0.18}}],
            "best_peer":{"name":"cublas.gemm","ratio":0.9},
            "semantics":{"checked":true,"ok":false,"against":["cublas.gemm","torch: A @ B"],"rel_fro":0.18},
            "conditions":{"available":true,"sm_clock_mhz":{"min":1755,"median":1980,"max":1980},"power_w":{"mean":512}}})";
        RunResult r = run_result_from_json(QJsonDocument::fromJson(reply).object());
        QCOMPARE(r.semantics, 0);
        QVERIFY(!r.correct);  // the interpreter agreed, the peers did not: the kernel is wrong
        QVERIFY(r.best_peer() && r.best_peer()->name == QString("cublas.gemm"));
        QCOMPARE(r.baselines[1].ratio_max, 1.0);
        QCOMPARE(r.baselines[0].agrees, 0);
        QCOMPARE(r.conditions, QString("SM 1755-1980 MHz, 512 W"));
        ResultsModel m;
        m.set_result(r);
        QString ours = m.data(m.index(0, ResultsModel::Note)).toString();
        QVERIFY2(ours.contains("0.90x [0.88-0.93] vs best peer cublas.gemm"), qPrintable(ours));
        QVERIFY2(ours.contains("DIFFERS from cublas.gemm, torch: A @ B"), qPrintable(ours));
        QVERIFY(m.data(m.index(0, ResultsModel::Error)).toString().contains("✗"));
        QString peer = m.data(m.index(1, ResultsModel::Note)).toString();
        QVERIFY2(peer.contains("best peer") && peer.contains("DIFFERS"), qPrintable(peer));
        QVERIFY(m.data(m.index(1, ResultsModel::Error)).toString().contains("✗"));
        RunResult back = run_result_from_json(run_result_to_json(r));
        QCOMPARE(back.semantics, 0);
        QVERIFY(back.best_peer() && back.best_peer()->ratio == 0.9);
        QCOMPARE(back.baselines[0].agrees, 0);
        QCOMPARE(back.conditions, r.conditions);
        // A sweep's best config beside its peers becomes the charts' note.
        SweepModel s;
        s.set_peers(r);
        QVERIFY(s.best_peer_summary().contains("0.90x [0.88-0.93] vs best peer cublas.gemm"));
        QCOMPARE(int(s.baselines().size()), 2);
    }

    // `printed` from a worker reply (a run's, and the fatal reply after a trapped assertion).
    void run_result_printed() {
        const char* run = R"({"ok":true,"wall_ms":0.1,"printed":"msg='x' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=int value=3\n"})";
        RunResult r = run_result_from_json(QJsonDocument::fromJson(run).object());
        QCOMPARE(r.printed, QString("msg='x' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=int value=3\n"));
        QCOMPARE(run_result_from_json(run_result_to_json(r)).printed, r.printed);
        QVERIFY(run_result_from_json(QJsonObject{{"ok", true}}).printed.isEmpty());
    }

    // Past kPrintedLimit the text is cut at a line end and says how much it left out.
    void printed_is_capped() {
        QString line = QString(99, 'x') + '\n';  // 100 bytes
        QString big = line.repeated(int(kPrintedLimit / 100) + 50);
        QString cut = cap_printed(big);
        QVERIFY(cut.toUtf8().size() < kPrintedLimit + 100);
        QStringList lines = cut.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.last(), QString("[%1 more bytes of printed output not shown]").arg(big.size() - (lines.size() - 1) * 100));
        lines.removeLast();
        for (const QString& l : lines) QCOMPARE(l.size(), 99);  // no line shown half
        QCOMPARE(cap_printed(line), line);                      // small text untouched
        QVERIFY(cap_printed(line, 7).endsWith("[7 more bytes of printed output not shown]\n"));
    }

    // One section per run that printed or failed, headed by where it ran and what.
    void output_log() {
        OutputLog log;
        QSignalSpy changed(&log, &OutputLog::changed);
        RunResult quiet;
        quiet.config = "k";
        QVERIFY(!log.add(quiet));  // ran, printed nothing: nothing to show
        QVERIFY(log.empty());
        QCOMPARE(changed.count(), 0);

        RunResult cpu;
        cpu.cpu = true;
        cpu.config = "scale_tile";
        cpu.params = {{"M", "16"}, {"N", "32"}};
        cpu.printed = "line one\nline two\n";
        QVERIFY(log.add(cpu));
        RunResult gpu;
        gpu.device = "NVIDIA H200";
        gpu.config = "block_M=64";
        gpu.params = {{"block_M", "64"}};
        gpu.ok = false;
        gpu.error = "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure";
        gpu.printed = "device assertion failed at line 29: too big block=(0,0,0) thread=(0,0,0)";
        QVERIFY(log.add(gpu));
        QCOMPARE(changed.count(), 2);
        QCOMPARE(log.line_count(), 3);
        QCOMPARE(log.plain_text(), QString("CPU interpreter · scale_tile · M=16 N=32\nline one\nline two\n"
                                           "GPU: NVIDIA H200 · block_M=64\n"
                                           "device assertion failed at line 29: too big block=(0,0,0) thread=(0,0,0)\n"
                                           "the run failed: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure\n"));
        QVERIFY(OutputLog::is_assert_line(log.sections()[1].text.trimmed()));
        QVERIFY(!OutputLog::is_assert_line("line one"));
        RunResult plain_gpu;
        plain_gpu.config = "k";
        QCOMPARE(OutputLog::header_for(plain_gpu), QString("GPU · k"));

        // A sweep whose every configuration prints the most stops adding text at the total cap.
        log.clear();
        QCOMPARE(changed.count(), 3);
        RunResult loud = gpu;
        loud.ok = true;
        loud.printed = QString(kPrintedLimit, 'x');
        int kept = 0;
        for (int i = 0; i < 10; ++i) {
            QVERIFY(log.add(loud));
            kept = int(log.sections().size());
        }
        QCOMPARE(kept, int(OutputLog::kTotalLimit / kPrintedLimit));
        QCOMPARE(log.dropped_sections(), 10 - kept);
        QVERIFY(log.plain_text().endsWith(QString("[%1 more configurations printed; not shown, the panel is full]\n").arg(10 - kept)));
        log.clear();
        QVERIFY(log.empty());
        QCOMPARE(log.dropped_sections(), 0);
    }

    void settings_declared_once() {
        QVERIFY(Settings::infos().size() >= 10);
        QCOMPARE(Settings::compile_delay_ms(), 300);
        Settings::set_theme("light");
        QCOMPARE(Settings::theme(), QString("light"));
        Settings::add_recent_file("/a.py");
        Settings::add_recent_file("/b.py");
        Settings::add_recent_file("/a.py");
        QCOMPARE(Settings::recent_files(), QStringList({"/a.py", "/b.py"}));
    }
};

QTEST_MAIN(TestModels)
#include "test_models.moc"
