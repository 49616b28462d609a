// The Problems dock: the diagnostics of the last compile; activating a row moves the editor
// caret to it.
#pragma once

#include <QWidget>

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
    QTreeView* view_;
};

}  // namespace tpui
