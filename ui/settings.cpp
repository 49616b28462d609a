// QSettings-backed implementation of the settings declared in settings.def.
#include "settings.h"

#include <QSettings>

namespace tpui {

#define SETTING(name, type, def, doc)                                      \
    type Settings::name() {                                                \
        QSettings s;                                                       \
        return s.value(QStringLiteral(#name), QVariant::fromValue<type>(def)).value<type>(); \
    }                                                                      \
    void Settings::set_##name(const type& v) {                             \
        QSettings s;                                                       \
        s.setValue(QStringLiteral(#name), QVariant::fromValue<type>(v));   \
    }
#include "settings.def"
#undef SETTING

const std::vector<SettingInfo>& Settings::infos() {
    static const std::vector<SettingInfo> all = {
#define SETTING(name, type, def, doc) {QStringLiteral(#name), QVariant::fromValue<type>(def), QStringLiteral(doc)},
#include "settings.def"
#undef SETTING
    };
    return all;
}

void Settings::add_recent_file(const QString& path) {
    QStringList r = recent_files();
    r.removeAll(path);
    r.prepend(path);
    while (r.size() > 10) r.removeLast();
    set_recent_files(r);
}

}  // namespace tpui
