"""tilelang.tools on TilePlay (ctest `python_tilelang_tools`), on the CPU interpreter with numpy:
iket's host side (sessions, the event table read from the kernel's source, output paths) around
a kernel that carries iket events and still computes its result; Analyzer's work counts and
roofline estimate. Needs numpy; without it:
[SKIP], 77.

Usage: test_tilelang_tools.py <source dir>   (TILEPLAY_LIB names the built libtileplay.so)"""

import os
import sys
import textwrap
import unittest

SOURCE_DIR = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))

from kernel_module import kernels_case  # noqa: E402
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


    def tiled_gemm(M, N, K, bm=32, bn=32, bk=16):
        @T.prim_func
        def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
            with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
                A_s = T.alloc_shared((bm, bk), "float16")
                B_s = T.alloc_shared((bk, bn), "float16")
                C_l = T.alloc_fragment((bm, bn), "float32")
                T.clear(C_l)
                for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                    T.copy(A[by * bm, k * bk], A_s)
                    T.copy(B[k * bk, bx * bn], B_s)
                    T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C[by * bm, bx * bn])
        return main


    def runtime_trips(n, steps):
        @T.prim_func
        def main(A: T.Tensor((n,), "float32"), Trips: T.Tensor((1,), "int32")):
            with T.Kernel(1, threads=32) as bx:
                for s in T.serial(Trips[0]):
                    for i in T.Parallel(n):
                        A[i] = A[i] + 1.0
        return main
    """)


_Kernels = kernels_case(KERNELS, "iket_kernels")


class Iket(_Kernels):
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


class Analyzer(_Kernels):
    def test_gemm_work_and_roofline(self):
        from tilelang.tools import Analyzer as A
        r = A.analysis(self.mod.tiled_gemm(128, 64, 256), "sm_80")
        self.assertEqual(r.total_flops, 2 * 128 * 64 * 256)
        # every block loads its A and B tiles each k step and stores its C tile once
        tiles = (64 // 32) * (128 // 32)
        self.assertEqual(r.total_global_bytes, tiles * (256 // 16) * (32 * 16 + 16 * 32) * 2 + 128 * 64 * 4)
        self.assertTrue(r.exact)
        self.assertEqual(r.expected_bandwidth_GBps, tileplay_figures("sm_80")["dram_gbps"])
        self.assertAlmostEqual(r.estimated_time, max(r.total_global_bytes / (r.expected_bandwidth_GBps * 1e9),
                                                     r.total_flops / (r.expected_tflops * 1e12)))

    def test_element_accesses_count_and_runtime_trip_counts_are_assumptions(self):
        from tilelang.tools import Analyzer as A
        r = A.analysis(self.mod.runtime_trips(64, 3), "sm_90a")
        self.assertEqual(r.total_flops, 0)
        self.assertEqual(r.total_global_bytes, 64 * 4 * 2 + 4)  # one trip assumed: A read and written, Trips read
        self.assertFalse(r.exact)
        self.assertTrue(any("run time" in a for a in r.assumptions), r.assumptions)


def tileplay_figures(target):
    import tileplay
    return tileplay.target_figures(target)


if __name__ == "__main__":
    unittest.main(verbosity=2)
