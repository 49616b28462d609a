"""The runner of TileLang's example scripts (run_tilelang_examples.py) end to end on a made-up
examples folder, on the CPU interpreter with numpy (ctest `python_example_runner`): a script
entered through its CI test function passes, a wrong check is `numerical`, a name we lack is
`missing_api`, a hang is a `timeout`, an sm100 folder is excluded, and dry mode lists the
missing name. Needs numpy; without it: [SKIP], 77.

Usage: test_example_runner.py <source dir>   (TILEPLAY_LIB names the built libtileplay.so)"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SOURCE_DIR = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))
PYTHON = sys.executable
from needs_numpy import require_numpy  # noqa: E402

require_numpy(__file__, SOURCE_DIR)

RUNNER = os.path.join(SOURCE_DIR, "tests", "python", "run_tilelang_examples.py")

VEC = '''\
import numpy as np
import tilelang
import tilelang.language as T


def vec_scale(N, factor=3.0, block=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    B[bx * block + i] = A[bx * block + i] * factor
    return main


def main(N=256, expect=3.0):
    kernel = tilelang.compile(vec_scale(N), out_idx=[-1])
    a = np.arange(N, dtype=np.float32)
    np.testing.assert_allclose(kernel(a), expect * a)


if __name__ == "__main__":
    main()
'''

FILES = {
    "vec/example_vec.py": VEC,
    "vec/test_example_vec.py": "import tilelang.testing\nimport example_vec\n\n\ndef test_example_vec():\n"
                               "    example_vec.main(N=100)\n\n\ndef test_imported_inside():\n"
                               "    from example_vec_lib import main\n    main(N=50)\n\n\n"
                               "if __name__ == '__main__':\n    tilelang.testing.main()\n",
    # no __main__: a unit only because a test function imports from it
    "vec/example_vec_lib.py": VEC.replace('if __name__ == "__main__":\n    main()\n', ""),
    # an optional package it goes on without, then uses: a dependency, not our failure
    "vec/example_optional.py": "try:\n    from not_a_real_package.ops import fused\nexcept ImportError:\n"
                               "    print('not found')\n\nif __name__ == '__main__':\n    fused()\n",
    "vec/example_wrong.py": VEC.replace("    main()\n", "    main(expect=4.0)\n"),
    "tools/example_plot.py": "from tilelang.tools import plot_layout\n\nif __name__ == '__main__':\n    plot_layout()\n",
    "slow/example_hang.py": "import time\n\nif __name__ == '__main__':\n    time.sleep(60)\n",
    "gemm_tcgen05/example_tc.py": "if __name__ == '__main__':\n    raise SystemExit(1)\n",
    "vec/helper.py": "X = 1\n",  # no __main__, no CI test: not a script
}


class Runner(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.examples = os.path.join(cls.tmp.name, "examples")
        for rel, text in FILES.items():
            path = os.path.join(cls.examples, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(textwrap.dedent(text))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_runner(self, *args):
        out = os.path.join(self.tmp.name, "out" + str(len(args)))
        proc = subprocess.run([PYTHON, RUNNER, self.examples, "--out", out, "--manifest", ""] + list(args),
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return out, proc.stdout

    def test_run_classifies_each_script(self):
        out, stdout = self.run_runner("--jobs", "2", "--timeout", "8", "--deadline", "90")
        with open(os.path.join(out, "results.json")) as f:
            doc = json.load(f)
        got = {r["script"]: (r["status"], r.get("category", ""), r["entry"]) for r in doc["results"]}
        self.assertEqual(got, {
            "vec/example_vec.py": ("pass", "", "ci"),
            "vec/example_wrong.py": ("fail", "numerical", "main"),
            "vec/example_vec_lib.py": ("pass", "", "ci"),
            "vec/example_optional.py": ("fail", "dependency", "main"),
            "tools/example_plot.py": ("fail", "missing_api", "main"),
            "slow/example_hang.py": ("timeout", "timeout", "main"),
            "gemm_tcgen05/example_tc.py": ("excluded", "", "main"),
        })
        self.assertEqual(doc["totals"]["scripts"], 6)
        self.assertEqual(doc["totals"]["pass"], 2)
        self.assertIn("pass: 2 of 6", stdout)
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
        self.assertIn("| vec | 4 | 2 |", md)
        self.assertIn("gemm_tcgen05/example_tc.py: sm100-only", md)

    def test_dry_mode_lists_the_missing_name(self):
        out, _ = self.run_runner("--dry")
        with open(os.path.join(out, "dry.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["scripts"]["tools/example_plot.py"], ["tilelang.tools.plot_layout"])
        self.assertEqual(doc["scripts"]["vec/example_vec.py"], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
