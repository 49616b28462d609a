// The Problems dock: the diagnostics of the last compile; activating a row moves the editor
// caret to it. With none, it says so instead of showing an empty table.
#pragma once

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTreeView;

namespace tpui {

class ProblemsModel;

class ProblemsPanel : public QWidget {
    Q_OBJECT
public:
    ProblemsPanel(ProblemsModel* model, QWidget* parent = nullptr);

Q_SIGNALS:
    void go_to(int line, int col);

private:
    QStackedWidget* stack_;
    QTreeView* view_;
    QLabel* empty_;
};

}  // namespace tpui
