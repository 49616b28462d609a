// CodeViewsPanel: owns the line-link index built from each result's maps.
#include "panels/code_views/code_views_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "theme.h"
#include "views/code_view.h"
#include "views/sass.h"

namespace tpui {

CodeViewsPanel::CodeViewsPanel(QWidget* parent) : QWidget(parent) {
    cuda_ = new CodeView(CodeKind::Cuda);
    ptx_ = new CodeView(CodeKind::Ptx);
    sass_ = new CodeView(CodeKind::Sass);
    ir_ = new CodeView(CodeKind::Ir);
    pass_ = new QComboBox;
    pass_->setToolTip(tr("Show the Tile IR after this pass"));
    left_ = new QTabWidget;
    right_ = new QTabWidget;
    left_->addTab(wrap(cuda_, cuda_header_), tr("CUDA C++"));
    left_->addTab(wrap(ir_, ir_header_, pass_), tr("IR"));
    right_->addTab(wrap(ptx_, ptx_header_), tr("PTX"));
    right_->addTab(wrap(sass_, sass_header_), tr("SASS"));
    split_ = new QSplitter(Qt::Horizontal);
    split_->setObjectName("code_views_splitter");
    split_->addWidget(left_);
    split_->addWidget(right_);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(split_);
    connect(pass_, &QComboBox::currentIndexChanged, this, &CodeViewsPanel::show_pass);
    const std::pair<CodeView*, LinkedView> linked[] = {{cuda_, LinkedView::Cuda}, {ptx_, LinkedView::Ptx}, {sass_, LinkedView::Sass}};
    for (auto [view, kind] : linked)
        connect(view, &CodeView::caret_line_changed, this, [this, kind = kind](int line) {
            int dsl = links_.dsl_line(kind, line);
            highlight_dsl_line(dsl, kind);
            Q_EMIT dsl_line_selected(dsl);
        });
    update_headers();
}

QWidget* CodeViewsPanel::wrap(CodeView* v, QLabel*& header, QWidget* extra) {
    auto* w = new QWidget;
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(6, 2, 6, 0);
    header = new QLabel;
    header->setTextFormat(Qt::RichText);
    // The counts may be cut rather than hold the pane (and so the editor) wide.
    header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    header->setMinimumWidth(0);
    row->addWidget(header, 1);
    if (extra) row->addWidget(extra);
    l->addLayout(row);
    l->addWidget(v, 1);
    return w;
}

CodeView* CodeViewsPanel::view(LinkedView v) const {
    switch (v) {
        case LinkedView::Cuda: return cuda_;
        case LinkedView::Ptx: return ptx_;
        case LinkedView::Sass: return sass_;
        case LinkedView::Dsl: break;
    }
    return nullptr;
}

void CodeViewsPanel::set_result(std::shared_ptr<const tp::CompileResult> r) {
    result_ = std::move(r);
    const tp::CompileResult& c = *result_;
    links_.clear();
    QString empty = c.ok ? QString() : tr("// not generated: the compile stopped with errors (see Problems)");
    // The links carry what the #line directives say; the view shows the code without them.
    StrippedCuda cuda = strip_line_directives(c.cuda, c.cuda_lines);
    cuda_->set_code(c.cuda.empty() ? empty : QString::fromStdString(cuda.text), cuda.lines);
    QString no_ptx = !c.cuda.empty() && !c.nvrtc_log.empty() ? "// NVRTC log:\n" + QString::fromStdString(c.nvrtc_log) : empty;
    ptx_->set_code(c.ptx.empty() ? no_ptx : QString::fromStdString(c.ptx), c.ptx_lines);
    SassOutput sass = disassemble(c.cubin, c.file ? QString::fromStdString(c.file->path()) : QString());
    sass_->set_code(sass.text, sass.lines);
    sass_text_ = sass.ok ? sass.text : QString();
    links_.set_map(LinkedView::Cuda, cuda.lines);
    links_.set_map(LinkedView::Ptx, c.ptx_lines);
    links_.set_map(LinkedView::Sass, sass.lines);

    QString keep = pass_->currentText();
    pass_->blockSignals(true);
    pass_->clear();
    pass_->addItem(tr("after evaluation"));
    for (const auto& p : c.passes) pass_->addItem(QString::fromStdString(p.pass));
    if (!c.lowered.empty()) pass_->addItem(tr("lowered (all passes)"));
    int idx = pass_->findText(keep);
    pass_->setCurrentIndex(idx >= 0 ? idx : 0);
    pass_->blockSignals(false);
    show_pass(pass_->currentIndex());
    update_headers();
}

void CodeViewsPanel::show_pass(int index) {
    if (!result_) return;
    const tp::CompileResult& c = *result_;
    QString text;
    if (index <= 0) text = QString::fromStdString(c.ir);
    else if (index - 1 < int(c.passes.size())) text = QString::fromStdString(c.passes[size_t(index - 1)].ir);
    else text = QString::fromStdString(c.lowered);
    if (text.isEmpty() && index > 0 && index - 1 < int(c.passes.size()))
        text = tr("# the IR after this pass was not kept");
    if (text.isEmpty()) text = tr("# no IR: the kernel did not evaluate (see Problems)");
    ir_->set_code(text);
    update_headers();
}

QString CodeViewsPanel::counts_text(LinkedView v) const {
    CodeView* cv = view(v);
    if (!cv) return {};
    const auto& n = cv->counts();
    return tr("Tensor Core %1 · async copy %2 · barrier %3 · matrix load %4").arg(n[0]).arg(n[1]).arg(n[2]).arg(n[3]);
}

void CodeViewsPanel::update_headers() {
    const Theme& t = theme_ ? *theme_ : dark_theme();
    auto fmt = [&](CodeView* v) {
        const auto& n = v->counts();
        QColor cs[] = {t.tensor_core, t.async_copy, t.barrier, t.matrix_load};
        const char* names[] = {"Tensor Core", "async copy", "barrier", "matrix load"};
        QStringList parts;
        for (int i = 0; i < 4; ++i)
            parts << QStringLiteral("<span style='color:%1'>■</span> %2 <b>%3</b>").arg(cs[i].name(), tr(names[i])).arg(n[size_t(i)]);
        return parts.join("&nbsp;&nbsp;");
    };
    cuda_header_->setText(fmt(cuda_));
    ptx_header_->setText(fmt(ptx_));
    sass_header_->setText(fmt(sass_));
    ir_header_->setText(fmt(ir_));
}

void CodeViewsPanel::highlight_dsl_line(int dsl, LinkedView except) {
    for (LinkedView v : {LinkedView::Cuda, LinkedView::Ptx, LinkedView::Sass})
        if (v != except) view(v)->set_linked_lines(links_.lines_for(v, dsl));
}

void CodeViewsPanel::apply_theme(const Theme& t, int font_size) {
    theme_ = &t;
    for (CodeView* v : {cuda_, ptx_, sass_, ir_}) v->apply_theme(t, font_size);
    update_headers();
}

void CodeViewsPanel::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // Side by side the two panes need room for a line of code each; narrower, CUDA goes above
    // PTX so each keeps the panel's whole width.
    const Qt::Orientation o = width() < kSideBySideWidth ? Qt::Vertical : Qt::Horizontal;
    if (split_->orientation() != o) {
        split_->setOrientation(o);
        const int extent = o == Qt::Vertical ? split_->height() : split_->width();
        split_->setSizes({extent / 2, extent - extent / 2});
    }
}

}  // namespace tpui
