// The Output dock: what the last run's kernels printed with T.print (and a failed
// T.device_assert's message), read-only in a monospace view, one section per configuration
// headed by where it ran (CPU interpreter or GPU) and which kernel/config. A Clear button; with
// nothing printed it says where T.print output will appear instead of showing an empty view.
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;

namespace tpui {

class OutputLog;
struct Theme;

class OutputPanel : public QWidget {
    Q_OBJECT
public:
    OutputPanel(OutputLog* log, QWidget* parent = nullptr);
    void apply_theme(const Theme& t, int font_size);

private:
    void render();

    OutputLog* log_;
    const Theme* theme_ = nullptr;
    QLabel* summary_;
    QPushButton* clear_;
    QStackedWidget* stack_;
    QPlainTextEdit* view_;
    QLabel* empty_;
};

}  // namespace tpui
