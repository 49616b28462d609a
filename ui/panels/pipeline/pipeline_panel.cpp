// PipelinePanel (see pipeline_panel.h).
#include "panels/pipeline/pipeline_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "panels/pipeline/lane_view.h"

namespace tpui {

PipelinePanel::PipelinePanel(QWidget* parent) : QWidget(parent) {
    loops_ = new QComboBox;
    loops_->setObjectName("pipeline_loop");
    loops_->setMinimumContentsLength(18);
    iterations_ = new QSpinBox;
    iterations_->setObjectName("pipeline_iterations");
    iterations_->setRange(1, 6);
    iterations_->setValue(2);
    iterations_->setToolTip(tr("Iterations of the loop drawn between its prologue and epilogue"));
    scalars_ = new QCheckBox(tr("Bookkeeping"));
    scalars_->setToolTip(tr("Also the scalar updates: ring slots, phases, indices"));
    auto* open = new QPushButton(tr("Open timeline..."));
    open->setObjectName("pipeline_open_timeline");
    open->setToolTip(tr("A Chrome trace written by `tilec run --timeline FILE` on a GPU"));
    record_ = new QPushButton(tr("Record timeline"));
    record_->setObjectName("pipeline_record_timeline");
    summary_ = new QLabel;
    summary_->setObjectName("pipeline_summary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Loop")));
    top->addWidget(loops_);
    top->addWidget(new QLabel(tr("Iterations")));
    top->addWidget(iterations_);
    top->addWidget(scalars_);
    top->addStretch(1);
    top->addWidget(record_);
    top->addWidget(open);

    lanes_ = new LaneView;
    lanes_->setObjectName("pipeline_lanes");
    auto* scroll = new QScrollArea;
    scroll->setWidget(lanes_);
    scroll->setWidgetResizable(true);
    scroll->setMinimumHeight(150);  // two role lanes and the legend, also in a short dock
    events_ = new QTreeWidget;
    events_->setObjectName("pipeline_events");
    events_->setHeaderLabels({tr("Event"), tr("Line"), tr("Slot"), tr("When")});
    events_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(scroll);
    split->addWidget(events_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(4, 4, 4, 4);
    v->addLayout(top);
    v->addWidget(summary_);
    v->addWidget(split, 1);

    connect(loops_, &QComboBox::currentIndexChanged, this, [this] { show_loop(); });
    connect(iterations_, &QSpinBox::valueChanged, this, [this] { show_loop(); });
    connect(scalars_, &QCheckBox::toggled, this, [this] { show_loop(); });
    connect(lanes_, &LaneView::go_to, this, &PipelinePanel::go_to);
    connect(events_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* it) {
        if (int line = it->data(1, Qt::UserRole).toInt(); line > 0) Q_EMIT go_to(line, it->data(1, Qt::UserRole + 1).toInt());
    });
    connect(record_, &QPushButton::clicked, this, [this] {
        summary_->setText(tr("Recording a timeline: the kernel runs once with its pipeline events stamped…"));
        Q_EMIT record_requested();
    });
    connect(open, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getOpenFileName(this, tr("Open a measured timeline"), {}, tr("Chrome trace (*.json)"));
        if (!path.isEmpty()) load_timeline(path);
    });
}

void PipelinePanel::set_request(const tp::CompileRequest& req, bool ok) {
    req_ = req;
    req_.print_after.clear();
    req_.print_after_all = false;
    have_request_ = ok;
    dirty_ = true;
    if (isVisible()) refresh();
}

void PipelinePanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    refresh();
}

int PipelinePanel::loop_count() const { return report_ ? int(report_->loops.size()) : 0; }

bool PipelinePanel::select_loop(int index) {
    if (index < 0 || index >= loop_count()) return false;
    loops_->setCurrentIndex(index);
    show_loop();
    return true;
}

void PipelinePanel::refresh() {
    if (!dirty_) return;
    dirty_ = false;
    report_.reset();
    {
        QSignalBlocker block(loops_);
        loops_->clear();
    }
    if (!have_request_) {
        summary_->setText(tr("The kernel did not compile."));
        lanes_->set_diagram({});
        events_->clear();
        return;
    }
    report_ = std::make_shared<tp::PipelineReport>(tp::inspect_pipeline(req_));
    if (!report_->ok) {
        summary_->setText(QString::fromStdString(report_->error));
        return;
    }
    {
        QSignalBlocker block(loops_);
        for (const auto& l : report_->loops) loops_->addItem(QString("%1 (line %2)").arg(QString::fromStdString(l.var)).arg(l.span.begin.line));
    }
    show_loop();
}

void PipelinePanel::show_loop() {
    events_->clear();
    const int i = loops_->currentIndex();
    if (!report_ || i < 0 || i >= loop_count()) {
        summary_->setText(
            report_ && report_->ok
                ? tr("No T.Pipelined loop in %1 for %2.").arg(QString::fromStdString(report_->kernel), QString::fromStdString(report_->target))
                : summary_->text());
        lanes_->set_diagram({});
        return;
    }
    const tp::PipelineLoopView& l = report_->loops[size_t(i)];
    QString text = QString("<b>%1</b> on %2, num_stages=%3: %4.")
                       .arg(QString::fromStdString(report_->kernel), QString::fromStdString(report_->target))
                       .arg(l.num_stages)
                       .arg(QString::fromStdString(l.scheme).toHtmlEscaped());
    for (const auto& b : l.buffers) text += QString(" %1: %2 slots.").arg(QString::fromStdString(b.name)).arg(b.depth);
    for (const auto& n : l.notes) text += "<br><i>" + QString::fromStdString(n).toHtmlEscaped() + "</i>";
    for (const auto& r : l.roles) text += QString("<br><b>%1</b>: %2").arg(QString::fromStdString(r.name), QString::fromStdString(r.who));
    summary_->setText(text);
    lanes_->set_diagram(lanes_from_view(l, QString::fromStdString(req_.path), iterations_->value(), scalars_->isChecked()));
    for (const auto& r : l.roles) {
        auto* role = new QTreeWidgetItem(events_, {QString::fromStdString(r.name + ": " + r.who)});
        const std::pair<const char*, const std::vector<tp::PipeEvent>*> parts[] = {
            {"before the loop", &r.prologue}, {"each iteration", &r.steady}, {"after the loop", &r.epilogue}};
        for (const auto& [title, es] : parts) {
            if (es->empty()) continue;
            auto* part = new QTreeWidgetItem(role, {tr(title) + (es == &r.steady ? " (" + QString::fromStdString(r.loop) + ")" : "")});
            for (const auto& e : *es) {
                if (!scalars_->isChecked() && e.kind == tp::PipeEventKind::Scalar) continue;
                auto* it =
                    new QTreeWidgetItem(part, {QString::fromStdString(e.label) + (e.waits ? tr("  [waits]") : ""), QString::number(e.span.begin.line),
                                               QString::fromStdString(e.slot), QString::fromStdString(e.guard)});
                it->setData(1, Qt::UserRole, int(e.span.begin.line));
                it->setData(1, Qt::UserRole + 1, int(e.span.begin.col));
                it->setForeground(0, lane_kind_color(tp::pipe_event_kind_name(e.kind)).darker(130));
            }
        }
    }
    events_->expandAll();
}

void PipelinePanel::set_record_enabled(bool on, const QString& tooltip) {
    record_->setEnabled(on);
    record_->setToolTip(tooltip);
}

bool PipelinePanel::load_timeline(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        summary_->setText(tr("Cannot show %1: %2").arg(QFileInfo(path).fileName(), f.errorString()));
        return false;
    }
    return show_timeline(f.readAll(), QFileInfo(path).fileName());
}

void PipelinePanel::show_timeline_error(const QString& why) { summary_->setText(tr("No timeline: %1").arg(why.toHtmlEscaped())); }

bool PipelinePanel::show_timeline(const QByteArray& json, const QString& title) {
    QString error;
    std::optional<LaneDiagram> d = lanes_from_trace(json, &error);
    if (!d) {
        summary_->setText(tr("Cannot show %1: %2").arg(title, error));
        return false;
    }
    d->title = title;
    summary_->setText(tr("Measured timeline %1: %2 lanes (SM and role), %3 us from the first stamp to the last.")
                          .arg(d->title)
                          .arg(d->lanes.size())
                          .arg(d->end, 0, 'f', 2));
    lanes_->set_diagram(*d);
    return true;
}

}  // namespace tpui
