// The Layout dock: the grid model over core's layout model (QAbstractItemModelTester, cell text,
// colours and tooltips naming owners and DSL lines), margin notes from bank conflicts (a padded
// and an unpadded shared transpose), the panel on samples/gemm.py for sm_80 and sm_90a, and the
// window routing the notes into the editor's margin. TILEPLAY_TEST_SHOTS=DIR keeps PNGs of the
// panel (A_shared and the accumulator, both targets) and of the window for a person to look at.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/layout_grid_model.h"
#include "panels/layout/layout_panel.h"
#include "session/compile_service.h"
#include "settings.h"

using namespace tpui;

namespace {

// The shared transpose kernel of tests/cli/inspect_layout.test, read from its one file.
QByteArray read_transpose() {
    QFile f(TILEPLAY_SOURCE_DIR "/tests/cli/Inputs/shared_transpose.py");
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing tests/cli/Inputs/shared_transpose.py");
    return f.readAll();
}
const QByteArray kTranspose = read_transpose();

QString read_gemm() {
    QFile f(TILEPLAY_SOURCE_DIR "/samples/gemm.py");
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing samples/gemm.py");
    return QString::fromUtf8(f.readAll());
}

tp::CompileRequest gemm_request(const std::string& target) {
    tp::CompileRequest req;
    req.path = TILEPLAY_SOURCE_DIR "/samples/gemm.py";
    req.source = read_gemm().toStdString();
    req.target = target;
    req.defines = {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}};
    return req;
}

std::shared_ptr<const tp::LayoutReport> report(const tp::CompileRequest& req, const std::string& buffer) {
    auto r = std::make_shared<tp::LayoutReport>(tp::inspect_layout(req, buffer));
    if (!r->ok) qWarning("%s", r->error.c_str());
    return r;
}

void shot(QWidget& w, const QString& name) {
    QString dir = qEnvironmentVariable("TILEPLAY_TEST_SHOTS");
    if (!dir.isEmpty()) QVERIFY(w.grab().save(dir + "/" + name + ".png"));
}

}  // namespace

class TestLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
    }

    void grid_model_fragment_and_shared() {
        LayoutGridModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto acc = report(gemm_request("sm_80"), "C_local");
        QVERIFY(acc->ok);
        m.set_report(acc);
        QCOMPARE(m.rowCount(), 128);
        QCOMPARE(m.columnCount(), 128);
        QVERIFY(!m.data(m.index(0, 0)).isValid());  // no text until zoomed in
        m.set_show_text(true);
        // mma.sync C fragment: (g, 2t) is thread 4g + t, c0; (g + 8, 2t + 1) its c3.
        QCOMPARE(m.data(m.index(0, 0)).toString(), QString("T0:r0"));
        QCOMPARE(m.cell_text(9, 3), QString("T5:r3"));
        QCOMPARE(m.color_key(9, 3), 5);
        QVERIFY(m.tooltip(9, 3).contains("thread 5 (warp 0, lane 5), register 3"));
        QVERIFY(m.tooltip(9, 3).contains("gemm.py:45: T.gemm accumulator"));
        QVERIFY(m.tooltip(9, 3).contains("reads gemm.py:47: T.copy source"));
        QVERIFY(m.data(m.index(0, 0), Qt::BackgroundRole).value<QColor>() != m.data(m.index(0, 2), Qt::BackgroundRole).value<QColor>());

        auto a = report(gemm_request("sm_80"), "A_shared");
        m.set_report(a);
        QCOMPARE(m.rowCount(), 128);
        QCOMPARE(m.columnCount(), 32);
        // 64-byte rows, 64B swizzle: row 2's chunk 0 is stored at chunk 1, bytes 128 + 16.
        QCOMPARE(m.cell_text(2, 0), QString::number(((2 * 64 + 16) / 4) % 32));
        const QString tip = m.tooltip(2, 0);
        QVERIFY2(tip.contains("16-byte chunk 0 stored at chunk 1 (XOR 1)"), qPrintable(tip));
        QVERIFY2(tip.contains("writes gemm.py:43: cp.async 16 B store"), qPrintable(tip));
        QVERIFY2(tip.contains("reads gemm.py:45: ldmatrix (T.gemm operand A) by thread"), qPrintable(tip));
        auto notes = LayoutGridModel::margin_notes(*a);
        QCOMPARE(int(notes.size()), 2);
        QCOMPARE(notes[0].line, 43);
        QCOMPARE(notes[0].text, QString("ok"));  // the swizzle makes both conflict free
        QCOMPARE(notes[1].line, 45);
        QCOMPARE(notes[1].text, QString("ok"));
        m.set_report(nullptr);
        QCOMPARE(m.rowCount(), 0);
    }

    void margin_notes_count_conflicts() {
        for (int pad : {0, 1}) {
            tp::CompileRequest req;
            req.path = "transpose.py";
            req.source = kTranspose.toStdString();
            req.target = "sm_80";
            req.defines = {{"PAD", std::to_string(pad)}};
            auto r = report(req, "S");
            QVERIFY(r->ok);
            auto notes = LayoutGridModel::margin_notes(*r);
            QCOMPARE(int(notes.size()), 2);
            QCOMPARE(notes[0].line, 11);
            QCOMPARE(notes[0].text, QString("ok"));
            QCOMPARE(notes[1].line, 13);
            QCOMPARE(notes[1].degree, pad ? 1 : 32);
            QCOMPARE(notes[1].text, pad ? QString("ok") : QString("32x"));
            QVERIFY(notes[1].tooltip.contains(pad ? "1-way" : "32-way bank conflict"));
        }
    }

    void panel_on_gemm_both_targets() {
        for (const char* target : {"sm_80", "sm_90a"}) {
            LayoutPanel p;
            p.resize(1300, 560);
            p.show();
            QSignalSpy notes(&p, &LayoutPanel::margin_notes_changed);
            p.set_request(gemm_request(target), true);
            QVERIFY(p.buffers().contains("A_shared"));
            QVERIFY(p.buffers().contains("B_shared"));
            QVERIFY(p.buffers().contains("C_local"));
            QVERIFY(p.select_buffer("A_shared"));
            QCOMPARE(p.buffer(), QString("A_shared"));
            QCOMPARE(p.model()->report()->layout.scope, std::string("shared"));
            QCOMPARE(p.model()->report()->layout.swizzle.mode_bytes, 64);  // block_K = 32 halves: 64-byte rows
            QCOMPARE(p.access_count(), 2);                                 // the copy into it and the gemm reading it
            QVERIFY(!notes.isEmpty());
            // sm_80: cp.async and ldmatrix are counted; sm_90a: TMA and wgmma are not.
            QCOMPARE(int(p.notes().size()), QString(target) == "sm_80" ? 2 : 0);
            p.set_cell_size(46);
            QVERIFY(p.model()->show_text());
            shot(p, QString("layout_A_shared_%1").arg(target));
            QVERIFY(p.select_buffer("C_local"));
            QCOMPARE(p.model()->report()->layout.wgmma, QString(target) == "sm_90a");
            QVERIFY(p.model()->cell_text(0, 0) == "T0:r0");
            shot(p, QString("layout_C_local_%1").arg(target));
            p.set_cell_size(8);
            QVERIFY(!p.model()->show_text());
            shot(p, QString("layout_C_local_%1_overview").arg(target));
            QVERIFY(!p.select_buffer("nope"));
        }
    }

    void window_puts_notes_in_the_margin() {
        Settings::set_target("sm_80");  // cp.async and ldmatrix: accesses whose conflicts count
        MainWindow w;
        w.resize(1500, 950);
        w.show();
        QSignalSpy finished(w.compile_service(), &CompileService::finished);
        QVERIFY(w.open_file(TILEPLAY_SOURCE_DIR "/samples/gemm.py"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() >= 1, 60000);
        auto* dock = w.findChild<QDockWidget*>("dock_layout");
        QVERIFY(dock);
        dock->toggleViewAction()->trigger();  // View > Layout: the dock starts hidden
        dock->raise();
        auto* panel = w.findChild<LayoutPanel*>();
        QVERIFY(panel);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->buffers().isEmpty(), 30000);
        QVERIFY(panel->select_buffer("A_shared"));
        QCOMPARE(panel->model()->report()->target, std::string("sm_80"));
        const auto& notes = w.editor()->margin_notes();
        QCOMPARE(int(notes.size()), 2);
        QCOMPARE(notes[0].line, 43);
        QCOMPARE(notes[1].line, 45);
        w.editor()->go_to(40);
        shot(w, "layout_window_sm_80");
        // Another buffer's notes replace them: the accumulator has no shared-memory accesses.
        QVERIFY(panel->select_buffer("C_local"));
        QVERIFY(w.editor()->margin_notes().empty());
        // An unpadded transpose: its column reads are a 32-way conflict, red in the margin.
        const int before = finished.count();
        w.set_text(QString::fromUtf8(kTranspose), "transpose.py");
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > before, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(panel->buffers() == QStringList{"S"}, 30000);
        QVERIFY(panel->select_buffer("S"));
        QCOMPARE(int(w.editor()->margin_notes().size()), 2);
        QCOMPARE(w.editor()->margin_notes()[1].text, QString("32x"));
        panel->set_cell_size(46);
        shot(w, "layout_window_transpose");
        w.editor()->setModified(false);
    }
};

QTEST_MAIN(TestLayout)
#include "test_layout.moc"
