"""Shared start of the Python package tests: numpy or a [SKIP]. scripts/setup installs Debian's
python3-numpy, which /usr/bin/python3 sees even where another python3 comes first on PATH, so
a test started by another interpreter re-runs itself under /usr/bin/python3 before skipping."""

import os
import sys


def require_numpy(script, source_dir):
    """Returns the numpy module, re-executes `script` under /usr/bin/python3, or exits 77."""
    try:
        import numpy
        return numpy
    except ImportError:
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
                and not os.environ.get("TILEPLAY_TEST_REEXEC"):
            os.environ["TILEPLAY_TEST_REEXEC"] = "1"
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(script), source_dir] + sys.argv[1:])
        print("[SKIP] numpy is not installed (apt-get install python3-numpy)")
        sys.exit(77)
