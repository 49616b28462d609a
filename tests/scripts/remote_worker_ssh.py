#!/usr/bin/env python3
"""`tilec run --worker ssh://localhost:PORT/...` against a throw-away sshd of the test's own.

Makes a host key and a client key in a temp dir, starts /usr/sbin/sshd on a free port as the
current user with its own config (no system sshd, nothing written to ~/.ssh or /etc), and points
tilec at it through TILEPLAY_SSH="ssh -F <its config>". Checks that:
  - a CPU run through the remote worker gives the same outputs and check as the local run;
  - a worker of another protocol/version is refused at start with a clear message;
  - an unreachable host is a clear error within seconds, not a hang.
Prints [SKIP] only when sshd cannot be started here. Usage: remote_worker_ssh.py TILEC SOURCE_DIR
[--then CMD ARGS...]: with --then, runs CMD instead of the checks above, its environment pointing
at the sshd (TILEPLAY_SSH, and TILEPLAY_TEST_SSH_WORKER=ssh://localhost:PORT/TILEC), and passes
or fails with it (the playground's test of a Run through a remote worker).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from worker_test_util import fail, free_port, skip

SSHD = "/usr/sbin/sshd"


def start_sshd(tmp):
    """The sshd and the ssh config that reaches it, or a skip when sshd cannot start."""
    if not os.path.exists(SSHD) or not shutil.which("ssh-keygen"):
        skip("no openssh-server (scripts/setup installs it)")
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{tmp}/{name}"], check=True)
    shutil.copy(f"{tmp}/client_key.pub", f"{tmp}/authorized_keys")
    port = free_port()
    user = os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    with open(f"{tmp}/sshd_config", "w") as f:
        f.write(f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp}/host_key\nPidFile {tmp}/sshd.pid\n"
                f"AuthorizedKeysFile {tmp}/authorized_keys\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                f"KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
                f"AllowUsers {user}\nLogLevel ERROR\n")
    host_pub = open(f"{tmp}/host_key.pub").read().split()
    with open(f"{tmp}/known_hosts", "w") as f:
        f.write(f"[localhost]:{port} {host_pub[0]} {host_pub[1]}\n")
    with open(f"{tmp}/ssh_config", "w") as f:
        f.write(f"Host *\n  User {user}\n  IdentityFile {tmp}/client_key\n  IdentitiesOnly yes\n"
                f"  UserKnownHostsFile {tmp}/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
                f"  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
    # sshd run by root wants its privilege-separation directory; the Debian service creates it
    # at boot, a container may not have it. It lives in /run (tmpfs), not /etc.
    if os.geteuid() == 0 and not os.path.isdir("/run/sshd"):
        try:
            os.makedirs("/run/sshd", mode=0o755)
        except OSError as e:
            skip(f"sshd needs /run/sshd: {e}")
    sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", f"{tmp}/sshd_config"], stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 5
    while time.time() < deadline:
        if sshd.poll() is not None:
            skip(f"sshd did not start: {sshd.stderr.read().strip()[:300]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return sshd, port
        except OSError:
            time.sleep(0.1)
    sshd.kill()
    skip("sshd did not listen within 5 s")


def tilec_run(tilec, args, env, timeout=60):
    t0 = time.time()
    p = subprocess.run([tilec, "run", *args], capture_output=True, text=True, env=env, timeout=timeout)
    return p, time.time() - t0


def main():
    tilec, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    sample = os.path.join(root, "samples", "gemm.py")
    tmp = tempfile.mkdtemp(prefix="tileplay_ssh_")
    sshd = None
    try:
        sshd, port = start_sshd(tmp)
        env = dict(os.environ, TILEPLAY_SSH=f"ssh -F {tmp}/ssh_config")
        login = subprocess.run(["ssh", "-F", f"{tmp}/ssh_config", "-p", str(port), "-o", "BatchMode=yes", "localhost", "true"],
                               capture_output=True, text=True, timeout=20)
        if login.returncode != 0:
            fail(f"cannot log in to the test's sshd: {login.stderr.strip()}")
        if "--then" in sys.argv:
            cmd = sys.argv[sys.argv.index("--then") + 1:]
            then = subprocess.run(cmd, env=dict(env, TILEPLAY_TEST_SSH_WORKER=f"ssh://localhost:{port}{tilec}"), timeout=240)
            if then.returncode != 0:
                fail(f"{' '.join(cmd)} exited with {then.returncode}")
            print("PASS")
            return

        # 1. The same run locally and through the remote worker.
        local, _ = tilec_run(tilec, ["--device", "cpu", "--check", "--json", sample], env)
        remote, secs = tilec_run(tilec, ["--device", "cpu", "--check", "--json", "--worker", f"ssh://localhost:{port}{tilec}", sample], env)
        if local.returncode != 0 or remote.returncode != 0:
            fail(f"exit codes local {local.returncode}, remote {remote.returncode}: {remote.stderr.strip()}")
        lj, rj = json.loads(local.stdout), json.loads(remote.stdout)
        if not lj["outputs"] or lj["outputs"] != rj["outputs"]:
            fail(f"outputs differ: local {lj['outputs']} remote {rj['outputs']}")
        lc, rc = lj["check"], rj["run"]["check"]["outputs"][0]
        if not (lc["pass"] and rc["pass"] and lc["rel_fro"] == rc["rel_fro"]):
            fail(f"checks differ: local {lc} remote {rc}")
        if rj["worker"] != f"ssh://localhost:{port}":
            fail(f"the reply names the worker {rj['worker']}")
        print(f"PASS remote run equals the local one ({secs:.1f} s over ssh)")

        # 2. A worker of another build is refused at start, saying what to do.
        fake = f"{tmp}/old_tilec"
        with open(fake, "w") as f:
            f.write('#!/bin/sh\nread line\necho \'{"id": 1, "ok": true, "version": "0.0.1", "protocol": 99, '
                    '"pid": 1, "device": null, "why": "fake"}\'\nread line\n')
        os.chmod(fake, 0o755)
        old, _ = tilec_run(tilec, ["--device", "cpu", "--worker", f"ssh://localhost:{port}{fake}", sample], env)
        if old.returncode == 0 or "protocol 99" not in old.stderr or "install the same build" not in old.stderr:
            fail(f"a mismatched worker was not refused clearly (exit {old.returncode}): {old.stderr.strip()}")
        print("PASS mismatched worker refused: " + old.stderr.strip().splitlines()[-1])

        # 3. Nobody listening: a clear error in seconds.
        dead, secs = tilec_run(tilec, ["--device", "cpu", "--worker", f"ssh://localhost:{free_port()}{tilec}", sample], env, 30)
        if dead.returncode == 0 or "cannot reach the worker at ssh://localhost" not in dead.stderr or secs > 15:
            fail(f"unreachable worker: exit {dead.returncode} after {secs:.1f} s: {dead.stderr.strip()}")
        print(f"PASS unreachable worker reported in {secs:.1f} s: " + dead.stderr.strip().splitlines()[-1])
    finally:
        if sshd:
            sshd.kill()
            sshd.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
