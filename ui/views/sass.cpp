// nvdisasm runs as a child process on a temporary copy of the cubin.
#include "views/sass.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryFile>

#include "views/line_links.h"

namespace tpui {

QString find_nvdisasm() {
    QString p = QStandardPaths::findExecutable("nvdisasm");
    if (!p.isEmpty()) return p;
    QStringList dirs;
    if (!qEnvironmentVariable("CUDA_HOME").isEmpty()) dirs << qEnvironmentVariable("CUDA_HOME") + "/bin";
    dirs << "/usr/local/cuda/bin";
    for (const auto& d : dirs)
        if (QFileInfo(d + "/nvdisasm").isExecutable()) return d + "/nvdisasm";
    return {};
}

SassOutput disassemble(const std::vector<uint8_t>& cubin, const QString& dsl_path) {
    SassOutput out;
    if (cubin.empty()) {
        out.text = QStringLiteral("// no SASS: there is no cubin (the compile stopped before NVRTC produced one)");
        return out;
    }
    QString tool = find_nvdisasm();
    if (tool.isEmpty()) {
        out.text = QStringLiteral("// no SASS: nvdisasm was not found (looked in PATH, $CUDA_HOME/bin and "
                                  "/usr/local/cuda/bin); install the CUDA toolkit's nvdisasm to see the machine code");
        return out;
    }
    QTemporaryFile f(QDir::tempPath() + "/tileplay-XXXXXX.cubin");
    if (!f.open() || f.write(reinterpret_cast<const char*>(cubin.data()), qint64(cubin.size())) != qint64(cubin.size())) {
        out.text = QStringLiteral("// no SASS: cannot write a temporary cubin: %1").arg(f.errorString());
        return out;
    }
    f.flush();
    QProcess p;
    p.start(tool, {"-g", "-c", f.fileName()});
    if (!p.waitForFinished(15000) || p.exitCode() != 0) {
        out.text = QStringLiteral("// no SASS: `nvdisasm` failed: %1").arg(QString::fromUtf8(p.readAllStandardError()).trimmed());
        if (p.state() != QProcess::NotRunning) p.kill();
        return out;
    }
    out.ok = true;
    out.text = QString::fromUtf8(p.readAllStandardOutput());
    out.lines = sass_line_map(out.text.toStdString(), dsl_path.toStdString());
    return out;
}

}  // namespace tpui
