// MainWindow files: new/open/save, recent files, autosave to a recovery file and restoring it
// after a crash (a clean exit deletes the recovery file).
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QSaveFile>
#include <QStackedWidget>
#include <QStandardPaths>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/results_model.h"
#include "models/sweep_model.h"
#include "panels/welcome/welcome_panel.h"
#include "settings.h"

namespace tpui {

static const char* kNewFileText =
    "# tileplay: kernel=my_kernel\n"
    "import tilelang\n"
    "import tilelang.language as T\n\n\n"
    "@tilelang.jit(out_idx=[-1])\n"
    "def my_kernel(N=1024, block=256, dtype=\"float16\"):\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):\n"
    "        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:\n"
    "            for i in T.Parallel(block):\n"
    "                B[bx * block + i] = A[bx * block + i] * 2\n\n"
    "    return main\n";

void MainWindow::set_text(const QString& text, const QString& path) {
    path_ = path;
    editor_->setText(text);
    editor_->setModified(false);
    results_model_->clear();
    sweep_model_->clear();
    left_->setCurrentIndex(1);
    update_title();
    request_compile(true);
}

bool MainWindow::open_file(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        QMessageBox::warning(this, tr("Open"), tr("cannot open `%1`: %2").arg(path, f.errorString()));
        return false;
    }
    QString abs = QFileInfo(path).absoluteFilePath();
    set_text(QString::fromUtf8(f.readAll()), abs);
    Settings::add_recent_file(abs);
    update_recent_menu();
    return true;
}

void MainWindow::new_file() {
    if (!maybe_save()) return;
    set_text(QString::fromLatin1(kNewFileText), QString());
    editor_->setModified(true);
}

void MainWindow::open_dialog() {
    if (!maybe_save()) return;
    QString dir = path_.isEmpty() ? samples_dir() : QFileInfo(path_).absolutePath();
    QString p = QFileDialog::getOpenFileName(this, tr("Open kernel"), dir, tr("TileLang files (*.py);;All files (*)"));
    if (!p.isEmpty()) open_file(p);
}

bool MainWindow::save() {
    if (path_.isEmpty()) return save_as();
    QSaveFile f(path_);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text) || f.write(editor_->text().toUtf8()) < 0 || !f.commit()) {
        QMessageBox::warning(this, tr("Save"), tr("cannot save `%1`: %2").arg(path_, f.errorString()));
        return false;
    }
    editor_->setModified(false);
    QFile::remove(recovery_path());
    update_title();
    return true;
}

bool MainWindow::save_as() {
    QString p = QFileDialog::getSaveFileName(this, tr("Save kernel"), path_.isEmpty() ? QDir::homePath() + "/kernel.py" : path_,
                                             tr("TileLang files (*.py)"));
    if (p.isEmpty()) return false;
    path_ = QFileInfo(p).absoluteFilePath();
    bool ok = save();
    if (ok) {
        Settings::add_recent_file(path_);
        update_recent_menu();
    }
    return ok;
}

bool MainWindow::maybe_save() {
    if (!editor_->isModified()) return true;
    auto b = QMessageBox::question(this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(path_.isEmpty() ? tr("the new file") : path_),
                                   QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (b == QMessageBox::Save) return save();
    return b == QMessageBox::Discard;
}

QString MainWindow::recovery_path() const {
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    return dir + "/recovery.json";
}

void MainWindow::autosave() {
    if (!editor_->isModified()) return;
    QSaveFile f(recovery_path());
    if (!f.open(QIODevice::WriteOnly)) return;
    QJsonObject o{{"path", path_}, {"text", editor_->text()}};
    f.write(QJsonDocument(o).toJson());
    f.commit();
}

void MainWindow::offer_recovery() {
    QFile f(recovery_path());
    if (!f.open(QIODevice::ReadOnly)) return;
    QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    QString text = o.value("text").toString();
    if (text.isEmpty()) return;
    QString path = o.value("path").toString();
    auto b = QMessageBox::question(this, tr("Recover unsaved work"),
                                   tr("TilePlay did not close cleanly. Restore the unsaved text of %1?")
                                       .arg(path.isEmpty() ? tr("an untitled file") : path));
    if (b == QMessageBox::Yes) {
        set_text(text, path);
        editor_->setModified(true);
    } else {
        QFile::remove(recovery_path());
    }
}

}  // namespace tpui
