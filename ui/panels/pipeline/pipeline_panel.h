// The Pipeline dock: pick a T.Pipelined loop of the compiled kernel and see, per warp role (the
// block for cp.async multi-buffering; the TMA producer and the wgmma consumers of a
// warp-specialised kernel), what it does before the loop, in each iteration and after it, as
// lanes along program order, with where it waits; hover a slice for its event and DSL line,
// click it to go there. Computed by core's pipeline view (tileplay/pipeline_view.h) from the
// request the window compiled, when the dock is visible. A measured timeline (the Chrome trace
// `tilec run --timeline` writes on a GPU) opens in the same lanes, in microseconds; Record
// timeline asks the window for one (a stamped Run on the GPU worker), and is off, with the
// reason in its tooltip, where runs go to no GPU.
#pragma once

#include <QWidget>
#include <memory>

#include "models/pipeline_lanes.h"
#include "tileplay/compiler.h"
#include "tileplay/pipeline_view.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace tpui {

class LaneView;

class PipelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit PipelinePanel(QWidget* parent = nullptr);

    // The window compiled `req` (ok: without errors); the view follows when the dock shows.
    void set_request(const tp::CompileRequest& req, bool ok);
    const tp::PipelineReport* report() const { return report_.get(); }
    bool select_loop(int index);  // false when there is no such loop
    int loop_count() const;
    LaneView* lanes() const { return lanes_; }
    // Shows a Chrome trace file in the lanes; false with the reason in the summary when unreadable.
    bool load_timeline(const QString& path);
    // A trace's JSON (a Record timeline run's); false with the reason in the summary when unreadable.
    bool show_timeline(const QByteArray& json, const QString& title);
    void show_timeline_error(const QString& why);  // a recording that brought no trace
    void set_record_enabled(bool on, const QString& tooltip);

Q_SIGNALS:
    void go_to(int line, int col);
    void record_requested();

protected:
    void showEvent(QShowEvent* e) override;

private:
    void refresh();    // the view of the last request, when dirty
    void show_loop();  // the chosen loop's lanes, summary and events

    QComboBox* loops_ = nullptr;
    QSpinBox* iterations_ = nullptr;
    QCheckBox* scalars_ = nullptr;
    QLabel* summary_ = nullptr;
    QPushButton* record_ = nullptr;
    LaneView* lanes_ = nullptr;
    QTreeWidget* events_ = nullptr;
    tp::CompileRequest req_;
    std::shared_ptr<tp::PipelineReport> report_;
    bool have_request_ = false, dirty_ = false;
};

}  // namespace tpui
