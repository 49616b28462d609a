// The Layout dock: pick a fragment or shared buffer of the compiled kernel and see which thread
// and register holds each element (mma.sync / wgmma accumulators and the rest), or where each
// shared element lands after the swizzle (bank per cell, the XOR pattern), with every access of
// the buffer and its bank-conflict degree; a cell's tooltip names its owner and the DSL lines
// that read and write it. The counted accesses become margin notes in the editor (the window
// routes margin_notes_changed there). Computed by core's layout model (tileplay/layout.h) from
// the same request the window compiled, when the dock is visible (hidden, it leaves no notes).
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "models/layout_grid_model.h"
#include "tileplay/compiler.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSlider;
class QTableView;
class QTreeWidget;

namespace tpui {

class LayoutPanel : public QWidget {
    Q_OBJECT
public:
    explicit LayoutPanel(QWidget* parent = nullptr);

    // The window compiled `req` (ok: without errors); the layout follows when the dock shows.
    void set_request(const tp::CompileRequest& req, bool ok);
    bool select_buffer(const QString& name);  // false when the kernel has no such buffer
    QString buffer() const;
    QStringList buffers() const;
    void set_cell_size(int px);  // the zoom: text appears in cells of 44 px and more
    LayoutGridModel* model() const { return model_; }
    const std::vector<LayoutMarginNote>& notes() const { return notes_; }
    int access_count() const;

Q_SIGNALS:
    void go_to(int line, int col);
    void margin_notes_changed(const std::vector<LayoutMarginNote>& notes);

protected:
    void showEvent(QShowEvent* e) override;

private:
    void refresh();      // the buffer list and the chosen buffer, when dirty
    void show_buffer();  // the model of the combo's buffer
    void show_accesses();
    void show_swizzle();

    QComboBox* buffers_ = nullptr;
    QSlider* zoom_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableView* grid_ = nullptr;
    QPlainTextEdit* swizzle_ = nullptr;
    QTreeWidget* accesses_ = nullptr;
    LayoutGridModel* model_ = nullptr;
    tp::CompileRequest req_;
    bool have_request_ = false, dirty_ = false;
    std::vector<LayoutMarginNote> notes_;
};

}  // namespace tpui
