// LayoutPanel (see layout_panel.h).
#include "panels/layout/layout_panel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "tileplay/layout.h"

namespace tpui {

namespace {
constexpr int kTextCell = 44;  // cells this wide or wider show thread:register / bank as text
}

LayoutPanel::LayoutPanel(QWidget* parent) : QWidget(parent) {
    model_ = new LayoutGridModel(this);
    buffers_ = new QComboBox;
    buffers_->setObjectName("layout_buffer");
    buffers_->setMinimumContentsLength(14);
    zoom_ = new QSlider(Qt::Horizontal);
    zoom_->setObjectName("layout_zoom");
    zoom_->setRange(4, 56);
    zoom_->setValue(12);
    zoom_->setMaximumWidth(160);
    zoom_->setToolTip(tr("Cell size; cells of %1 px and more show thread:register (fragments) or the bank (shared)").arg(kTextCell));
    summary_ = new QLabel;
    summary_->setObjectName("layout_summary");
    summary_->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Buffer")));
    top->addWidget(buffers_);
    top->addWidget(new QLabel(tr("Zoom")));
    top->addWidget(zoom_);
    top->addWidget(summary_, 1);

    grid_ = new QTableView;
    grid_->setObjectName("layout_grid");
    grid_->setModel(model_);
    grid_->setSelectionMode(QAbstractItemView::SingleSelection);
    grid_->setShowGrid(true);
    for (QHeaderView* h : {grid_->horizontalHeader(), grid_->verticalHeader()}) {
        h->setSectionResizeMode(QHeaderView::Fixed);
        h->setMinimumSectionSize(2);
        h->setFont(QFontDatabase::systemFont(QFontDatabase::SmallestReadableFont));
    }
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    grid_->setFont(QFont(mono.family(), 7));
    swizzle_ = new QPlainTextEdit;
    swizzle_->setObjectName("layout_swizzle");
    swizzle_->setReadOnly(true);
    swizzle_->setFont(mono);
    swizzle_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    accesses_ = new QTreeWidget;
    accesses_->setObjectName("layout_accesses");
    accesses_->setRootIsDecorated(false);
    accesses_->setHeaderLabels({tr("Line"), tr("Access"), tr("Conflicts"), tr("Wavefronts")});
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(swizzle_);
    right->addWidget(accesses_);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(grid_);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(4, 4, 4, 4);
    v->addLayout(top);
    v->addWidget(split, 1);

    connect(buffers_, &QComboBox::currentIndexChanged, this, [this] { show_buffer(); });
    connect(zoom_, &QSlider::valueChanged, this, &LayoutPanel::set_cell_size);
    connect(accesses_, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem* it) { Q_EMIT go_to(it->data(0, Qt::UserRole).toInt(), it->data(0, Qt::UserRole + 1).toInt()); });
    set_cell_size(zoom_->value());
}

void LayoutPanel::set_cell_size(int px) {
    if (zoom_->value() != px) {
        zoom_->setValue(px);  // comes back here through valueChanged
        return;
    }
    grid_->horizontalHeader()->setDefaultSectionSize(px);
    grid_->verticalHeader()->setDefaultSectionSize(std::max(px * 2 / 3, 2));
    model_->set_show_text(px >= kTextCell);
    // Row and column numbers only where they fit; the overview is the colours alone.
    grid_->horizontalHeader()->setVisible(px >= 14);
    grid_->verticalHeader()->setVisible(px >= 14);
}

void LayoutPanel::set_request(const tp::CompileRequest& req, bool ok) {
    req_ = req;
    req_.print_after.clear();
    req_.print_after_all = false;
    have_request_ = ok;
    dirty_ = true;
    if (isVisible()) {
        refresh();
    } else if (!notes_.empty()) {
        // The notes were the last compile's lines: hidden, the dock keeps none in the margin.
        notes_.clear();
        Q_EMIT margin_notes_changed(notes_);
    }
}

void LayoutPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    refresh();
}

QString LayoutPanel::buffer() const { return buffers_->currentData().toString(); }

QStringList LayoutPanel::buffers() const {
    QStringList out;
    for (int i = 0; i < buffers_->count(); ++i) out << buffers_->itemData(i).toString();
    return out;
}

bool LayoutPanel::select_buffer(const QString& name) {
    if (dirty_) refresh();
    int i = buffers_->findData(name);
    if (i < 0) return false;
    if (i == buffers_->currentIndex())
        show_buffer();
    else
        buffers_->setCurrentIndex(i);
    return true;
}

int LayoutPanel::access_count() const { return accesses_->topLevelItemCount(); }

void LayoutPanel::refresh() {
    if (!dirty_) return;
    dirty_ = false;
    const QString keep = buffer();
    QSignalBlocker block(buffers_);
    buffers_->clear();
    if (!have_request_) {
        model_->set_report(nullptr);
        summary_->setText(tr("The kernel does not compile: no layout to show."));
        notes_.clear();
        Q_EMIT margin_notes_changed(notes_);
        return;
    }
    tp::LayoutReport list = tp::inspect_layout(req_, "");
    for (const auto& b : list.buffers)
        buffers_->addItem(QStringLiteral("%1 (%2)").arg(QString::fromStdString(b.name), QString::fromStdString(b.scope)),
                          QString::fromStdString(b.name));
    int i = buffers_->findData(keep);
    buffers_->setCurrentIndex(i >= 0 ? i : (buffers_->count() ? 0 : -1));
    show_buffer();
}

void LayoutPanel::show_buffer() {
    const QString name = buffer();
    std::shared_ptr<tp::LayoutReport> r;
    if (have_request_ && !name.isEmpty()) r = std::make_shared<tp::LayoutReport>(tp::inspect_layout(req_, name.toStdString()));
    model_->set_report(r && r->ok ? r : nullptr);
    notes_ = r && r->ok ? LayoutGridModel::margin_notes(*r) : std::vector<LayoutMarginNote>{};
    if (!r || !r->ok) {
        summary_->setText(r ? QString::fromStdString(r->error) : tr("No fragment or shared buffer in this kernel."));
    } else {
        const tp::BufferLayout& l = r->layout;
        QString s = QStringLiteral("<b>%1</b> %2 %3, %4 x %5")
                        .arg(QString::fromStdString(l.name), QString::fromStdString(l.scope), QString::fromStdString(l.dtype))
                        .arg(l.rows)
                        .arg(l.cols);
        if (l.stages > 1) s += tr(" (x %1 stages)").arg(l.stages);
        s += QStringLiteral(" on %1 · ").arg(QString::fromStdString(r->target));
        s += l.scope == "fragment" ? tr("colour: thread") : tr("colour: bank");
        summary_->setText(s);
    }
    show_swizzle();
    show_accesses();
    Q_EMIT margin_notes_changed(notes_);
}

void LayoutPanel::show_swizzle() {
    const tp::LayoutReport* r = model_->report();
    if (!r) {
        swizzle_->clear();
        return;
    }
    const tp::BufferLayout& l = r->layout;
    QStringList out;
    if (l.scope == "fragment") {
        out << QString::fromStdString(l.description);
        out << tr("%1 registers per thread, %2 threads").arg(l.regs_per_thread).arg(l.threads);
        out << (l.wgmma ? tr("wgmma accumulator: warp w of a warpgroup holds rows 16w..16w+15 of each m64 block")
                        : tr("registers: the order of the thread's local array (mma.sync: c0..c3 per m16n8 tile)"));
        swizzle_->setPlainText(out.join('\n'));
        return;
    }
    const tp::LayoutSwizzle& s = l.swizzle;
    out << s.formula.c_str();
    if (!s.cutlass.empty())
        out << QString::fromStdString(s.cutlass) + (s.mode_bytes ? tr(" (the %1B mode of TMA / wgmma)").arg(s.mode_bytes) : QString());
    if (s.swizzled) {
        const int64_t period = s.rows_per_key * (s.mask + 1), chunks = s.pitch / s.vec;
        out << tr("XOR pattern: stored chunk of each 16-byte chunk");
        for (int64_t row = 0; row < std::min(period, l.rows); ++row) {
            QString line = QStringLiteral("row %1:").arg(row, 3);
            for (int64_t c = 0; c < chunks; ++c) line += QStringLiteral(" %1").arg(c ^ ((row / s.rows_per_key) & s.mask), 2);
            out << line;
        }
    }
    swizzle_->setPlainText(out.join('\n'));
}

void LayoutPanel::show_accesses() {
    accesses_->clear();
    const tp::LayoutReport* r = model_->report();
    if (!r) return;
    for (const auto& a : r->layout.accesses) {
        auto* it = new QTreeWidgetItem(accesses_);
        it->setText(0, QString::number(a.span.begin.line));
        it->setData(0, Qt::UserRole, int(a.span.begin.line));
        it->setData(0, Qt::UserRole + 1, int(a.span.begin.col));
        it->setText(1, QString::fromStdString((a.write ? "write: " : "read: ") + a.what));
        it->setText(2, a.degree > 0 ? (a.degree == 1 ? tr("none") : tr("%1-way").arg(a.degree)) : tr("not counted"));
        it->setText(3, a.degree > 0 ? tr("%1 / %2 ideal").arg(a.wavefronts).arg(a.ideal_wavefronts) : QString());
        QString tip = QString::fromStdString(a.call);
        if (!a.note.empty()) tip += (tip.isEmpty() ? "" : "\n") + QString::fromStdString(a.note);
        for (int c = 0; c < 4; ++c) it->setToolTip(c, tip);
        if (a.degree > 1) it->setForeground(2, QColor(200, 40, 40));
    }
    for (int c = 0; c < 4; ++c) accesses_->resizeColumnToContents(c);
}

}  // namespace tpui
