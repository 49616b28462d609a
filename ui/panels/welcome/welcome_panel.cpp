// WelcomePanel: reads samples/ next to the binary's source tree or the working directory.
#include "panels/welcome/welcome_panel.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QTextStream>
#include <QVBoxLayout>

#include "settings.h"
#include "tileplay/lessons.h"

namespace tpui {

QString samples_dir() {
    QString env = qEnvironmentVariable("TILEPLAY_SAMPLES");
    QStringList candidates = {env, QCoreApplication::applicationDirPath() + "/../share/tileplay/samples",
                              QDir::currentPath() + "/samples", QStringLiteral(TILEPLAY_SOURCE_DIR "/samples")};
    for (const auto& c : candidates)
        if (!c.isEmpty() && QDir(c).exists()) return QDir(c).canonicalPath();
    return {};
}

QString lessons_dir() {
    QString env = qEnvironmentVariable("TILEPLAY_LESSONS");
    QStringList candidates = {env, QCoreApplication::applicationDirPath() + "/../share/tileplay/lessons", QDir::currentPath() + "/lessons",
                              QStringLiteral(TILEPLAY_SOURCE_DIR "/lessons")};
    for (const auto& c : candidates)
        if (!c.isEmpty() && QDir(c).exists()) return QDir(c).canonicalPath();
    return {};
}

QStringList tutorial_samples(const QString& dir) {
    static const QStringList order = {"vector_add", "gemm", "gemm_sweep", "gemm_bias_gelu", "softmax",
                                      "flash_attention", "gemm_autotune", "debug_print"};
    QStringList files = QDir(dir).entryList({"*.py"}, QDir::Files, QDir::Name);
    QStringList out;
    for (const auto& name : order)
        if (files.contains(name + ".py")) out << QDir(dir).filePath(name + ".py");
    for (const auto& f : files)
        if (!order.contains(QFileInfo(f).completeBaseName())) out << QDir(dir).filePath(f);
    return out;
}

QString sample_summary(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    QTextStream in(&f);
    for (int i = 0; i < 40 && !in.atEnd(); ++i) {
        QString l = in.readLine().trimmed();
        if (l.startsWith("# tileplay:") || l.startsWith("#!") || l.isEmpty()) continue;
        if (l.startsWith('#')) return l.mid(1).trimmed();
        if (l.startsWith("\"\"\"") || l.startsWith("'''")) {
            QString s = l.mid(3).remove("\"\"\"").remove("'''").trimmed();
            if (s.isEmpty() && !in.atEnd()) s = in.readLine().trimmed();
            return s;
        }
        break;
    }
    return {};
}

WelcomePanel::WelcomePanel(QWidget* parent) : QWidget(parent) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(24, 16, 24, 16);
    auto* title = new QLabel(tr("<h2>TilePlay</h2><p>Write a TileLang kernel on the left; CUDA, PTX and SASS follow "
                                "as you type. <b>Ctrl+Enter</b> runs it, <b>Ctrl+B</b> benchmarks it.</p>"));
    title->setWordWrap(true);
    l->addWidget(title);
    // Samples and lessons side by side: the lessons follow the samples' order, each with a gap
    // to fill and a check that says when it is right.
    auto* lists = new QHBoxLayout;
    auto column = [lists](const QString& heading, const char* name) {
        auto* c = new QVBoxLayout;
        c->addWidget(new QLabel(heading));
        auto* list = new QListWidget;
        list->setObjectName(name);
        c->addWidget(list, 1);
        lists->addLayout(c, 1);
        return list;
    };
    samples_ = column(tr("<b>Samples</b> (tutorial order)"), "welcome_samples");
    lessons_ = column(tr("<b>Lessons</b> (fill the gap; Run checks it)"), "welcome_lessons");
    // Two lines a lesson, the summary wrapped rather than cut at the list's edge.
    lessons_->setWordWrap(true);
    lessons_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    l->addLayout(lists, 2);
    l->addWidget(new QLabel(tr("<b>Recent files</b>")));
    recent_ = new QListWidget;
    l->addWidget(recent_, 1);
    for (auto* list : {samples_, lessons_, recent_})
        connect(list, &QListWidget::itemActivated, this, [this](QListWidgetItem* it) { Q_EMIT open_file(it->data(Qt::UserRole).toString()); });
    refresh();
}

void WelcomePanel::refresh() {
    samples_->clear();
    int n = 1;
    for (const auto& p : tutorial_samples(samples_dir())) {
        QString summary = sample_summary(p);
        auto* it = new QListWidgetItem(QStringLiteral("%1. %2%3").arg(n++).arg(QFileInfo(p).fileName(),
                                                                             summary.isEmpty() ? QString() : " — " + summary));
        it->setData(Qt::UserRole, p);
        it->setToolTip(p);
        samples_->addItem(it);
    }
    lessons_->clear();
    n = 1;
    const QString lessons = lessons_dir();
    for (const auto& lesson : lessons.isEmpty() ? std::vector<tp::LessonInfo>{} : tp::list_lessons(lessons.toStdString())) {
        // The summary starts "Lesson N: ...": the number is already in the row.
        const QString title = QString::fromStdString(lesson.title);
        QString summary = QString::fromStdString(lesson.summary);
        if (summary.startsWith("Lesson ") && summary.contains(": ")) summary = summary.section(": ", 1, -1);
        if (!summary.isEmpty()) summary[0] = summary[0].toUpper();
        auto* it = new QListWidgetItem(QStringLiteral("%1. %2").arg(n++).arg(title) + (summary.isEmpty() ? QString() : "\n     " + summary));
        it->setData(Qt::UserRole, QString::fromStdString(lesson.path));
        it->setToolTip(QString::fromStdString(lesson.path));
        lessons_->addItem(it);
    }
    recent_->clear();
    for (const auto& p : Settings::recent_files()) {
        if (!QFileInfo::exists(p)) continue;
        auto* it = new QListWidgetItem(p);
        it->setData(Qt::UserRole, p);
        recent_->addItem(it);
    }
}

}  // namespace tpui
