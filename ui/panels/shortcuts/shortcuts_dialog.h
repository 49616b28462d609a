// The shortcuts dialog (F1 / Help > Shortcuts): every action of the main window that has a
// key, read from the actions themselves so the list never goes stale.
#pragma once

#include <QDialog>
#include <QList>

class QAction;

namespace tpui {

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent = nullptr);
};

}  // namespace tpui
