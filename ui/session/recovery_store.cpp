// RecoveryStore: the lock file carries the owner's pid, so QLockFile can tell a crashed
// session's lock (process gone) from a live one's.
#include "session/recovery_store.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>

namespace tpui {

namespace {

QString lock_path_for(const QString& autosave) { return autosave.left(autosave.size() - 5) + ".lock"; }

}  // namespace

RecoveryStore::RecoveryStore(const QString& dir) : dir_(dir) {
    // pid + start time: a later process that reuses the pid still gets its own files.
    session_ = QStringLiteral("%1-%2").arg(QCoreApplication::applicationPid()).arg(QDateTime::currentMSecsSinceEpoch(), 0, 36);
}

RecoveryStore::~RecoveryStore() = default;  // QLockFile's destructor unlocks

QString RecoveryStore::default_dir() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery";
}

QString RecoveryStore::autosave_file() const { return dir_ + "/autosave-" + session_ + ".json"; }

bool RecoveryStore::has_autosave() const { return QFile::exists(autosave_file()); }

bool RecoveryStore::save(const QString& path, const QString& text) {
    if (!lock_) {
        QDir().mkpath(dir_);
        auto lock = std::make_unique<QLockFile>(lock_path_for(autosave_file()));
        lock->setStaleLockTime(0);  // held for the whole session: never stale by age
        if (!lock->tryLock(0)) return false;
        lock_ = std::move(lock);
    }
    QSaveFile f(autosave_file());
    if (!f.open(QIODevice::WriteOnly)) return false;
    QJsonObject o{{"path", path}, {"text", text}, {"saved", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}};
    f.write(QJsonDocument(o).toJson());
    return f.commit();
}

void RecoveryStore::discard() {
    QFile::remove(autosave_file());
    if (lock_) lock_->unlock();
    lock_.reset();
}

std::vector<RecoveredText> RecoveryStore::left_behind() const {
    std::vector<RecoveredText> out;
    const QString mine = autosave_file();
    for (const QFileInfo& fi : QDir(dir_).entryInfoList({"autosave-*.json"}, QDir::Files)) {
        if (fi.absoluteFilePath() == QFileInfo(mine).absoluteFilePath()) continue;
        // Taking the lock succeeds only when its owner is gone (or it never existed).
        QLockFile probe(lock_path_for(fi.absoluteFilePath()));
        probe.setStaleLockTime(0);
        if (!probe.tryLock(0)) continue;  // a live session's autosave
        probe.unlock();
        QFile f(fi.absoluteFilePath());
        if (!f.open(QIODevice::ReadOnly)) continue;
        QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        RecoveredText r;
        r.autosave_file = fi.absoluteFilePath();
        r.path = o.value("path").toString();
        r.text = o.value("text").toString();
        r.saved = QDateTime::fromString(o.value("saved").toString(), Qt::ISODateWithMs);
        if (!r.saved.isValid()) r.saved = fi.lastModified();
        if (r.text.isEmpty()) {
            remove(r);  // nothing worth offering
            continue;
        }
        out.push_back(std::move(r));
    }
    std::stable_sort(out.begin(), out.end(), [](const RecoveredText& a, const RecoveredText& b) { return a.saved > b.saved; });
    return out;
}

void RecoveryStore::remove(const RecoveredText& r) {
    QFile::remove(r.autosave_file);
    QFile::remove(lock_path_for(r.autosave_file));
}

}  // namespace tpui
