// tileplay: the Qt 6 playground's entry point.
//   tileplay [FILE]                      open FILE (or the last file / the welcome page)
//   tileplay --screenshot OUT.png [FILE] render the window after the first compile and exit
//   tileplay --screenshot OUT.png --run --device cpu samples/debug_print.py
//                                        ... after running the kernel (Output and Results filled)
//   tileplay --screenshot OUT.png --job sweep samples/gemm_autotune.py
//                                        ... after a GPU job: run, bench or sweep (Charts in front)
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>
#include <cstdio>

#include "main_window.h"
#include "panels/welcome/welcome_panel.h"
#include "settings.h"
#include "tileplay/compiler.h"

namespace {

// --help, --version and bad options are answered before a QApplication exists, so they work
// without a display (a terminal on a headless machine, an SSH session).
bool answered_without_gui(QCommandLineParser& cli, int argc, char** argv, int& code) {
    QStringList args;
    for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
    // Qt's own options (-platform, -style ...) are unknown here; QApplication takes them out
    // and the parse after it reports what is really wrong.
    const bool parsed = cli.parse(args);
    if (parsed && cli.isSet("help")) {
        std::fputs(qPrintable(cli.helpText().replace("<executable_name>", "tileplay")), stdout);
        code = 0;
        return true;
    }
    if (parsed && cli.isSet("version")) {
        std::printf("tileplay %s\n", TILEPLAY_VERSION);
        code = 0;
        return true;
    }
    // No display and no platform chosen: Qt would abort with a plugin error; say what to do.
    const bool display = qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY") ||
                         qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
    bool platform_arg = false;
    for (const auto& a : args) platform_arg |= a == "-platform" || a.startsWith("--platform");
    if (!display && !platform_arg) {
        std::fprintf(stderr,
                     "tileplay: no display (DISPLAY and WAYLAND_DISPLAY are unset). Run it under a desktop session or "
                     "Xvfb, or set QT_QPA_PLATFORM=offscreen with --screenshot FILE; `tilec` does the same work in a "
                     "terminal.\n");
        code = 2;
        return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    tp::prepare_process();
    QCommandLineParser cli;
    cli.setApplicationDescription("TilePlay: a playground for TileLang kernels");
    cli.addHelpOption();
    cli.addVersionOption();
    QCommandLineOption shot("screenshot", "Render the main window to FILE after the first compile and exit.", "FILE");
    QCommandLineOption theme("theme", "Colour theme: dark or light.", "NAME");
    QCommandLineOption target("target", "GPU target (sm_75 ... sm_90a).", "SM");
    QCommandLineOption device("device", "Where Run executes: gpu (the worker) or cpu (the interpreter).", "DEVICE");
    QCommandLineOption run("run", "With --screenshot: run the kernel after the first compile and render the window when the run ends.");
    QCommandLineOption job("job", "With --screenshot: run, bench or sweep after the first compile and render the window when the job ends.",
                           "KIND");
    cli.addOption(shot);
    cli.addOption(theme);
    cli.addOption(target);
    cli.addOption(device);
    cli.addOption(run);
    cli.addOption(job);
    cli.addPositionalArgument("file", "A TileLang .py file to open.");
    if (int code = 0; answered_without_gui(cli, argc, argv, code)) return code;

    QApplication app(argc, argv);
    QApplication::setApplicationName("tileplay");
    QApplication::setOrganizationName("TilePlay");
    QApplication::setApplicationVersion(TILEPLAY_VERSION);
    cli.process(app);

    bool screenshot = cli.isSet(shot);
    if (screenshot) QStandardPaths::setTestModeEnabled(true);  // leave the user's settings alone
    if (cli.isSet(theme)) tpui::Settings::set_theme(cli.value(theme));
    if (cli.isSet(target)) tpui::Settings::set_target(cli.value(target));
    if (cli.isSet(device)) tpui::Settings::set_device(cli.value(device) == "cpu" ? "cpu" : "gpu");

    tpui::MainWindow w;
    QString file = cli.positionalArguments().value(0);
    if (screenshot && file.isEmpty()) {
        QStringList samples = tpui::tutorial_samples(tpui::samples_dir());
        file = samples.value(samples.size() > 1 ? 1 : 0);
    }
    if (!file.isEmpty()) {
        if (!w.open_file(file)) return 2;
    } else if (QString last = tpui::Settings::last_file(); !last.isEmpty() && QFileInfo::exists(last)) {
        w.open_file(last);
    }
    w.show();
    if (screenshot) {
        QString out = cli.value(shot);
        w.resize(1720, 1040);
        auto done = [out](bool ok) {
            std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "cannot write %s\n", qPrintable(out));
            QCoreApplication::exit(ok ? 0 : 1);
        };
        const QString kind = cli.isSet(job) ? cli.value(job) : cli.isSet(run) ? QStringLiteral("run") : QString();
        if (kind == "run") w.take_screenshot_after_job(out, tpui::RunJob::Kind::Run, done);
        else if (kind == "bench") w.take_screenshot_after_job(out, tpui::RunJob::Kind::Bench, done);
        else if (kind == "sweep") w.take_screenshot_after_job(out, tpui::RunJob::Kind::Sweep, done);
        else if (kind.isEmpty()) w.take_screenshot_after_compile(out, done);
        else {
            std::fprintf(stderr, "tileplay: --job takes run, bench or sweep, not %s\n", qPrintable(kind));
            return 2;
        }
        // A compile (or job) that never finishes must not hang scripts and tests.
        QTimer::singleShot(kind.isEmpty() ? 120000 : 600000, &app, [] {
            std::fprintf(stderr, "tileplay: the screenshot's compile or run did not finish in time\n");
            QCoreApplication::exit(3);
        });
    } else {
        QTimer::singleShot(0, &w, [&w] { w.offer_recovery(); });
    }
    return app.exec();
}
