// The whole window offscreen: open a sample, wait for the first compile, check that every
// panel got its part (or a message saying why not), switch themes, export charts.
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "charts/charts.h"
#include "editor/dsl_editor.h"
#include "main_window.h"
#include "panels/welcome/welcome_panel.h"
#include "settings.h"

using namespace tpui;

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void samples_in_tutorial_order() {
        QStringList s = tutorial_samples(TILEPLAY_SOURCE_DIR "/samples");
        QVERIFY(!s.isEmpty());
        QVERIFY(s.first().endsWith("vector_add.py"));
        int gemm = -1, gelu = -1;
        for (int i = 0; i < s.size(); ++i) {
            if (s[i].endsWith("/gemm.py")) gemm = i;
            if (s[i].endsWith("/gemm_bias_gelu.py")) gelu = i;
        }
        if (gemm >= 0 && gelu >= 0) QVERIFY(gemm < gelu);
    }

    void compile_on_open_and_on_edit() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy finished(w.compile_service(), &CompileService::finished);
        QVERIFY(w.open_file(TILEPLAY_SOURCE_DIR "/samples/vector_add.py"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() >= 1, 60000);
        auto r = finished.last().at(0).value<CompileResultPtr>();
        QVERIFY(r);
        QVERIFY(!r->factories.empty());
        // A typo shows up as a problem in the editor after the debounce.
        int before = finished.count();
        w.editor()->append("\nthis is not python(\n");
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > before, 30000);
        QVERIFY(!w.editor()->problems().empty());
        QVERIFY(w.editor()->problems().front().line > 0);
        w.set_theme("light");
        QCOMPARE(Settings::theme(), QString("light"));
        w.set_theme("dark");
        w.editor()->setModified(false);
    }

    void charts_export() {
        QTemporaryDir dir;
        BarChart c("Latency", "ms", true);
        c.set_data({{"a", 2.0}, {"b", 1.0}}, {{"cuBLAS", 1.5}});
        QCOMPARE(c.bars().front().label, QString("b"));  // sorted, fastest first
        QVERIFY(c.save_png(dir.filePath("c.png"), {400, 300}));
        QVERIFY(QImage(dir.filePath("c.png")).width() == 400);
        QVERIFY(c.save_csv(dir.filePath("c.csv")));
        QVERIFY(c.to_csv().contains("cuBLAS,1.5,reference"));
        RooflineChart r;
        r.set_roofs("H200", 989, 4800);
        r.set_points({{"x", 100, 300}});
        QVERIFY(r.to_csv().contains("x,100,300,480"));  // memory roof at 100 FLOP/B: 480 TFLOP/s
        QVERIFY(r.save_png(dir.filePath("r.png"), {400, 300}));
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
