// Remote workers in the playground: the model (specs, check states, labels) under
// QAbstractItemModelTester; Run on's entries (remote workers, the pool, "Add remote worker..."
// that opens the dialog and leaves the choice where it was); the dialog's checks through a
// stand-in for ssh ($TILEPLAY_SSH: runs the remote command here, or fails as an unreachable host
// does), so a bad spec, an unreachable host and a worker of another version are each refused
// with a clear line while the window keeps answering, and a good one is kept in the settings,
// chosen, and runs the kernel (the status bar says where); removing it forgets it. Record
// timeline is off without a GPU and says why. real_sshd_run does one Run through a real sshd:
// tests/scripts/remote_worker_ssh.py --then starts it (ctest ui_remote_worker_sshd) and skips
// when it cannot. TILEPLAY_TEST_SHOTS=DIR keeps PNGs for a person to look at.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window.h"
#include "models/remote_workers_model.h"
#include "panels/parameters/parameters_panel.h"
#include "panels/pipeline/lane_view.h"
#include "panels/pipeline/pipeline_panel.h"
#include "panels/workers/remote_workers_dialog.h"
#include "session/compile_service.h"
#include "session/run_service.h"
#include "session/worker_probe.h"
#include "settings.h"
#include "tileplay/doctor.h"

using namespace tpui;

namespace {

void shot(QWidget& w, const QString& name) {
    QString dir = qEnvironmentVariable("TILEPLAY_TEST_SHOTS");
    if (!dir.isEmpty()) QVERIFY(w.grab().save(dir + "/" + name + ".png"));
}

QString read_sample(const char* name) {
    QFile f(QString(TILEPLAY_SOURCE_DIR "/samples/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing sample %s", name);
    return QString::fromUtf8(f.readAll());
}

void write_script(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();
    QVERIFY(f.setPermissions(f.permissions() | QFileDevice::ExeOwner));
}

}  // namespace

class TestRemoteWorkers : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString good_, old_;  // specs of a worker of this build and of another one

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(tmp_.isValid());
        // A stand-in for ssh with the same command line: the host `nohost` is refused as ssh
        // refuses it; any other runs the remote command (after `--`) here, as its shell would.
        write_script(tmp_.filePath("fake_ssh"),
                     "#!/bin/sh\n"
                     "while [ $# -gt 0 ] && [ \"$1\" != -- ]; do\n"
                     "  case \"$1\" in nohost|*@nohost) echo 'ssh: connect to host nohost port 22: "
                     "Connection refused' >&2; exit 255;; esac\n"
                     "  shift\ndone\nshift\nexec sh -c \"$*\"\n");
        // A worker of another build: answers hello (echoing its id) with protocol 99, then exits
        // at the next request, as an old tilec that misreads it might.
        write_script(tmp_.filePath("old_tilec"),
                     "#!/bin/sh\nread line\nid=$(echo \"$line\" | sed 's/.*\"id\": *\\([0-9]*\\).*/\\1/')\n"
                     "echo '{\"id\": '$id', \"ok\": true, \"version\": \"0.0.1\", \"protocol\": 99, \"pid\": 1, \"device\": null, "
                     "\"why\": \"fake\"}'\nread line\n");
        if (qEnvironmentVariableIsEmpty("TILEPLAY_TEST_SSH_WORKER")) qputenv("TILEPLAY_SSH", tmp_.filePath("fake_ssh").toUtf8());
        good_ = "ssh://gpubox" + QString(TILEC_PATH);
        old_ = "ssh://oldbox" + tmp_.filePath("old_tilec");
    }

    void model_keeps_specs_and_checks() {
        RemoteWorkersModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.set_specs({"ssh://a", " ", "ssh://a", "slurm:gpu"});
        QCOMPARE(m.specs(), QStringList({"ssh://a", "slurm:gpu"}));
        QSignalSpy changed(&m, &RemoteWorkersModel::specs_changed);
        QVERIFY(!m.add("ssh://a"));
        QVERIFY(m.add("ssh://b"));
        QCOMPARE(changed.count(), 1);
        QVERIFY(m.may_have_gpu("ssh://b"));  // not known yet: a run there says what is wrong
        m.set_checking("ssh://b");
        QCOMPARE(m.label("ssh://b"), QString("ssh://b: checking…"));
        WorkerCheck cpu_only;
        cpu_only.ok = true;
        cpu_only.host = "box";
        m.set_check("ssh://b", cpu_only);
        QVERIFY(!m.may_have_gpu("ssh://b"));
        QCOMPARE(m.data(m.index(2), Qt::DisplayRole).toString(), QString("ssh://b: CPU only (no GPU on box)"));
        WorkerCheck gpu = cpu_only;
        gpu.device = "NVIDIA H200";
        m.set_check("ssh://a", gpu);
        QCOMPARE(m.label("ssh://a"), QString("ssh://a: NVIDIA H200 on box"));
        WorkerCheck bad;
        bad.kind = "version_mismatch";
        bad.message = "the worker at ssh://b is tilec 0.0.1";
        m.set_check("ssh://b", bad);
        QCOMPARE(m.data(m.index(2), Qt::ToolTipRole).toString(), bad.message);
        QVERIFY(m.remove("slurm:gpu"));
        QCOMPARE(m.specs(), QStringList({"ssh://a", "ssh://b"}));
    }

    void run_on_lists_workers_and_the_add_command() {
        MainWindow w;  // a ParametersPanel needs its model; the window's is at hand
        auto* p = w.findChild<ParametersPanel*>();
        auto* combo = p->findChild<QComboBox*>("run_on");
        p->set_remote_workers({{"ssh://a", "ssh://a: NVIDIA H200 on a"}});
        QVERIFY(combo->findData("ssh://a") >= 0);
        QCOMPARE(combo->findData("pool"), -1);  // a pool needs two
        QVERIFY(p->set_run_on("ssh://a"));
        p->set_remote_workers({{"ssh://a", ""}, {"ssh://b", ""}});
        QCOMPARE(p->run_on(), QString("ssh://a"));  // kept across the rebuild
        QVERIFY(combo->findData("pool") >= 0);
        QSignalSpy add(p, &ParametersPanel::add_worker_requested);
        combo->setCurrentIndex(combo->findData("add"));
        QCOMPARE(add.count(), 1);
        QCOMPARE(p->run_on(), QString("ssh://a"));  // a command, not a place
        p->set_remote_workers({{"ssh://b", ""}});
        QCOMPARE(p->run_on(), QString("gpu"));  // its worker was removed
        // Several GPUs here: each is a place of its own ("gpu" is GPU 0).
        p->set_local_gpus(3, {{"ssh://b", ""}});
        QVERIFY(combo->findData("gpu:1") >= 0 && combo->findData("gpu:2") >= 0 && combo->findData("gpu:3") < 0);
        QVERIFY(p->set_run_on("gpu:2"));
        QVERIFY(!p->cpu());
    }

    // The probe answers in the background: a bad spec at once, an unreachable host with ssh's
    // line, another version with both versions, a good one with its host.
    void probe_judges_each_worker() {
        WorkerProbe probe;
        QSignalSpy spy(&probe, &WorkerProbe::checked);
        probe.check("ftp://box");
        QCOMPARE(spy.count(), 1);
        auto r = spy.takeFirst().at(1).value<WorkerCheck>();
        QCOMPARE(r.kind, QString("bad_spec"));
        QVERIFY2(r.message.contains("expected `local`, ssh://"), qPrintable(r.message));
        QElapsedTimer t;
        t.start();
        probe.check("ssh://nohost");
        QVERIFY(probe.running("ssh://nohost"));
        QVERIFY(spy.wait(15000));
        r = spy.takeFirst().at(1).value<WorkerCheck>();
        QVERIFY2(r.message == "cannot reach the worker at ssh://nohost: ssh: connect to host nohost port 22: Connection refused",
                 qPrintable(r.message));
        probe.check(old_);
        QVERIFY(spy.wait(15000));
        r = spy.takeFirst().at(1).value<WorkerCheck>();
        QCOMPARE(r.kind, QString("version_mismatch"));
        QVERIFY2(r.message.contains("is tilec 0.0.1 (protocol 99), this is tilec") && r.message.contains("install the same build"),
                 qPrintable(r.message));
        probe.check(good_);
        QVERIFY(spy.wait(30000));
        r = spy.takeFirst().at(1).value<WorkerCheck>();
        QVERIFY2(r.ok, qPrintable(r.message));
        QVERIFY(!r.host.isEmpty());
        QVERIFY(!r.version.isEmpty());  // ok: the same version and protocol as this build
    }

    // A job sent to a worker that cannot serve it ends at once with the reason, not once per
    // configuration: an unreachable host, a worker of another build.
    void run_service_refuses_a_worker_it_cannot_use() {
        RunService runs;
        QSignalSpy done(&runs, &RunService::job_finished);
        QSignalSpy results(&runs, &RunService::result);
        RunJob job;
        job.kind = RunJob::Kind::Sweep;
        job.cpu = true;
        job.path = TILEPLAY_SOURCE_DIR "/samples/gemm.py";
        job.source = read_sample("gemm.py");
        job.configs = {{{"block_M", "64"}}, {{"block_M", "128"}}};
        for (const QString& worker : {QString("ssh://nohost"), old_}) {
            done.clear();
            results.clear();
            job.worker = worker;
            runs.start(job);
            QVERIFY(done.wait(20000));
            const QString message = done.first().at(1).toString();
            QVERIFY(!done.first().at(0).toBool());
            QVERIFY2(worker == old_ ? message.contains("is tilec 0.0.1 (protocol 99)")
                                    : message == "cannot reach the worker at ssh://nohost: ssh: connect to host nohost port 22: Connection refused",
                     qPrintable(message));
            QCOMPARE(results.count(), 1);  // the first configuration says why; the second is not tried
            QCOMPARE(results.first().at(0).value<RunResult>().error, message);
        }
        // This machine's GPU N alone: the worker starts under CUDA_VISIBLE_DEVICES=N (a CPU run
        // here, where there may be no GPU, shows that the pinned command starts and serves).
        job.worker.clear();
        job.local_gpu = 1;
        job.kind = RunJob::Kind::Run;
        job.configs = {{}};
        job.fallback_defines = {{"M", "128"}, {"N", "128"}, {"K", "128"}};
        done.clear();
        runs.start(job);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QCOMPARE(runs.where(), QString("local"));
        QFile environ(QString("/proc/%1/environ").arg(runs.worker_pid()));
        QVERIFY(runs.worker_pid() > 0 && environ.open(QIODevice::ReadOnly));
        QVERIFY(environ.readAll().split('\0').contains("CUDA_VISIBLE_DEVICES=1"));
        job.local_gpu = -1;
        job.worker = "ftp://box";
        done.clear();
        runs.start(job);
        QCOMPARE(done.count(), 1);
        QVERIFY(done.first().at(1).toString().contains("cannot read the worker `ftp://box`"));
    }

    // The dialog from Run on: refusals in red while the window stays live, a good worker kept,
    // chosen and run on; removing it forgets it.
    void dialog_adds_checks_runs_and_removes() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QSignalSpy compiled(w.compile_service(), &CompileService::finished);
        w.set_text(read_sample("gemm.py"), TILEPLAY_SOURCE_DIR "/samples/gemm.py");
        QTRY_VERIFY_WITH_TIMEOUT(!compiled.isEmpty() && !w.compile_service()->busy(), 60000);
        auto* combo = w.findChild<QComboBox*>("run_on");
        combo->setCurrentIndex(combo->findData("add"));
        RemoteWorkersDialog* d = nullptr;
        QTRY_VERIFY((d = w.findChild<RemoteWorkersDialog*>()) != nullptr);
        auto* status = d->findChild<QLabel*>("remote_worker_status");
        d->add_spec("ssh://");
        QVERIFY2(status->text().contains("no host"), qPrintable(status->text()));
        d->add_spec("ssh://nohost");
        // The check runs in the background: the window still paints and answers meanwhile.
        QVERIFY(status->text().startsWith("Checking ssh://nohost"));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith("Not added: cannot reach the worker at ssh://nohost"), 15000);
        shot(*d, "remote_workers_unreachable");
        d->add_spec(old_);
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains("protocol 99"), 15000);
        QCOMPARE(w.remote_workers()->rowCount(), 0);
        d->add_spec(good_);
        QTRY_VERIFY_WITH_TIMEOUT(w.remote_workers()->rowCount() == 1, 30000);
        QVERIFY2(status->text().startsWith(good_ + " answers: tilec "), qPrintable(status->text()));
        QCOMPARE(Settings::remote_workers(), QStringList{good_});
        QCOMPARE(w.findChild<ParametersPanel*>()->run_on(), good_);  // chosen on adding
        QCOMPARE(Settings::device(), good_);
        shot(*d, "remote_workers_added");
        d->close();

        // Where runs go is in the status bar; Run goes through the remote worker.
        const QString where = w.findChild<QLabel*>("run_on_status")->text();
        QVERIFY2(where.startsWith("Runs on: " + good_ + ": "), qPrintable(where));
        auto* record = w.findChild<QPushButton*>("pipeline_record_timeline");
        const bool remote_gpu = !w.remote_workers()->rows().front().check.device.isEmpty();
        QCOMPARE(record->isEnabled(), remote_gpu);
        if (!remote_gpu) QVERIFY2(record->toolTip().contains("needs a GPU: " + good_ + " has no GPU"), qPrintable(record->toolTip()));
        QSignalSpy results(w.run_service(), &RunService::result);
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        w.findChild<QAction*>("action_run")->trigger();
        QVERIFY(done.wait(120000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QVERIFY2(done.first().at(1).toString().contains("on ssh://gpubox"), qPrintable(done.first().at(1).toString()));
        QCOMPARE(results.count(), 1);
        const auto r = results.first().at(0).value<RunResult>();
        QCOMPARE(r.worker, QString("ssh://gpubox"));
        QVERIFY2(r.ok && r.correct, qPrintable(r.error));
        shot(w, "remote_worker_run");

        // Removed: forgotten, and Run on goes back to this machine.
        QPointer<RemoteWorkersDialog> closed = d;
        QTRY_VERIFY(closed.isNull());
        w.findChild<QComboBox*>("run_on")->setCurrentIndex(combo->findData("add"));
        QTRY_VERIFY((d = w.findChild<RemoteWorkersDialog*>()) != nullptr);
        auto* list = d->findChild<QListView*>("remote_workers_list");
        list->setCurrentIndex(list->model()->index(0, 0));
        d->findChild<QPushButton*>("remote_worker_remove")->click();
        QCOMPARE(Settings::remote_workers(), QStringList());
        QVERIFY(w.findChild<ParametersPanel*>()->run_on() == "gpu" || w.findChild<ParametersPanel*>()->run_on() == "cpu");
        d->close();
    }

    // Record timeline on a worker with a GPU: a stand-in worker (it answers hello with a GPU and
    // a stamped run with a trace, only when the load asked for tp.timeline=true) shows that the
    // window sends the pass config to the chosen worker and the Pipeline dock shows the trace's
    // lanes in microseconds.
    void record_timeline_through_a_gpu_worker() {
        WorkerProbe probe;
        QSignalSpy spy(&probe, &WorkerProbe::checked);
        probe.check(good_);
        QVERIFY(spy.wait(30000));
        const QString version = spy.takeFirst().at(1).value<WorkerCheck>().version;
        const QString fake = tmp_.filePath("fake_gpu_worker.py");
        write_script(fake, QString(R"(#!%1
import json, sys
stamped = False
trace = {"traceEvents": [
  {"name": "thread_name", "ph": "M", "pid": 5, "tid": 1, "args": {"name": "block 0 consumer wg0"}},
  {"name": "thread_name", "ph": "M", "pid": 5, "tid": 3, "args": {"name": "block 0 consumer wg1"}},
  {"name": "thread_name", "ph": "M", "pid": 5, "tid": 2, "args": {"name": "block 0 producer"}},
  {"name": "TMA load A_shared", "ph": "X", "ts": 0.0, "dur": 0.6, "pid": 5, "tid": 2, "args": {"line": 43, "kind": "tma_load"}},
  {"name": "wait full", "ph": "X", "ts": 0.2, "dur": 1.1, "pid": 5, "tid": 1, "args": {"line": 43, "kind": "mbarrier_wait", "waits": True}},
  {"name": "wait full", "ph": "X", "ts": 0.3, "dur": 2.4, "pid": 5, "tid": 3, "args": {"line": 43, "kind": "mbarrier_wait", "waits": True}},
  {"name": "wgmma", "ph": "X", "ts": 2.8, "dur": 0.9, "pid": 5, "tid": 3, "args": {"line": 45, "kind": "wgmma"}}]}
for line in sys.stdin:
    req = json.loads(line)
    op, i = req.get("op"), req.get("id")
    r = {"id": i, "ok": True}
    if op == "hello":
        r.update(version="%2", protocol=1, pid=1, host="gpuhost", device={"name": "Fake H200", "target": "sm_90a"})
    elif op == "load":
        stamped = req.get("pass_configs", {}).get("tp.timeline") == "true"
        r.update(kernel={"name": "matmul", "bound_params": {}}, target="sm_90a")
    elif op == "run":
        r.update(launch={}, wall_ms=1.0)
        if stamped:
            r["timeline"] = {"trace": trace, "records": 4, "dropped": 0}
        else:
            r["timeline_note"] = "not stamped"
    elif op == "shutdown":
        break
    print(json.dumps(r), flush=True)
)")
                               .arg(PYTHON3, version)
                               .toUtf8());
        const QString spec = "ssh://gpuhost" + fake;
        Settings::set_remote_workers({spec});
        Settings::set_device(spec);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QSignalSpy compiled(w.compile_service(), &CompileService::finished);
        w.set_text(read_sample("gemm.py"), TILEPLAY_SOURCE_DIR "/samples/gemm.py");
        QTRY_VERIFY_WITH_TIMEOUT(!compiled.isEmpty() && !w.compile_service()->busy(), 60000);
        auto* record = w.findChild<QPushButton*>("pipeline_record_timeline");
        // Checked once this session when chosen: then it is known to have a GPU.
        QTRY_VERIFY_WITH_TIMEOUT(record->isEnabled(), 15000);
        QVERIFY2(w.findChild<QLabel*>("run_on_status")->text() == "Runs on: " + spec + ": Fake H200 on gpuhost",
                 qPrintable(w.findChild<QLabel*>("run_on_status")->text()));
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        record->click();
        QVERIFY(done.wait(30000));
        auto* pipeline = w.findChild<PipelinePanel*>();
        QTRY_VERIFY(pipeline->isVisible());
        const LaneDiagram& d = pipeline->lanes()->diagram();
        QVERIFY(d.measured());
        QCOMPARE(d.lanes.size(), 3);
        QVERIFY2(d.title == "recorded on Fake H200 at ssh://gpuhost", qPrintable(d.title));
        shot(*pipeline, "record_timeline_lanes");
        // A plain Run asks for no stamps: the worker's load had no tp.timeline.
        done.clear();
        w.findChild<QAction*>("action_run")->trigger();
        QVERIFY(done.wait(30000));
        QCOMPARE(pipeline->lanes()->diagram().title, d.title);  // the recorded lanes stay
        Settings::set_remote_workers({});
        Settings::set_device("auto");
    }

    void record_timeline_needs_a_gpu() {
        MainWindow w;
        auto* p = w.findChild<ParametersPanel*>();
        auto* record = w.findChild<QPushButton*>("pipeline_record_timeline");
        p->set_cpu(true);
        QVERIFY(!record->isEnabled());
        QVERIFY2(record->toolTip().startsWith("Record timeline needs a GPU: the CPU interpreter"), qPrintable(record->toolTip()));
        p->set_cpu(false);
        std::string why;
        if (!tp::cuda_device_present(&why)) {
            QVERIFY(!record->isEnabled());
            QVERIFY2(record->toolTip().contains("this machine has no CUDA device"), qPrintable(record->toolTip()));
        } else {
            QVERIFY(record->isEnabled());
        }
    }

    // One Run through a real sshd (the ssh test's helper starts it and sets the spec).
    void real_sshd_run() {
        const QString spec = qEnvironmentVariable("TILEPLAY_TEST_SSH_WORKER");
        if (spec.isEmpty()) QSKIP("no sshd: tests/scripts/remote_worker_ssh.py --then runs this with one");
        Settings::set_remote_workers({spec});
        Settings::set_device(spec);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QSignalSpy compiled(w.compile_service(), &CompileService::finished);
        w.set_text(read_sample("gemm.py"), TILEPLAY_SOURCE_DIR "/samples/gemm.py");
        QTRY_VERIFY_WITH_TIMEOUT(!compiled.isEmpty() && !w.compile_service()->busy(), 60000);
        QCOMPARE(w.findChild<ParametersPanel*>()->run_on(), spec);
        QSignalSpy results(w.run_service(), &RunService::result);
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        w.findChild<QAction*>("action_run")->trigger();
        QVERIFY(done.wait(120000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        const auto r = results.first().at(0).value<RunResult>();
        QVERIFY2(r.ok && r.correct, qPrintable(r.error));
        QVERIFY(r.worker.startsWith("ssh://localhost:"));
        const QString where = w.findChild<QLabel*>("run_on_status")->text();
        QVERIFY2(where.startsWith("Runs on: " + spec + ": "), qPrintable(where));
        shot(w, "remote_worker_sshd_run");
        Settings::set_remote_workers({});
        Settings::set_device("auto");
    }
};

QTEST_MAIN(TestRemoteWorkers)
#include "test_remote_workers.moc"
