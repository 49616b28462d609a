// The Pipeline dock: the lane model over core's pipeline view (lanes per role, slices in
// program order with the DSL line and the wait marks), a Chrome trace read into measured lanes
// (and bad traces refused with the reason), the panel on samples/gemm.py for sm_80 and sm_90a
// and flash_attention.py (block_N=128) on sm_90a, hover and click on a slice, and the window's
// View > Pipeline dock going to a line. TILEPLAY_TEST_SHOTS=DIR keeps PNGs for a person to look at.
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/pipeline_lanes.h"
#include "panels/pipeline/lane_view.h"
#include "panels/pipeline/pipeline_panel.h"
#include "session/compile_service.h"
#include "settings.h"
#include "tileplay/sample_header.h"

using namespace tpui;

namespace {

tp::CompileRequest sample_request(const char* sample, const std::string& target, std::vector<std::pair<std::string, std::string>> defines) {
    QFile f(QString(TILEPLAY_SOURCE_DIR "/samples/") + sample);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing sample %s", sample);
    tp::CompileRequest req;
    req.path = std::string(TILEPLAY_SOURCE_DIR "/samples/") + sample;
    req.source = f.readAll().toStdString();
    req.target = target;
    req.defines = std::move(defines);
    req.fallback_defines = tp::parse_sample_header(req.source).args;
    return req;
}

void shot(QWidget& w, const QString& name) {
    QString dir = qEnvironmentVariable("TILEPLAY_TEST_SHOTS");
    if (!dir.isEmpty()) QVERIFY(w.grab().save(dir + "/" + name + ".png"));
}

const LaneSlice* first_of(const Lane& l, const QString& kind) {
    for (const auto& s : l.slices)
        if (s.kind == kind) return &s;
    return nullptr;
}

// A small trace as `tilec run --timeline` writes it: SM 3, block 0's producer and consumer.
const char* kTrace = R"({"traceEvents": [
 {"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "SM 3"}},
 {"name": "thread_name", "ph": "M", "pid": 3, "tid": 1, "args": {"name": "block 0 producer"}},
 {"name": "thread_name", "ph": "M", "pid": 3, "tid": 2, "args": {"name": "block 0 consumer"}},
 {"name": "TMA load A_shared", "cat": "tma_load", "ph": "X", "ts": 10.0, "dur": 0.5, "pid": 3, "tid": 1, "args": {"line": 43, "kind": "tma_load", "iteration": 0}},
 {"name": "wait full mbarrier", "cat": "mbarrier_wait", "ph": "X", "ts": 10.2, "dur": 1.0, "pid": 3, "tid": 2, "args": {"line": 43, "kind": "mbarrier_wait", "iteration": 0, "waits": true}}
]})";

}  // namespace

class TestPipeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
    }

    void lanes_follow_the_view() {
        tp::PipelineReport r = tp::inspect_pipeline(sample_request("gemm.py", "sm_90a", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}}));
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(int(r.loops.size()), 1);
        LaneDiagram d = lanes_from_view(r.loops[0], "gemm.py", 2);
        QCOMPARE(d.unit, QString("step"));
        QCOMPARE(d.lanes.size(), 2);
        QCOMPARE(d.lanes[0].name, QString("producer"));
        QCOMPARE(d.lanes[1].name, QString("consumer"));
        // Slices run left to right without overlap, each iteration once per copy.
        for (const auto& l : d.lanes)
            for (int i = 1; i < l.slices.size(); ++i) QVERIFY(l.slices[i].start >= l.slices[i - 1].start + l.slices[i - 1].duration - 1e-9);
        const LaneSlice* wait = first_of(d.lanes[1], "mbarrier_wait");
        QVERIFY(wait);
        QCOMPARE(wait->line, 43);
        QVERIFY(wait->waits);
        QVERIFY(wait->tooltip.contains("gemm.py:43"));
        int iter1 = 0;
        for (const auto& s : d.lanes[0].slices) iter1 += s.iteration == 1 && s.kind == "tma_load";
        QVERIFY(iter1 >= 2);  // A and B loaded again in the second iteration drawn
        // Bookkeeping only when asked for.
        QVERIFY(!first_of(lanes_from_view(r.loops[0], "gemm.py", 1).lanes[0], "scalar"));
        QVERIFY(first_of(lanes_from_view(r.loops[0], "gemm.py", 1, true).lanes[0], "scalar"));
    }

    void lanes_from_a_trace() {
        QString error;
        auto d = lanes_from_trace(kTrace, &error);
        QVERIFY2(d, qPrintable(error));
        QVERIFY(d->measured());
        QCOMPARE(d->lanes.size(), 2);
        QCOMPARE(d->lanes[0].name, QString("SM 3 block 0 producer"));
        QCOMPARE(d->lanes[1].slices[0].line, 43);
        QCOMPARE(d->lanes[0].slices[0].start, 0.0);  // from the first stamp
        QVERIFY(qAbs(d->end - 1.2) < 1e-9);
        QVERIFY(!lanes_from_trace("{", &error));
        QVERIFY(error.contains("not JSON"));
        QVERIFY(!lanes_from_trace(R"({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1}]})", &error));
        QVERIFY(error.contains("no complete"));
    }

    void panel_on_the_samples() {
        struct Case {
            const char* sample;
            const char* target;
            std::vector<std::pair<std::string, std::string>> defines;
            int roles;
            QString shot;
        };
        const Case cases[] = {
            {"gemm.py", "sm_80", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}, {"num_stages", "3"}}, 1, "pipeline_gemm_sm_80"},
            {"gemm.py", "sm_90a", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}}, 2, "pipeline_gemm_sm_90a"},
            {"flash_attention.py", "sm_90a", {{"block_N", "128"}}, 2, "pipeline_flash_attention_sm_90a"},
        };
        for (const auto& c : cases) {
            PipelinePanel p;
            p.resize(1400, 560);
            p.set_request(sample_request(c.sample, c.target, c.defines), true);
            p.show();
            QVERIFY(QTest::qWaitForWindowExposed(&p));
            QVERIFY(p.report() && p.report()->ok);
            QCOMPARE(p.loop_count(), 1);
            QVERIFY(p.select_loop(0));
            QVERIFY(!p.select_loop(1));
            const LaneDiagram& d = p.lanes()->diagram();
            QCOMPARE(int(d.lanes.size()), c.roles);
            // Hover and click on the first slice of the last lane: its DSL line.
            QSignalSpy go(&p, &PipelinePanel::go_to);
            const QRect r = p.lanes()->slice_rect(int(d.lanes.size()) - 1, 0);
            const LaneSlice* s = p.lanes()->slice_at(r.center());
            QVERIFY(s);
            QVERIFY(s->line > 0);
            QTest::mouseClick(p.lanes(), Qt::LeftButton, {}, r.center());
            QCOMPARE(go.count(), 1);
            QCOMPARE(go.at(0).at(0).toInt(), s->line);
            shot(p, c.shot);
        }
    }

    void panel_shows_a_trace_file() {
        QTemporaryDir dir;
        QFile f(dir.filePath("t.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kTrace);
        f.close();
        PipelinePanel p;
        p.resize(1000, 400);
        p.show();
        QVERIFY(p.load_timeline(f.fileName()));
        QVERIFY(p.lanes()->diagram().measured());
        QVERIFY(!p.load_timeline(dir.filePath("missing.json")));
        QVERIFY(p.lanes()->diagram().measured());  // a failed load keeps what was shown
    }

    void window_dock_goes_to_lines() {
        Settings::set_target("sm_90a");
        MainWindow w;
        w.resize(1500, 950);
        w.show();
        QSignalSpy finished(w.compile_service(), &CompileService::finished);
        QVERIFY(w.open_file(TILEPLAY_SOURCE_DIR "/samples/gemm.py"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() >= 1, 60000);
        auto* dock = w.findChild<QDockWidget*>("dock_pipeline");
        QVERIFY(dock);
        QVERIFY(dock->isHidden());
        dock->toggleViewAction()->trigger();  // View > Pipeline
        dock->raise();
        auto* panel = w.findChild<PipelinePanel*>();
        QVERIFY(panel);
        QTRY_VERIFY_WITH_TIMEOUT(panel->loop_count() == 1, 30000);
        QCOMPARE(panel->report()->target, std::string("sm_90a"));
        // A click on the consumer's wgmma issue puts the caret on the T.gemm line.
        const Lane& consumer = panel->lanes()->diagram().lanes[1];
        int issue = -1;
        for (int i = 0; i < consumer.slices.size() && issue < 0; ++i)
            if (consumer.slices[i].kind == "wgmma_issue") issue = i;
        QVERIFY(issue >= 0);
        QTRY_VERIFY(panel->lanes()->isVisible());
        QTest::mouseClick(panel->lanes(), Qt::LeftButton, {}, panel->lanes()->slice_rect(1, issue).center());
        QCOMPARE(w.editor()->caret_line(), 45);
        shot(w, "pipeline_window_sm_90a");
        w.editor()->setModified(false);
    }
};

QTEST_MAIN(TestPipeline)
#include "test_pipeline.moc"
