// RemoteWorkersModel (see remote_workers_model.h).
#include "models/remote_workers_model.h"

namespace tpui {

RemoteWorkersModel::RemoteWorkersModel(QObject* parent) : QAbstractListModel(parent) {}

int RemoteWorkersModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QVariant RemoteWorkersModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount()) return {};
    const Row& r = rows_[size_t(index.row())];
    switch (role) {
        case Qt::DisplayRole:
            return label(r.spec);
        case Qt::ToolTipRole:
            if (r.state == State::Failed) return r.check.message;
            if (r.state == State::Ready)
                return tr("tilec %1 on %2%3").arg(r.check.version, r.check.host, r.check.target.isEmpty() ? QString() : ", target " + r.check.target);
            return tr("Not checked yet: Check says whether it answers and what GPU it has");
        case SpecRole:
            return r.spec;
        case StateRole:
            return int(r.state);
        case HasGpuRole:
            return may_have_gpu(r.spec);
        default:
            return {};
    }
}

void RemoteWorkersModel::set_specs(const QStringList& specs) {
    beginResetModel();
    rows_.clear();
    for (const QString& s : specs) {
        const QString t = s.trimmed();
        if (t.isEmpty() || find(t) >= 0) continue;
        rows_.push_back({t, State::Unchecked, {}});
    }
    endResetModel();
}

QStringList RemoteWorkersModel::specs() const {
    QStringList out;
    for (const auto& r : rows_) out << r.spec;
    return out;
}

int RemoteWorkersModel::find(const QString& spec) const {
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].spec == spec) return int(i);
    return -1;
}

bool RemoteWorkersModel::add(const QString& spec) {
    const QString t = spec.trimmed();
    if (t.isEmpty() || find(t) >= 0) return false;
    beginInsertRows({}, rowCount(), rowCount());
    rows_.push_back({t, State::Unchecked, {}});
    endInsertRows();
    Q_EMIT specs_changed();
    return true;
}

bool RemoteWorkersModel::remove(const QString& spec) {
    const int i = find(spec);
    if (i < 0) return false;
    beginRemoveRows({}, i, i);
    rows_.erase(rows_.begin() + i);
    endRemoveRows();
    Q_EMIT specs_changed();
    return true;
}

const RemoteWorkersModel::Row* RemoteWorkersModel::row(const QString& spec) const {
    const int i = find(spec);
    return i < 0 ? nullptr : &rows_[size_t(i)];
}

void RemoteWorkersModel::set_checking(const QString& spec) {
    const int i = find(spec);
    if (i < 0) return;
    rows_[size_t(i)].state = State::Checking;
    Q_EMIT dataChanged(index(i), index(i));
}

void RemoteWorkersModel::set_check(const QString& spec, const WorkerCheck& c) {
    const int i = find(spec);
    if (i < 0) return;
    rows_[size_t(i)].check = c;
    rows_[size_t(i)].state = c.ok ? State::Ready : State::Failed;
    Q_EMIT dataChanged(index(i), index(i));
}

bool RemoteWorkersModel::may_have_gpu(const QString& spec) const {
    const Row* r = row(spec);
    return !r || r->state != State::Ready || !r->check.device.isEmpty();
}

QString RemoteWorkersModel::label(const QString& spec) const {
    const Row* r = row(spec);
    if (!r) return spec;
    switch (r->state) {
        case State::Unchecked:
            return spec;
        case State::Checking:
            return tr("%1: checking…").arg(spec);
        case State::Failed:
            return tr("%1: %2").arg(spec, r->check.kind == "version_mismatch" ? tr("another tilec version")
                                          : r->check.kind == "bad_spec"       ? tr("not a worker spec")
                                                                              : tr("unreachable"));
        case State::Ready:
            return r->check.device.isEmpty() ? tr("%1: CPU only (no GPU on %2)").arg(spec, r->check.host)
                                             : tr("%1: %2 on %3").arg(spec, r->check.device, r->check.host);
    }
    return spec;
}

}  // namespace tpui
