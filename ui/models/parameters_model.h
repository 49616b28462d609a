// The kernel factory's parameters as editable rows: name, value (starting at the sample
// header's value or the Python default), kind and the choices for dtypes and booleans.
// values_as_defines() turns the edited values into compile defines.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <utility>
#include <vector>

#include "tileplay/compiler.h"

namespace tpui {

struct ParameterRow {
    QString name;
    QString kind;          // "int", "float", "bool", "dtype", "str", "tensor", "any"
    QString default_text;  // Python default ("" when required)
    QString value;         // what the user sees and edits
    QString file_value;    // what the file says (its header's args, else the default)
    bool required = false;
    bool overridden() const { return value != file_value; }
};

class ParametersModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Value, ColumnCount };
    enum Role { KindRole = Qt::UserRole + 1, ChoicesRole, DefaultRole, OverriddenRole, FileValueRole };

    using QAbstractTableModel::QAbstractTableModel;

    // Rebuilds rows for a factory. Values come from `preset` (sample header args) when they name
    // the parameter, else from the default; rows whose name and kind are unchanged keep the value
    // the user typed, so recompiles while typing do not reset the panel.
    void set_factory(const tp::FactoryInfo& f, const std::vector<std::pair<std::string, std::string>>& preset);
    const std::vector<ParameterRow>& rows() const { return rows_; }
    // No rows: another document is opened, and none of this one's values may carry over.
    void clear();
    bool set_value(const QString& name, const QString& value);
    // Back to what the file says (an edit: values_edited is emitted).
    bool reset_value(const QString& name);
    // Values that differ from the Python default (and every required one that is set).
    std::vector<std::pair<std::string, std::string>> values_as_defines() const;

    static QStringList choices_for(const QString& kind, const QString& current);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void values_edited();  // the user changed a value (not emitted by set_factory)

private:
    std::vector<ParameterRow> rows_;
};

}  // namespace tpui
