// Dark and light colour themes shared by the editor, the code views and the charts, so one
// switch recolours everything together. Also the palette of link colours for DSL lines.
#pragma once

#include <QColor>
#include <QString>

class QApplication;

namespace tpui {

// Link colours cycle through this many tints (each needs one Scintilla marker).
constexpr int kLinkColorCount = 20;

struct Theme {
    QString name;  // "dark" or "light"
    bool dark = true;
    QColor window, base, text, muted, selection, caret_line, margin, margin_text;
    QColor keyword, builtin, string, number, comment, decorator, directive, reg, type;
    QColor error, warning, note;
    // Token classes: Tensor Core, async copy, barrier, matrix load.
    QColor tensor_core, async_copy, barrier, matrix_load;
    QColor chart_bar, chart_bar2, chart_ref1, chart_ref2, grid;

    // Background tint for lines generated from DSL line `dsl_line` (cycles a palette).
    QColor link_color(int dsl_line) const;
    QColor link_highlight() const;
};

const Theme& dark_theme();
const Theme& light_theme();
const Theme& theme_named(const QString& name);

// Applies the Fusion style and the theme's palette to the whole application.
void apply_app_theme(QApplication& app, const Theme& t);

}  // namespace tpui
