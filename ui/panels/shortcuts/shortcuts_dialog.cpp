// ShortcutsDialog: a two-column table, plus the editor's own keys that are not QActions.
#include "panels/shortcuts/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tpui {

ShortcutsDialog::ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Keyboard shortcuts"));
    auto* table = new QTableWidget(0, 2);
    table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto add = [&](const QString& what, const QString& keys) {
        int r = table->rowCount();
        table->insertRow(r);
        table->setItem(r, 0, new QTableWidgetItem(what));
        table->setItem(r, 1, new QTableWidgetItem(keys));
    };
    for (QAction* a : actions)
        if (!a->shortcut().isEmpty()) add(a->text().remove('&'), a->shortcut().toString(QKeySequence::NativeText));
    add(tr("Complete T.* builtin"), tr("Ctrl+Space"));
    add(tr("Undo / redo"), tr("Ctrl+Z / Ctrl+Shift+Z"));
    add(tr("Duplicate line"), tr("Ctrl+D"));
    add(tr("Close find bar"), tr("Escape"));
    table->resizeColumnsToContents();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* l = new QVBoxLayout(this);
    l->addWidget(table);
    l->addWidget(buttons);
    resize(480, 520);
}

}  // namespace tpui
