// The two themes' colours. Link colours are soft tints so code stays readable on top of them.
#include "theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

namespace tpui {

namespace {

Theme make_dark() {
    Theme t;
    t.name = "dark";
    t.dark = true;
    t.window = QColor("#1f2228");
    t.base = QColor("#1a1c21");
    t.text = QColor("#d7dae0");
    t.muted = QColor("#7f8794");
    t.selection = QColor("#3a4a6b");
    t.caret_line = QColor("#24272e");
    t.margin = QColor("#1f2228");
    t.margin_text = QColor("#6b7280");
    t.keyword = QColor("#c678dd");
    t.builtin = QColor("#61afef");
    t.string = QColor("#98c379");
    t.number = QColor("#d19a66");
    t.comment = QColor("#7f8794");
    t.decorator = QColor("#e5c07b");
    t.directive = QColor("#56b6c2");
    t.reg = QColor("#e5c07b");
    t.type = QColor("#56b6c2");
    t.error = QColor("#f0524f");
    t.warning = QColor("#e5b33b");
    t.note = QColor("#5fa8e8");
    t.tensor_core = QColor("#ff6b9a");
    t.async_copy = QColor("#4fd6be");
    t.barrier = QColor("#ffb454");
    t.matrix_load = QColor("#a78bfa");
    t.chart_bar = QColor("#61afef");
    t.chart_bar2 = QColor("#98c379");
    t.chart_ref1 = QColor("#f0524f");
    t.chart_ref2 = QColor("#e5b33b");
    t.grid = QColor("#3a3f4b");
    return t;
}

Theme make_light() {
    Theme t;
    t.name = "light";
    t.dark = false;
    t.window = QColor("#f3f3f3");
    t.base = QColor("#ffffff");
    t.text = QColor("#24292f");
    t.muted = QColor("#6e7781");
    t.selection = QColor("#b6d3f7");
    t.caret_line = QColor("#f4f6fa");
    t.margin = QColor("#f3f3f3");
    t.margin_text = QColor("#8c959f");
    t.keyword = QColor("#a626a4");
    t.builtin = QColor("#0550ae");
    t.string = QColor("#0a7a2f");
    t.number = QColor("#b35900");
    t.comment = QColor("#6e7781");
    t.decorator = QColor("#8a6d00");
    t.directive = QColor("#0b7285");
    t.reg = QColor("#8a5a00");
    t.type = QColor("#0b7285");
    t.error = QColor("#cf222e");
    t.warning = QColor("#bf8700");
    t.note = QColor("#0969da");
    t.tensor_core = QColor("#c2185b");
    t.async_copy = QColor("#00897b");
    t.barrier = QColor("#d35400");
    t.matrix_load = QColor("#6d28d9");
    t.chart_bar = QColor("#0969da");
    t.chart_bar2 = QColor("#1a7f37");
    t.chart_ref1 = QColor("#cf222e");
    t.chart_ref2 = QColor("#bf8700");
    t.grid = QColor("#d0d7de");
    return t;
}

}  // namespace

QColor Theme::link_color(int dsl_line) const {
    // Hues spaced by the golden angle so neighbouring DSL lines get distinct colours.
    if (dsl_line <= 0) return base;
    int hue = ((dsl_line % kLinkColorCount) * 137) % 360;
    return dark ? QColor::fromHsl(hue, 70, 44) : QColor::fromHsl(hue, 150, 232);
}

QColor Theme::link_highlight() const { return dark ? QColor("#4a5a20") : QColor("#fff3a0"); }

const Theme& dark_theme() {
    static const Theme t = make_dark();
    return t;
}
const Theme& light_theme() {
    static const Theme t = make_light();
    return t;
}
const Theme& theme_named(const QString& name) { return name == "light" ? light_theme() : dark_theme(); }

void apply_app_theme(QApplication& app, const Theme& t) {
    app.setStyle(QStyleFactory::create("Fusion"));
    QPalette p;
    p.setColor(QPalette::Window, t.window);
    p.setColor(QPalette::WindowText, t.text);
    p.setColor(QPalette::Base, t.base);
    p.setColor(QPalette::AlternateBase, t.caret_line);
    p.setColor(QPalette::Text, t.text);
    p.setColor(QPalette::Button, t.window);
    p.setColor(QPalette::ButtonText, t.text);
    p.setColor(QPalette::Highlight, t.selection);
    p.setColor(QPalette::HighlightedText, t.text);
    p.setColor(QPalette::ToolTipBase, t.base);
    p.setColor(QPalette::ToolTipText, t.text);
    p.setColor(QPalette::PlaceholderText, t.muted);
    p.setColor(QPalette::Link, t.builtin);
    p.setColor(QPalette::Disabled, QPalette::Text, t.muted);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, t.muted);
    p.setColor(QPalette::Disabled, QPalette::WindowText, t.muted);
    app.setPalette(p);
}

}  // namespace tpui
