// The layout panel's grid as a table model over one tp::LayoutReport (core's layout model): a
// cell per element, coloured by the thread that holds it (fragments) or by its bank (shared
// tiles), with thread:register or bank as text when the view is zoomed in far enough, and a
// tooltip naming thread, warp, warpgroup, register or byte, bank and swizzled chunk, and the DSL
// lines that read and write the element. Also the margin notes: one per DSL line with a counted
// shared-memory access, its worst bank-conflict degree.
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <QString>
#include <memory>
#include <vector>

#include "tileplay/layout.h"

namespace tpui {

struct LayoutMarginNote {
    int line = 0;     // 1-based DSL line
    int degree = 0;   // worst bank-conflict degree of the line's counted accesses (1: none)
    QString text;     // "32x" / "ok"
    QString tooltip;  // every counted access of the line
};

class LayoutGridModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit LayoutGridModel(QObject* parent = nullptr);

    void set_report(std::shared_ptr<const tp::LayoutReport> r);
    const tp::LayoutReport* report() const { return report_.get(); }
    // Text in the cells (thread:register or bank) only when there is room for it.
    void set_show_text(bool on);
    bool show_text() const { return show_text_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    // The element's text (what a zoomed cell shows) and its tooltip, as plain text lines.
    QString cell_text(int row, int col) const;
    QString tooltip(int row, int col) const;
    // The colour key of an element: the first owner's thread, or the bank (-1: none).
    int color_key(int row, int col) const;

    static QColor key_color(int key, int keys);
    static std::vector<LayoutMarginNote> margin_notes(const tp::LayoutReport& r);

private:
    std::shared_ptr<const tp::LayoutReport> report_;
    bool show_text_ = false;
};

}  // namespace tpui
