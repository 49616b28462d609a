"""What the worker tests (remote_worker_ssh.py, worker_pool.py, worker_slurm.py) share: a free
local port, and the verdict lines ctest reads ([SKIP] counts as skipped, FAIL as failed)."""
import socket
import sys


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def skip(why):
    print(f"[SKIP] {why}")
    sys.exit(0)


def fail(why):
    print(f"FAIL: {why}")
    sys.exit(1)
