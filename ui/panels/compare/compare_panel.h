// The Compare dock: two configurations of a kernel side by side, the one pinned and the one
// compiled now, as PTX or SASS aligned line by line (instructions only one side has coloured;
// renumbered registers are not changes) under a table of instruction-class counts, so the
// user sees what a schedule change did to the code.
#pragma once

#include <QString>
#include <QWidget>

#include "tileplay/inspect.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace tpui {

struct Theme;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    struct Side {
        QString config;  // "block_M=128 num_stages=3 (sm_90a)"
        QString ptx;
        QString sass;    // empty when there is no cubin or no nvdisasm
        bool valid() const { return !ptx.isEmpty(); }
    };

    explicit ComparePanel(QWidget* parent = nullptr);
    void pin(const Side& s);
    void set_current(const Side& s);
    bool has_pin() const { return pinned_.valid(); }
    void apply_theme(const Theme& t);
    // What is shown, for tests: the diff of the selected listing and the counts table.
    const tp::ListingDiff& diff() const { return diff_; }
    QString count_cell(int row, int column) const;
    void show_sass(bool sass);

Q_SIGNALS:
    void pin_requested();  // "Pin current": the main window answers with pin()

private:
    void rebuild();
    void next_change();
    QLabel* summary_;
    QComboBox* isa_;
    QPushButton* pin_button_;
    QPushButton* next_button_;
    QTableWidget* counts_;
    QPlainTextEdit* left_;
    QPlainTextEdit* right_;
    Side pinned_, current_;
    tp::ListingDiff diff_;
    std::vector<int> change_rows_;  // aligned rows where a change starts
    const Theme* theme_ = nullptr;
};

}  // namespace tpui
