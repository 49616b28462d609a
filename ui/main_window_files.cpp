// MainWindow files: new/open/save, recent files, autosave to this session's recovery file
// (session/recovery_store.h) and restoring what a crashed session left behind.
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QSaveFile>
#include <QStackedWidget>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/parameters_model.h"
#include "models/results_model.h"
#include "models/sweep_model.h"
#include "panels/parameters/parameters_panel.h"
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
    // Nothing of the previous document carries over: its kernel name and parameter values
    // would be compiled into this one (a request built while the picker still said `matmul`,
    // or M=4096 from one sample landing in another's run). The new file's own header and
    // defaults fill them when its compile comes back.
    params_->set_factories({}, QString());
    params_model_->clear();
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
    set_text(QString(), QString());
    // Typed in as an edit, so the new file counts as unsaved (setModified(true) is a no-op).
    editor_->insert(QString::fromLatin1(kNewFileText));
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
    recovery_->discard();
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

void MainWindow::autosave() {
    // Back at the saved state (undo), there is nothing to recover any more.
    if (!editor_->isModified()) recovery_->discard();
    else recovery_->save(path_, editor_->text());
}

void MainWindow::offer_recovery() {
    std::vector<RecoveredText> found = recovery_->left_behind();
    if (found.empty()) return;
    const RecoveredText& r = found.front();
    QMessageBox box(QMessageBox::Question, tr("Recover unsaved work"),
                    tr("TilePlay did not close cleanly. Restore the unsaved text of %1, autosaved %2?")
                        .arg(r.path.isEmpty() ? tr("an untitled file") : QStringLiteral("<code>%1</code>").arg(r.path.toHtmlEscaped()),
                             QLocale().toString(r.saved.toLocalTime(), QLocale::ShortFormat)),
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setObjectName("recovery_dialog");
    box.setInformativeText(tr("Choosing No deletes the autosaved copy."));
    box.setDetailedText(r.text.left(4000));
    if (box.exec() == QMessageBox::Yes) restore(r);
    RecoveryStore::remove(r);
}

void MainWindow::restore(const RecoveredText& r) {
    // Open the file as saved first, then apply the recovered text as one edit: it shows as
    // unsaved, autosaves again, and undo goes back to what is on disk.
    if (!r.path.isEmpty() && QFileInfo::exists(r.path)) open_file(r.path);
    else set_text(QString(), r.path);
    editor_->selectAll();
    editor_->replaceSelectedText(r.text);
    editor_->setCursorPosition(0, 0);
    autosave();  // safe in this session's file before the old one is removed
}

}  // namespace tpui
