// ProblemsPanel: a flat tree view (no children) so columns resize like a list.
#include "panels/problems/problems_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QTreeView>
#include <QVBoxLayout>

#include "models/problems_model.h"

namespace tpui {

ProblemsPanel::ProblemsPanel(ProblemsModel* model, QWidget* parent) : QWidget(parent) {
    view_ = new QTreeView;
    view_->setModel(model);
    view_->setRootIsDecorated(false);
    view_->setUniformRowHeights(true);
    view_->setAlternatingRowColors(true);
    view_->header()->setStretchLastSection(false);
    view_->header()->setSectionResizeMode(ProblemsModel::Message, QHeaderView::Stretch);
    view_->header()->setSectionResizeMode(ProblemsModel::Severity, QHeaderView::ResizeToContents);
    view_->header()->setSectionResizeMode(ProblemsModel::Location, QHeaderView::ResizeToContents);
    view_->header()->setSectionResizeMode(ProblemsModel::Kind, QHeaderView::ResizeToContents);
    empty_ = new QLabel(tr("No problems in the last compile"));
    empty_->setObjectName("problems_empty");
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setEnabled(false);  // drawn in the palette's dimmed text colour
    stack_ = new QStackedWidget;
    stack_->addWidget(view_);
    stack_->addWidget(empty_);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(stack_);
    auto update = [this, model] { stack_->setCurrentWidget(model->rowCount() ? static_cast<QWidget*>(view_) : empty_); };
    connect(model, &QAbstractItemModel::modelReset, this, update);
    connect(model, &QAbstractItemModel::rowsInserted, this, update);
    connect(model, &QAbstractItemModel::rowsRemoved, this, update);
    update();
    connect(view_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        Q_EMIT go_to(i.data(ProblemsModel::LineRole).toInt(), i.data(ProblemsModel::ColumnRole).toInt());
    });
}

}  // namespace tpui
