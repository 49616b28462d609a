// Find/replace bar under the editor (Ctrl+F, Ctrl+H, F3, Shift+F3, Escape): case and
// whole-word options, replace one or all, as one undo step.
#pragma once

#include <QWidget>

class QLineEdit;
class QCheckBox;
class QLabel;
class QsciScintilla;

namespace tpui {

class FindBar : public QWidget {
    Q_OBJECT
public:
    FindBar(QsciScintilla* editor, QWidget* parent = nullptr);
    void show_find(bool with_replace);
    bool find_next(bool forward = true);
    int replace_all();

protected:
    void keyPressEvent(QKeyEvent* e) override;

private:
    QsciScintilla* editor_;
    QLineEdit* find_;
    QLineEdit* replace_;
    QCheckBox* case_;
    QCheckBox* word_;
    QWidget* replace_row_;
    QLabel* status_;
};

}  // namespace tpui
