// Results of a Sweep or Tune, one row per schedule configuration, appended live as the worker
// reports them. The charts read the rows sorted by latency and the baselines' times.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "models/run_result.h"

namespace tpui {

class SweepModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Config, Latency, Tflops, Gbps, Error, Status, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;
    void clear();
    void add(const RunResult& r);
    const std::vector<RunResult>& rows() const { return rows_; }
    // Timed rows, fastest first (failed or untimed rows are left out).
    std::vector<RunResult> sorted_by_latency() const;
    // The best (lowest) time each baseline reported across the sweep, by name.
    std::vector<BaselineTime> baselines() const;
    // CSV with a header line; numbers in plain notation, unknown as empty cells.
    QString to_csv() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunResult> rows_;
};

}  // namespace tpui
