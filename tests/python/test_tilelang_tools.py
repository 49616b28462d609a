"""tilelang.tools on TilePlay (ctest `python_tilelang_tools`), on the CPU interpreter with numpy:
iket's host side (sessions, the event table read from the kernel's source, output paths) around
a kernel that carries iket events and still computes its result. Needs numpy; without it:
[SKIP], 77.

Usage: test_tilelang_tools.py <source dir>   (TILEPLAY_LIB names the built libtileplay.so)"""

import os
import sys
import tempfile
import textwrap
import unittest

SOURCE_DIR = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))

from needs_numpy import require_numpy  # noqa: E402

np = require_numpy(__file__, SOURCE_DIR)

sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
import tilelang  # noqa: E402

KERNELS = textwrap.dedent("""\
    import tilelang
    import tilelang.language as T
    from tilelang.tools.cuda import iket


    def add_with_events(n, threads=32):
        @T.prim_func
        def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32"), C: T.Tensor((n,), "float32")):
            with T.Kernel(T.ceildiv(n, threads), threads=threads) as bx, iket.range("block"):
                iket.mark("enter", payload=iket.payload(bx, dtype="int32"))
                for i in T.Parallel(threads):
                    if bx * threads + i < n:
                        iket.mark("store")
                        C[bx * threads + i] = A[bx * threads + i] + B[bx * threads + i]
                iket.mark("leave", payload=iket.payload(0.5))
                iket.mark("enter", payload=iket.payload(bx, dtype="int32"))
        return main
    """)


class Iket(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        path = os.path.join(cls.dir.name, "iket_kernels.py")
        with open(path, "w") as f:
            f.write(KERNELS)
        import importlib.util
        spec = importlib.util.spec_from_file_location("iket_kernels", path)
        cls.mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.mod)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_session_records_the_kernels_events_and_the_kernel_still_computes(self):
        from tilelang.tools.cuda import iket
        out = os.path.join(self.dir.name, "traces")
        with iket.session(output_dir=out, runtime_payloads=True):
            program = self.mod.add_with_events(100)
            table = iket.event_table()
            self.assertEqual(iket.output_dir(), __import__("pathlib").Path(out))
            self.assertTrue(iket.runtime_payloads_enabled())
            kernel = tilelang.compile(program, out_idx=-1)
        self.assertFalse(iket.runtime_payloads_enabled())  # restored at the end of the session
        self.assertEqual([(e["name"], e["kind"], e["event_id"], e["payload_type"]) for e in table],
                         [("block", "range", 1, "NoPayload"), ("enter", "mark", 2, "int32"),
                          ("store", "mark", 3, "NoPayload"), ("leave", "mark", 4, "float32")])
        self.assertEqual(table[1]["runtime_payload_iket_id"], 5)
        self.assertNotEqual(table[0]["range_id"], 0)
        a = np.arange(100, dtype=np.float32)
        np.testing.assert_array_equal(kernel(a, 2 * a), 3 * a)
        self.assertIn("iket_event", kernel.get_kernel_source())
        self.assertEqual(iket.output_path("k.cu", directory=out).parent, __import__("pathlib").Path(out))
        self.assertEqual(iket.trace_files(directory=out), [])  # only an IKET profiler writes traces

    def test_a_new_session_numbers_from_one_and_kernel_only_calls_say_so(self):
        from tilelang.tools.cuda import iket
        with iket.session():
            self.mod.add_with_events(64)
            self.assertEqual(iket.event_table()[0]["event_id"], 1)
            self.assertEqual(iket.event_table()[1]["runtime_payload_iket_id"], 0)  # payloads off
        with self.assertRaisesRegex(RuntimeError, "only inside a kernel"):
            iket.mark("x")
        self.assertIn("--output-dir /tmp/x", iket.profile_command(["python3", "k.py"], directory="/tmp/x"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
