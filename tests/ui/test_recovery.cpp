// Autosave and crash recovery. A real crashed session: this test binary runs itself as a child
// that opens a file, edits it, autosaves and is killed (SIGKILL), leaving its autosave and a
// stale lock behind. The next window offers that text in the recovery dialog and restores it
// into the editor; declining deletes it; a live session's autosave is never offered; a clean
// exit leaves nothing to recover.
#include <QAction>
#include <QApplication>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <functional>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "session/recovery_store.h"

using namespace tpui;

namespace {

const char* kCrashEnv = "TILEPLAY_TEST_CRASHING_SESSION";

// The child: edit `path` (or an untitled file), autosave, then die without any clean-up.
int crashing_session(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    MainWindow w;
    QString path = qEnvironmentVariable("TILEPLAY_TEST_PATH");
    if (!path.isEmpty()) w.open_file(path);
    w.editor()->append(qEnvironmentVariable("TILEPLAY_TEST_EDIT"));
    w.autosave();
    std::fflush(stdout);
    std::raise(SIGKILL);  // like a crash or `kill -9`: no destructors, no closeEvent
    return 0;
}

// Answers the next message box with `button` once it is up; records what it said.
void answer_next_box(QMessageBox::StandardButton button, QString* text = nullptr, QString* name = nullptr) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, button, text, name] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || !box->button(button)) return;
        timer->stop();  // before click(): deleteLater waits for the outer event loop
        timer->deleteLater();
        if (text) *text = box->text();
        if (name) *name = box->objectName();
        box->button(button)->click();
    });
    timer->start();
}

}  // namespace

class TestRecovery : public QObject {
    Q_OBJECT
private:
    QTemporaryDir files_;

    // Runs a session that crashes after autosaving `edit` on top of `path`.
    void crash_a_session(const QString& path, const QString& edit) {
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(kCrashEnv, "1");
        env.insert("TILEPLAY_TEST_PATH", path);
        env.insert("TILEPLAY_TEST_EDIT", edit);
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(child.waitForFinished(30000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    }

    QString write_file(const QString& name, const QString& text) {
        QString p = files_.filePath(name);
        QFile f(p);
        if (f.open(QIODevice::WriteOnly)) f.write(text.toUtf8());
        return p;
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QDir(RecoveryStore::default_dir()).removeRecursively(); }

    void crashed_session_is_offered_and_restored() {
        QString path = write_file("kernel.py", "# tileplay: kernel=k\nimport tilelang\n");
        crash_a_session(path, "# typed before the crash\n");
        // The crash left its autosave and its (now stale) lock.
        QDir dir(RecoveryStore::default_dir());
        QCOMPARE(dir.entryList({"autosave-*.json"}).size(), 1);
        QCOMPARE(dir.entryList({"autosave-*.lock"}).size(), 1);

        MainWindow w;
        w.show();
        QString asked, name;
        answer_next_box(QMessageBox::Yes, &asked, &name);
        w.offer_recovery();
        QCOMPARE(name, QString("recovery_dialog"));
        QVERIFY2(asked.contains("kernel.py"), qPrintable(asked));
        QVERIFY(w.editor()->text().startsWith("# tileplay: kernel=k\nimport tilelang\n"));
        QVERIFY(w.editor()->text().contains("# typed before the crash"));
        QVERIFY(w.editor()->isModified());  // restored as unsaved work
        QVERIFY(w.windowTitle().startsWith("kernel.py*"));
        // Undo goes back to the file as saved.
        w.editor()->undo();
        QVERIFY(!w.editor()->text().contains("# typed before the crash"));
        w.editor()->redo();
        // The old autosave is gone; the text now lives in this session's own autosave.
        QVERIFY(w.recovery()->left_behind().empty());
        QVERIFY(w.recovery()->has_autosave());
        QCOMPARE(dir.entryList({"autosave-*.json"}).size(), 1);
        // A second window (another live playground) is not offered this session's text.
        MainWindow other;
        QVERIFY(other.recovery()->left_behind().empty());
        answer_next_box(QMessageBox::Discard);
        QVERIFY(w.close());
    }

    void untitled_text_is_restored_and_declining_deletes_it() {
        crash_a_session(QString(), "# an untitled kernel\n");
        {
            MainWindow w;
            QString asked;
            answer_next_box(QMessageBox::No, &asked);
            w.offer_recovery();
            QVERIFY(asked.contains("untitled"));
            QVERIFY(!w.editor()->text().contains("untitled kernel"));
            QVERIFY(w.recovery()->left_behind().empty());  // declined: deleted
        }
        crash_a_session(QString(), "# another untitled kernel\n");
        MainWindow w;
        answer_next_box(QMessageBox::Yes);
        w.offer_recovery();
        QVERIFY(w.editor()->text().contains("# another untitled kernel"));
        QVERIFY(w.windowTitle().startsWith("untitled.py*"));
        answer_next_box(QMessageBox::Discard);
        QVERIFY(w.close());
    }

    void clean_exit_leaves_nothing_to_recover() {
        QString path = write_file("clean.py", "x = 1\n");
        {
            MainWindow w;
            w.show();
            QVERIFY(w.open_file(path));
            w.editor()->append("y = 2\n");
            w.autosave();
            QVERIFY(w.recovery()->has_autosave());
            // While this session lives, its autosave is not "left behind".
            QVERIFY(RecoveryStore().left_behind().empty());
            answer_next_box(QMessageBox::Discard);  // "Save the changes?" on close
            QVERIFY(w.close());
            QVERIFY(!w.recovery()->has_autosave());
        }
        QVERIFY(QDir(RecoveryStore::default_dir()).entryList(QDir::Files).isEmpty());
        MainWindow next;
        bool asked = false;
        auto* probe = new QTimer(&next);
        connect(probe, &QTimer::timeout, &next, [&asked] { asked |= QApplication::activeModalWidget() != nullptr; });
        probe->start(10);
        next.offer_recovery();  // returns at once: nothing to offer
        QTest::qWait(100);
        QVERIFY(!asked);
    }

    void saving_or_undoing_clears_the_autosave() {
        QString path = write_file("saved.py", "a = 1\n");
        MainWindow w;
        QVERIFY(w.open_file(path));
        w.editor()->insert("b = 2\n");
        w.autosave();
        QVERIFY(w.recovery()->has_autosave());
        w.editor()->undo();  // back at the saved text
        w.autosave();
        QVERIFY(!w.recovery()->has_autosave());
        w.editor()->append("c = 3\n");
        w.autosave();
        QVERIFY(w.recovery()->has_autosave());
        for (QAction* a : w.actions())  // File > Save
            if (a->shortcut() == QKeySequence(QKeySequence::Save)) a->trigger();
        QVERIFY(!w.recovery()->has_autosave());
        QVERIFY(!w.editor()->isModified());
    }
};

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsSet(kCrashEnv)) return crashing_session(argc, argv);
    QApplication app(argc, argv);
    TestRecovery t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_recovery.moc"
