// Typed access to the playground's persistent settings. Each setting is declared once in
// settings.def (type, default, doc); this header generates a getter and a setter for it, and
// setting_infos() lists them all (for docs and for tests).
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <vector>

namespace tpui {

struct SettingInfo {
    QString key;
    QVariant default_value;
    QString doc;
};

class Settings {
public:
#define SETTING(name, type, def, doc) \
    static type name();               \
    static void set_##name(const type& v);
#include "settings.def"
#undef SETTING

    static const std::vector<SettingInfo>& infos();
    // Adds a file to the front of recent_files (deduplicated, at most 10).
    static void add_recent_file(const QString& path);
};

}  // namespace tpui
