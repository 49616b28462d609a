// OutputLog: sections of printed text, capped in total so a long sweep stays responsive.
#include "models/output_log.h"

#include <QStringList>

namespace tpui {

void OutputLog::clear() {
    bool was_empty = sections_.empty() && dropped_ == 0;
    sections_.clear();
    lines_ = 0;
    bytes_ = 0;
    dropped_ = 0;
    if (!was_empty) Q_EMIT changed();
}

QString OutputLog::header_for(const RunResult& r) {
    QString where = r.cpu ? tr("CPU interpreter") : r.device.isEmpty() ? tr("GPU") : tr("GPU: %1").arg(r.device);
    // A sweep's config already lists its parameters; a plain run's is the kernel's name.
    QStringList extra;
    for (const auto& [k, v] : r.params)
        if (!r.config.contains(k + "=")) extra << k + "=" + v;
    QString what = r.config.isEmpty() ? tr("kernel") : r.config;
    if (!extra.isEmpty()) what += QStringLiteral(" · ") + extra.join(' ');
    return QStringLiteral("%1 · %2").arg(where, what);
}

bool OutputLog::is_assert_line(const QString& line) {
    return line.startsWith(QLatin1String("device assertion failed"));
}

bool OutputLog::add(const RunResult& r) {
    // A run that printed nothing and did not fail has nothing to say here.
    if (r.printed.isEmpty() && r.ok) return false;
    if (bytes_ >= kTotalLimit) {
        ++dropped_;
        Q_EMIT changed();
        return !r.printed.isEmpty();
    }
    Section s;
    s.header = header_for(r);
    s.text = r.printed;
    if (!s.text.isEmpty() && !s.text.endsWith('\n')) s.text += '\n';
    s.error = r.ok ? QString() : r.error;
    s.cpu = r.cpu;
    s.lines = int(s.text.count('\n'));
    lines_ += s.lines;
    bytes_ += s.text.size();
    sections_.push_back(std::move(s));
    Q_EMIT changed();
    return !r.printed.isEmpty();
}

QString OutputLog::plain_text() const {
    QString out;
    for (const Section& s : sections_) {
        out += s.header + '\n' + s.text;
        if (!s.error.isEmpty()) out += tr("the run failed: %1").arg(s.error) + '\n';
    }
    if (dropped_) out += dropped_note() + '\n';
    return out;
}

QString OutputLog::dropped_note() const {
    // Spelled out: without a translation loaded, tr()'s %n plural forms stay "(s)".
    return dropped_ == 1 ? tr("[1 more configuration printed; not shown, the panel is full]")
                         : tr("[%1 more configurations printed; not shown, the panel is full]").arg(dropped_);
}

}  // namespace tpui
