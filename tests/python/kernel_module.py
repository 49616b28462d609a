"""Shared by the Python package tests: a test case whose class imports a module written from a
text of kernels (a real source file, which TilePlay's front end reads)."""

import importlib.util
import os
import tempfile
import unittest


def kernels_case(text, module_name):
    """A TestCase base class whose `mod` is `text` imported as `module_name` from a temp file."""

    class KernelsCase(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            cls.dir = tempfile.TemporaryDirectory()
            path = os.path.join(cls.dir.name, module_name + ".py")
            with open(path, "w") as f:
                f.write(text)
            spec = importlib.util.spec_from_file_location(module_name, path)
            cls.mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(cls.mod)

        @classmethod
        def tearDownClass(cls):
            cls.dir.cleanup()

    return KernelsCase
