#!/usr/bin/env python3
"""`tilec sweep --worker slurm:PARTITION` (twice) on a one-node Slurm the test starts itself.

munged, slurmctld and slurmd run in the foreground as the test's children, each with files in
a temp dir only (its own munge key and socket, slurm.conf on free ports, state and spool
dirs): no system service is started or changed. Two workers are launched with `srun`; the
sweep must check every config with the verdicts of a sweep without workers, on both workers.
Prints [SKIP] only when the Slurm daemons cannot be started here (Debian's slurm-wlm and munge
missing, or a node that never comes up). Usage: worker_slurm.py TILEC SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from worker_test_util import fail, free_port, skip

AXES = ["block_N=64,128,256", "threads=64,128"]  # 6 configs


def write_conf(tmp, host):
    conf = f"""ClusterName=tileplaytest
SlurmctldHost={host}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser={os.environ.get("USER", "root")}
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={tmp}/munge.sock
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName={host} CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=tptest Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
"""
    with open(f"{tmp}/slurm.conf", "w") as f:
        f.write(conf)


def start_slurm(tmp, env):
    """The daemons (children of this test), or a skip when they cannot start."""
    for exe in ("munged", "mungekey", "slurmctld", "slurmd", "srun", "sinfo"):
        if not shutil.which(exe) and not os.path.exists(f"/usr/sbin/{exe}"):
            skip(f"no `{exe}` (Debian's slurm-wlm and munge; scripts/setup installs them)")
    if os.geteuid() != 0:
        skip("slurmd must run as root to launch jobs")
    host = subprocess.run(["hostname", "-s"], capture_output=True, text=True).stdout.strip()
    os.makedirs(f"{tmp}/state"), os.makedirs(f"{tmp}/spool")
    subprocess.run(["mungekey", "--create", f"--keyfile={tmp}/munge.key"], check=True, capture_output=True)
    os.chmod(f"{tmp}/munge.key", 0o600)
    write_conf(tmp, host)
    procs = [subprocess.Popen(["munged", "-F", "--force", f"--key-file={tmp}/munge.key", f"--socket={tmp}/munge.sock",
                               f"--pid-file={tmp}/munged.pid", f"--log-file={tmp}/munged.log", f"--seed-file={tmp}/munge.seed"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)]
    for _ in range(50):
        if os.path.exists(f"{tmp}/munge.sock"):
            break
        time.sleep(0.1)
    for d in ("slurmctld", "slurmd"):
        procs.append(subprocess.Popen([d, "-D", "-f", f"{tmp}/slurm.conf"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.STDOUT))
    deadline = time.time() + 20
    while time.time() < deadline:
        if any(p.poll() is not None for p in procs):
            break
        state = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True).stdout.strip()
        if state in ("idle", "mixed", "allocated"):
            return procs
        time.sleep(0.3)
    log = ""
    for name in ("slurmctld.log", "slurmd.log", "munged.log"):
        if os.path.exists(f"{tmp}/{name}"):
            log += f"{name}: " + open(f"{tmp}/{name}").read()[-300:]
    stop(procs)
    skip(f"the one-node Slurm did not come up: {log}")


def stop(procs):
    for p in reversed(procs):
        p.terminate()
    for p in reversed(procs):
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main():
    tilec, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    sample = os.path.join(root, "samples", "vector_add.py")
    tmp = tempfile.mkdtemp(prefix="tileplay_slurm_")
    env = dict(os.environ, SLURM_CONF=f"{tmp}/slurm.conf", TILEPLAY_REMOTE_TILEC=tilec)
    procs = []
    try:
        procs = start_slurm(tmp, env)
        axes = sum((["-D", a] for a in AXES), [])
        alone = subprocess.run([tilec, "sweep", sample, "--device", "cpu", "--json", *axes], capture_output=True, text=True, timeout=120)
        t0 = time.time()
        pooled = subprocess.run([tilec, "sweep", sample, "--device", "cpu", "--json", "--worker", "slurm:tptest", "--worker",
                                 "slurm:tptest", *axes], capture_output=True, text=True, env=env, timeout=120)
        if alone.returncode != 0 or pooled.returncode != 0:
            fail(f"sweep exit codes {alone.returncode} / {pooled.returncode}: {pooled.stderr[-600:]}")
        a, p = json.loads(alone.stdout), json.loads(pooled.stdout)
        verdict = lambda rows: {r["config"]: (r.get("check", {}).get("ok"), r.get("check", {}).get("rel_fro"), r.get("error")) for r in rows}
        if len(p["configs"]) != 6 or verdict(a["configs"]) != verdict(p["configs"]):
            fail(f"the Slurm sweep differs:\n{verdict(a['configs'])}\n{verdict(p['configs'])}")
        workers = {r["worker"] for r in p["configs"]}
        if workers != {"slurm:tptest #1", "slurm:tptest #2"}:
            fail(f"configs ran on {workers}, expected both Slurm workers")
        if p["pool_notes"]:
            fail(f"unexpected pool notes: {p['pool_notes']}")
        print(f"PASS 6 configs over two srun workers in {time.time() - t0:.1f} s: {p['device']}")
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
