// The welcome page: the samples in tutorial order with the first line of their docstring,
// beside them the lessons (lessons/, exercises with a gap and a check) with their titles,
// recent files, and a hint at the main shortcuts. Activating an entry opens it.
#pragma once

#include <QStringList>
#include <QWidget>

class QListWidget;

namespace tpui {

// samples/*.py in tutorial order (known names first, then the rest alphabetically).
QStringList tutorial_samples(const QString& samples_dir);
QString samples_dir();
// lessons/ beside the samples: $TILEPLAY_LESSONS, the installed share folder, the working
// directory's, else the source tree's; empty when there is none.
QString lessons_dir();
// The first comment or docstring line of a sample that is not a `# tileplay:` header.
QString sample_summary(const QString& path);

class WelcomePanel : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePanel(QWidget* parent = nullptr);
    void refresh();

Q_SIGNALS:
    void open_file(const QString& path);

private:
    QListWidget* samples_;
    QListWidget* lessons_;
    QListWidget* recent_;
};

}  // namespace tpui
