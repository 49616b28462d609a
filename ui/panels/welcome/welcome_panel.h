// The welcome page: the samples in tutorial order with the first line of their docstring,
// recent files, and a hint at the main shortcuts. Activating an entry opens it.
#pragma once

#include <QStringList>
#include <QWidget>

class QListWidget;

namespace tpui {

// samples/*.py in tutorial order (known names first, then the rest alphabetically).
QStringList tutorial_samples(const QString& samples_dir);
QString samples_dir();
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
    QListWidget* recent_;
};

}  // namespace tpui
