// The Results panel's table for the last Run/Benchmark: one row for our kernel and one per
// baseline, with latency, TFLOP/s, GB/s and the error against the reference. Our row's note
// gives the ratio to the best peer and the semantic check; a peer's row whether its result
// agrees with ours. CPU runs are labelled as such and show no GPU timings.
#pragma once

#include <QAbstractTableModel>
#include <optional>

#include "models/run_result.h"

namespace tpui {

class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Latency, Tflops, Gbps, Error, Note, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;
    void set_result(const RunResult& r);
    void clear();
    const std::optional<RunResult>& result() const { return result_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    static QString format_ms(double ms);
    static QString format_number(double v, int decimals = 1);
    // "1.02x [0.99-1.05]": a peer's time over ours, the median of per-round ratios and range.
    static QString ratio_text(const BaselineTime& b);


private:
    static QString our_note(const RunResult& r);
    static QString peer_note(const RunResult& r, const BaselineTime& b);

    std::optional<RunResult> result_;
};

}  // namespace tpui
