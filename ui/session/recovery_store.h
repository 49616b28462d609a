// Autosave and crash recovery, widget-free. Each running playground keeps its unsaved text in
// <dir>/autosave-<session>.json next to a lock file it holds while it runs. A clean exit (or a
// save) removes both; an autosave whose lock is stale (its process is gone) is what a crash
// left behind, and is offered on the next start. Several playgrounds may run at once: a
// live session's autosave is never offered to another.
#pragma once

#include <QDateTime>
#include <QString>
#include <memory>
#include <vector>

class QLockFile;

namespace tpui {

struct RecoveredText {
    QString autosave_file;  // where it was found
    QString path;           // the document's file, empty for an untitled one
    QString text;
    QDateTime saved;
};

class RecoveryStore {
public:
    explicit RecoveryStore(const QString& dir = default_dir());
    ~RecoveryStore();  // unlocks; the autosave stays unless discard() ran (a crash keeps both)
    RecoveryStore(const RecoveryStore&) = delete;
    RecoveryStore& operator=(const RecoveryStore&) = delete;

    static QString default_dir();  // AppDataLocation/recovery (test mode in tests)

    // Writes this session's autosave (atomically); takes the session lock on first use.
    bool save(const QString& path, const QString& text);
    // Nothing of this session to recover any more: the text was saved or the user left cleanly.
    void discard();
    QString autosave_file() const;
    bool has_autosave() const;

    // Autosaves of sessions that ended without a clean exit, newest first.
    std::vector<RecoveredText> left_behind() const;
    // Forgets one (after it was restored or declined).
    static void remove(const RecoveredText& r);

private:
    QString dir_;
    QString session_;
    std::unique_ptr<QLockFile> lock_;
};

}  // namespace tpui
