"""Child process of the example runner for a CI entry: runs the test functions of a TileLang
examples/*/test_*.py (e.g. test_example_gemm.py::test_example_gemm) the way pytest would call
them, without needing pytest: the test file's folder first on sys.path, the module imported
from its path, each function called in turn. A function skipped by its requires_* decorator
(unittest.SkipTest, or pytest's skip where pytest is installed) is reported, not failed.

Usage: example_driver.py EXAMPLES_DIR TEST_FILE::FUNCTION [...]
Exit: 0 every function passed, 1 one failed (its traceback on stderr), 3 all were skipped."""

import importlib
import importlib.util
import os
import sys
import traceback
import unittest


def _is_skip(exc):
    if isinstance(exc, unittest.SkipTest):
        return True
    # pytest.skip() raises pytest's Skipped, an OutcomeException outside Exception's tree
    return type(exc).__name__ in ("Skipped", "SkipTest")


def _load(examples, test_rel):
    path = os.path.join(examples, test_rel)
    folder = os.path.dirname(os.path.abspath(path))
    os.chdir(folder)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _seed_as_conftest():
    """TileLang's examples/conftest.py seeds random, torch and numpy with 0 before the tests."""
    import random
    random.seed(0)
    for name, seed in (("torch", "manual_seed"), ("numpy.random", "seed")):
        try:
            getattr(importlib.import_module(name), seed)(0)
        except ImportError:
            pass


def main(argv):
    examples = os.path.abspath(argv[1])
    _seed_as_conftest()
    modules, ran, skipped = {}, 0, 0
    for item in argv[2:]:
        test_rel, func = item.split("::", 1)
        try:
            if test_rel not in modules:
                modules[test_rel] = _load(examples, test_rel)
            fn = getattr(modules[test_rel], func)
            print("[driver] %s" % item, flush=True)
            fn()
            ran += 1
        except BaseException as e:  # noqa: B036 - pytest's Skipped derives from BaseException
            if _is_skip(e):
                print("[driver] skipped %s: %s" % (item, e), flush=True)
                skipped += 1
                continue
            if isinstance(e, KeyboardInterrupt):
                raise
            if isinstance(e, SystemExit) and e.code in (0, None):  # a main() that exits cleanly
                ran += 1
                continue
            traceback.print_exc()
            print("[driver] failed %s" % item, file=sys.stderr, flush=True)
            return 1
    return 0 if ran else 3 if skipped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
