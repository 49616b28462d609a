// What the last job's kernels printed (T.print, a failed T.device_assert's message), for the
// Output panel: one section per configuration that printed or failed, each headed by where it
// ran (CPU interpreter or which GPU) and which kernel/config. Widget-free, so tests read the
// text without a window; the main window clears it when a job starts and adds each result.
#pragma once

#include <QObject>
#include <QString>
#include <vector>

#include "models/run_result.h"

namespace tpui {

class OutputLog : public QObject {
    Q_OBJECT
public:
    struct Section {
        QString header;  // "GPU: NVIDIA H200 · scale_tile" / "CPU interpreter · scale_tile · M=16 N=32"
        QString text;    // the printed lines, each ending in '\n' (may be empty for a failed run)
        QString error;   // why the run failed; empty when it ran
        bool cpu = false;
        int lines = 0;   // printed lines in `text`
    };

    // A sweep of many printing configurations stops adding text here; its sections still count.
    static constexpr qsizetype kTotalLimit = 4 * kPrintedLimit;

    using QObject::QObject;
    void clear();
    // Keeps `r`'s printed text, and its error when it failed. Returns whether it printed.
    bool add(const RunResult& r);

    const std::vector<Section>& sections() const { return sections_; }
    bool empty() const { return sections_.empty(); }
    int line_count() const { return lines_; }  // printed lines over all sections
    int dropped_sections() const { return dropped_; }
    QString dropped_note() const;  // the last line when sections were dropped
    // Headers, lines and failures as the panel shows them (tests, copying).
    QString plain_text() const;

    static QString header_for(const RunResult& r);
    // A failed T.device_assert's line on the GPU: "device assertion failed at line N: ...".
    static bool is_assert_line(const QString& line);

Q_SIGNALS:
    void changed();

private:
    std::vector<Section> sections_;
    int lines_ = 0;
    qsizetype bytes_ = 0;
    int dropped_ = 0;
};

}  // namespace tpui
