// The Problems list: one row per diagnostic of the last compile (severity, location, message,
// kind). Widget-free; the problems panel shows it and jumps to the line on activation.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "tileplay/diagnostics.h"

namespace tpui {

struct Problem {
    tp::Severity severity = tp::Severity::Error;
    int line = 0, col = 0, end_line = 0, end_col = 0;  // 1-based; 0 = no location
    QString message;
    QString kind;  // registry name, e.g. "UnknownBuiltin"
    QString file;
};

// Flattens diagnostics (and their notes) into problems.
std::vector<Problem> problems_from(const std::vector<tp::Diagnostic>& diags);

struct RaceFinding;
// A CPU run's race findings as problems, as `tilec run --check-races` prints them: an error at
// the finding's line and a note at the other thread's access.
std::vector<Problem> problems_from_races(const std::vector<RaceFinding>& races);

class ProblemsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Severity, Location, Message, Kind, ColumnCount };
    enum Role { LineRole = Qt::UserRole + 1, ColumnRole, SeverityRole };

    using QAbstractTableModel::QAbstractTableModel;
    void set_problems(std::vector<Problem> problems);
    const std::vector<Problem>& problems() const { return problems_; }
    int error_count() const;
    int warning_count() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<Problem> problems_;
};

}  // namespace tpui
