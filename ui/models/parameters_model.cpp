// ParametersModel: rows keyed by parameter name; edits validated per kind.
#include "models/parameters_model.h"

#include <QRegularExpression>

namespace tpui {

namespace {

QString strip_quotes(QString s) {
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.mid(1, s.size() - 2);
    if (s.startsWith("T.")) s = s.mid(2);
    return s;
}

bool valid_for_kind(const QString& kind, const QString& v) {
    if (v.isEmpty()) return true;  // empty = leave unbound / use default
    if (kind == "int") return QRegularExpression(R"(^-?\d+$)").match(v).hasMatch();
    if (kind == "float") {
        bool ok = false;
        v.toDouble(&ok);
        return ok;
    }
    if (kind == "bool") return v == "True" || v == "False";
    return true;
}

}  // namespace

QStringList ParametersModel::choices_for(const QString& kind, const QString& current) {
    QStringList c;
    if (kind == "bool") c = {"True", "False"};
    if (kind == "dtype")
        c = {"float16", "bfloat16", "float32", "float8_e4m3", "float8_e5m2", "int8", "int32", "float64"};
    if (!c.isEmpty() && !current.isEmpty() && !c.contains(current)) c.prepend(current);
    return c;
}

void ParametersModel::set_factory(const tp::FactoryInfo& f,
                                  const std::vector<std::pair<std::string, std::string>>& preset) {
    std::vector<ParameterRow> next;
    for (const auto& p : f.params) {
        ParameterRow r;
        r.name = QString::fromStdString(p.name);
        r.kind = QString::fromStdString(p.kind);
        r.default_text = QString::fromStdString(p.default_text);
        r.required = p.required;
        r.value = r.kind == "dtype" || r.kind == "str" ? strip_quotes(r.default_text) : r.default_text;
        for (const auto& [k, v] : preset)
            if (k == p.name) r.value = QString::fromStdString(v);
        r.file_value = r.value;
        for (const auto& old : rows_)
            if (old.name == r.name && old.kind == r.kind && old.default_text == r.default_text) r.value = old.value;
        next.push_back(std::move(r));
    }
    beginResetModel();
    rows_ = std::move(next);
    endResetModel();
}

bool ParametersModel::set_value(const QString& name, const QString& value) {
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].name == name) return setData(index(int(i), Value), value);
    return false;
}

bool ParametersModel::reset_value(const QString& name) {
    for (const auto& r : rows_)
        if (r.name == name) return set_value(name, r.file_value);
    return false;
}

void ParametersModel::clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
}

std::vector<std::pair<std::string, std::string>> ParametersModel::values_as_defines() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : rows_) {
        if (r.value.isEmpty() || r.kind == "tensor") continue;
        QString def = r.kind == "dtype" || r.kind == "str" ? strip_quotes(r.default_text) : r.default_text;
        if (r.value == def && !r.required) continue;
        out.emplace_back(r.name.toStdString(), r.value.toStdString());
    }
    return out;
}

int ParametersModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int ParametersModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ParametersModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(rows_.size())) return {};
    const ParameterRow& r = rows_[size_t(index.row())];
    switch (role) {
        case KindRole: return r.kind;
        case DefaultRole: return r.default_text;
        case ChoicesRole: return choices_for(r.kind, r.value);
        case OverriddenRole: return r.overridden();
        case FileValueRole: return r.file_value;
        case Qt::ToolTipRole: {
            QString t = r.required ? tr("%1 (%2, required)").arg(r.name, r.kind)
                                   : tr("%1 (%2), default %3").arg(r.name, r.kind, r.default_text);
            if (r.overridden()) t += tr("; the file says %1, this compile uses %2").arg(r.file_value.isEmpty() ? tr("nothing") : r.file_value, r.value);
            return t;
        }
        case Qt::DisplayRole:
        case Qt::EditRole: return index.column() == Name ? r.name : r.value;
    }
    return {};
}

bool ParametersModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.column() != Value || role != Qt::EditRole || index.row() >= int(rows_.size()))
        return false;
    ParameterRow& r = rows_[size_t(index.row())];
    QString v = value.toString().trimmed();
    if (!valid_for_kind(r.kind, v)) return false;
    if (v == r.value) return true;
    r.value = v;
    Q_EMIT dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
    Q_EMIT values_edited();
    return true;
}

Qt::ItemFlags ParametersModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == Value && rows_[size_t(index.row())].kind != "tensor") f |= Qt::ItemIsEditable;
    return f;
}

QVariant ParametersModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == Name ? tr("Parameter") : tr("Value");
}

}  // namespace tpui
