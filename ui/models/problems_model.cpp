// ProblemsModel: a flat table; notes follow the diagnostic they belong to.
#include "models/problems_model.h"

#include "models/run_result.h"

namespace tpui {

std::vector<Problem> problems_from(const std::vector<tp::Diagnostic>& diags) {
    std::vector<Problem> out;
    auto add = [&](const tp::Diagnostic& d) {
        Problem p;
        p.severity = d.severity;
        p.line = int(d.span.begin.line);
        p.col = int(d.span.begin.col);
        p.end_line = int(d.span.end.line ? d.span.end.line : d.span.begin.line);
        p.end_col = int(d.span.end.col);
        p.message = QString::fromStdString(d.message);
        p.kind = QString::fromLatin1(tp::diag_info(d.kind).name);
        p.file = QString::fromStdString(d.file);
        out.push_back(std::move(p));
    };
    for (const auto& d : diags) {
        add(d);
        for (const auto& n : d.notes) add(n);
    }
    return out;
}

std::vector<Problem> problems_from_races(const std::vector<RaceFinding>& races) {
    std::vector<Problem> out;
    for (const auto& f : races) {
        Problem p;
        p.severity = tp::Severity::Error;
        p.line = p.end_line = f.line;
        p.col = f.col;
        p.message = f.message;
        p.kind = f.kind;
        out.push_back(p);
        if (f.other_line <= 0) continue;
        Problem n;
        n.severity = tp::Severity::Note;
        n.line = n.end_line = f.other_line;
        n.col = f.other_col;
        // An older worker sends no note text: the line alone still says where.
        n.message = f.other_message.isEmpty() ? QStringLiteral("the other access") : f.other_message;
        n.kind = f.kind;
        out.push_back(n);
    }
    return out;
}

void ProblemsModel::set_problems(std::vector<Problem> problems) {
    beginResetModel();
    problems_ = std::move(problems);
    endResetModel();
}

int ProblemsModel::error_count() const {
    int n = 0;
    for (const auto& p : problems_) n += p.severity == tp::Severity::Error;
    return n;
}

int ProblemsModel::warning_count() const {
    int n = 0;
    for (const auto& p : problems_) n += p.severity == tp::Severity::Warning;
    return n;
}

int ProblemsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(problems_.size()); }
int ProblemsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ProblemsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(problems_.size())) return {};
    const Problem& p = problems_[size_t(index.row())];
    if (role == LineRole) return p.line;
    if (role == ColumnRole) return p.col;
    if (role == SeverityRole) return int(p.severity);
    if (role == Qt::ToolTipRole) return p.message;
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Severity: return QString::fromLatin1(tp::severity_name(p.severity));
        case Location: return p.line ? QStringLiteral("%1:%2").arg(p.line).arg(p.col) : QString();
        case Message: return p.message;
        case Kind: return p.kind;
    }
    return {};
}

QVariant ProblemsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Severity: return tr("Severity");
        case Location: return tr("Line");
        case Message: return tr("Message");
        case Kind: return tr("Kind");
    }
    return {};
}

}  // namespace tpui
