// ProblemsPanel: a flat tree view (no children) so columns resize like a list.
#include "panels/problems/problems_panel.h"

#include <QHeaderView>
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
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(view_);
    connect(view_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        Q_EMIT go_to(i.data(ProblemsModel::LineRole).toInt(), i.data(ProblemsModel::ColumnRole).toInt());
    });
}

}  // namespace tpui
