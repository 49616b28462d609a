// The Results dock: progress and Cancel for the running job, the last run's table (ours and
// each baseline) and the sweep table, filled live.
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace tpui {

class ResultsModel;
class SweepModel;

class ResultsPanel : public QWidget {
    Q_OBJECT
public:
    ResultsPanel(ResultsModel* results, SweepModel* sweep, QWidget* parent = nullptr);
    void job_started(const QString& what, int total);
    void progress(int done, int total, const QString& message);
    void job_finished(bool ok, const QString& message);
    void show_message(const QString& message, bool error);
    // A worker died during the job: shown now and kept beside the job's final message, so
    // the reason is still on screen after the job ends.
    void worker_died(const QString& why);

Q_SIGNALS:
    void cancel_requested();

private:
    void fit_tables();

    QLabel* status_;
    QProgressBar* bar_;
    QPushButton* cancel_;
    QTableView* results_;
    QTableView* sweep_;
    QString died_;
};

}  // namespace tpui
