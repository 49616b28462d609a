// The Compare dock: a pinned configuration against the current one, as counts of instruction
// classes and listings aligned row for row, from the panel alone and through the main window
// (pin, change a parameter, see the code the change made).
#include <QDockWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QDir>
#include <QtTest>

#include "main_window.h"
#include "editor/dsl_editor.h"
#include "models/parameters_model.h"
#include "panels/compare/compare_panel.h"
#include "session/compile_service.h"

using namespace tpui;

class TestCompare : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
    }

    void panel_counts_and_aligns() {
        ComparePanel p;
        ComparePanel::Side a, b;
        a.config = "block_K=32";
        a.ptx = "\tld.global.f32 %f1, [%rd1];\n\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n\tret;\n";
        b.config = "block_K=64";
        b.ptx = "\tld.global.f32 %f9, [%rd4];\n\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
                "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2}, {%r3}, {%r4}, {%f2};\n\tbar.sync 0;\n\tret;\n";
        p.set_current(b);
        QVERIFY(!p.has_pin());
        QCOMPARE(p.count_cell(0, 0), QString());  // nothing pinned: nothing to compare
        p.pin(a);
        QCOMPARE(p.count_cell(0, 0), QString("3"));   // instructions, pinned
        QCOMPARE(p.count_cell(0, 1), QString("5"));   // current
        QCOMPARE(p.count_cell(1, 2), QString("+1"));  // one more Tensor Core instruction
        QCOMPARE(p.count_cell(3, 2), QString("+1"));  // and a barrier
        QVERIFY(p.diff().complete);
        QCOMPARE(p.diff().removed, 0);
        QCOMPARE(p.diff().added, 2);
        // Both sides have as many rows, so one scroll bar drives both.
        auto views = p.findChildren<QPlainTextEdit*>();
        QCOMPARE(views.size(), 2);
        QCOMPARE(views[0]->document()->blockCount(), views[1]->document()->blockCount());
        QVERIFY(p.findChild<QPushButton*>("compare_next")->isEnabled());
        p.findChild<QPushButton*>("compare_next")->click();
    }

    void pin_change_parameter_compare() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy finished(w.compile_service(), &CompileService::finished);
        QVERIFY(w.open_file(TILEPLAY_SOURCE_DIR "/samples/gemm.py"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() >= 1, 60000);
        auto r = finished.last().at(0).value<CompileResultPtr>();
        if (!r || r->ptx.empty()) QSKIP("no PTX here (NVRTC unavailable)");
        auto* pin = w.findChild<QAction*>("action_pin");
        QVERIFY(pin);
        pin->trigger();
        auto* panel = w.findChild<ComparePanel*>();
        QVERIFY(panel && panel->has_pin());
        QVERIFY(w.findChild<QDockWidget*>("dock_compare")->isVisible());
        QCOMPARE(panel->count_cell(1, 2), QString("0"));  // the same compile on both sides
        const QString pinned_tc = panel->count_cell(1, 0);
        auto* params = w.findChild<ParametersModel*>();
        QVERIFY(params);
        const int before = finished.count();
        QVERIFY(params->set_value("block_K", "64"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > before && panel->count_cell(1, 0) == pinned_tc && panel->count_cell(1, 2) != "0", 60000);
        QVERIFY(panel->count_cell(1, 2).startsWith('+'));  // twice the k steps per tile: more wgmma/mma
        w.editor()->setModified(false);
    }
};

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
