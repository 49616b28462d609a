"""The tilelang compatibility module's host APIs that TileLang's example scripts use (ctest
`python_tilelang_compat`), on the CPU interpreter with numpy, no torch: tilelang.compile of a
factory's @T.prim_func, eager-style kernels on arrays, AutoTuner, tilelang.testing, the small
tvm, and the runner of TileLang's examples end to end on a made-up examples folder.
Needs numpy; without it: [SKIP], 77.

Usage: test_tilelang_compat.py <source dir>   (TILEPLAY_LIB names the built libtileplay.so)"""

import io
import json
import os
import subprocess
import sys
import textwrap
import unittest
from contextlib import redirect_stdout

SOURCE_DIR = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))

from kernel_module import kernels_case  # noqa: E402
from needs_numpy import require_numpy  # noqa: E402

np = require_numpy(__file__, SOURCE_DIR)

sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
import tilelang  # noqa: E402
import tilelang.testing  # noqa: E402
import tileplay  # noqa: E402

KERNELS = textwrap.dedent("""\
    import tilelang
    import tilelang.language as T


    def scale_add(N, alpha=2.0, block=64, dtype="float32"):
        @T.prim_func
        def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
            with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
                for i in T.Parallel(block):
                    if bx * block + i < N:
                        C[bx * block + i] = A[bx * block + i] * alpha + B[bx * block + i]
        return main


    @T.prim_func
    def fixed(A: T.Tensor((96,), "float32"), B: T.Tensor((96,), "float32")):
        with T.Kernel(3, threads=32) as bx:
            for i in T.Parallel(32):
                B[bx * 32 + i] = A[bx * 32 + i] + 1.0


    def make_nested(N):
        def inner(block):
            @T.prim_func
            def main(A: T.Tensor((N,), "float32")):
                with T.Kernel(1, threads=block) as bx:
                    A[0] = 1.0
            return main
        return inner(32)


    def get_scaler(N, scale=2.0):
        offset = scale * 10  # a local of the outer function: the front end runs the outer body

        def kernel(block=32):
            @T.prim_func
            def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
                with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
                    for i in T.Parallel(block):
                        if bx * block + i < N:
                            B[bx * block + i] = A[bx * block + i] * scale + offset
            return main
        return kernel


    def deeper():
        def middle():
            def kernel(block=32):
                @T.prim_func
                def main(A: T.Tensor((8,), "float32")):
                    with T.Kernel(1, threads=block) as bx:
                        A[0] = 1.0
                return main
            return kernel
        return middle()


    def two_pass(N):
        @T.prim_func
        def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            partial = T.alloc_global((N,), "float32")
            with T.Kernel(N // 32, threads=32) as bx:
                for i in T.Parallel(32):
                    partial[bx * 32 + i] = A[bx * 32 + i] * 2.0
            with T.Kernel(N // 32, threads=32) as bx:
                for i in T.Parallel(32):
                    B[bx * 32 + i] = partial[bx * 32 + i] + 1.0
        return main


    @tilelang.jit(out_idx=[-1])
    def dyn_rows(block=32):
        rows = T.dynamic("rows")

        @T.prim_func
        def main(A: T.Tensor((rows, 32), "float32"), B: T.Tensor((rows, 32), "float32")):
            with T.Kernel(T.ceildiv(rows, block), threads=32) as bx:
                for i, j in T.Parallel(block, 32):
                    if bx * block + i < rows:
                        B[bx * block + i, j] = A[bx * block + i, j] * 3.0
        return main


    @tilelang.jit
    def eager_add(A, B, block: int = 32):
        M, N = T.const("M, N")
        A: T.Tensor[[M, N], T.float32]
        B: T.Tensor[[M, N], T.float32]
        C = T.empty((M, N), T.float32)
        with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
            for i, j in T.Parallel(block, N):
                if bx * block + i < M:
                    C[bx * block + i, j] = A[bx * block + i, j] + B[bx * block + i, j]
        return C


    @tilelang.jit
    def eager_masked_rows(A, Mask, block: int = 16):
        M, N = T.const("M, N")
        mask_shape = (M // block, 2)
        A: T.Tensor((M, N), T.float32)
        Mask: T.Tensor(mask_shape, "bool")
        C = T.empty((M, N), T.float32)
        with T.Kernel(M // block, threads=block) as bx:
            for i, j in T.Parallel(block, N):
                C[bx * block + i, j] = T.if_then_else(Mask[bx, 1], A[bx * block + i, j], 0.0)
        return C


    @tilelang.jit
    def eager_head_sums(Q, W, block: int = 4):
        heads, dim = T.const("heads, dim")
        rows = T.dynamic("rows")
        q_shape = [rows * heads, dim]
        Q: T.Tensor(q_shape, T.float32)
        W: T.Tensor([rows, heads], T.float32)
        Out = T.empty([rows], T.float32)
        with T.Kernel(T.ceildiv(rows, block), threads=32) as bx:
            acc = T.alloc_fragment([block * heads], T.float32)  # sized by a T.const: needs its value
            for i, h in T.Parallel(block, heads):
                acc[i * heads + h] = 0.0
                if bx * block + i < rows:
                    for d in T.serial(dim):
                        acc[i * heads + h] += Q[(bx * block + i) * heads + h, d] * W[bx * block + i, h]
            for i in T.Parallel(block):
                if bx * block + i < rows:
                    Out[bx * block + i] = 0.0
                    for h in T.serial(heads):
                        Out[bx * block + i] += acc[i * heads + h]
        return Out


    @tilelang.jit
    def eager_iota(M=40, block: int = 16):
        Out = T.empty((M,), "int32")
        with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < M:
                    Out[bx * block + i] = bx * block + i
        return Out
    """)


_Kernels = kernels_case(KERNELS, "compat_kernels")


class Compile(_Kernels):
    def test_factory_call_compiles_with_its_arguments_and_defaults(self):
        func = self.mod.scale_add(300, alpha=0.5)  # Python runs the factory, not the kernel
        self.assertEqual(func.factory, "scale_add")
        self.assertEqual(func.args, {"N": 300, "alpha": 0.5, "block": 64, "dtype": "float32"})
        kernel = tilelang.compile(func, out_idx=[-1], target="auto")
        a = np.linspace(-1, 1, 300, dtype=np.float32)
        b = np.ones(300, np.float32)
        np.testing.assert_allclose(kernel(a, b), 0.5 * a + b, rtol=1e-6)
        self.assertEqual(kernel.out_idx, [2])
        self.assertIn("__global__", kernel.get_kernel_source())

    def test_alloc_global_workspace_is_neither_passed_nor_returned(self):
        kernel = tilelang.compile(self.mod.two_pass(96), out_idx=[-1])  # -1: B, not the workspace after it
        a = np.arange(96, dtype=np.float32)
        np.testing.assert_array_equal(kernel(a), 2 * a + 1)
        self.assertEqual(kernel.out_idx, [1])

    def test_out_idx_counts_the_signature_not_the_dimension_parameters(self):
        kernel = self.mod.dyn_rows()  # @tilelang.jit(out_idx=[-1]): B, not `rows` after it
        a = np.arange(40 * 32, dtype=np.float32).reshape(40, 32)
        np.testing.assert_array_equal(kernel(a), 3 * a)

    def test_module_level_prim_func(self):
        kernel = tilelang.compile(self.mod.fixed, out_idx=1)
        a = np.arange(96, dtype=np.float32)
        np.testing.assert_array_equal(kernel(a), a + 1)

    def test_factory_nested_in_a_function_compiles_with_its_closure(self):
        kernel = tilelang.compile(self.mod.make_nested(8))  # "make_nested.inner" with N=8, block=32
        a = np.zeros(8, np.float32)
        kernel(a)
        self.assertEqual(a[0], 1.0)
        # The API mode of TileLang's autotuning examples: a factory returned by a function
        # that closes over its arguments (N, scale) and its locals (offset).
        from tilelang.autotuner import AutoTuner
        result = (AutoTuner.from_kernel(kernel=self.mod.get_scaler(100, scale=0.5), configs=[{"block": 32}, {"block": 64}])
                  .set_compile_args(out_idx=[-1]).run(warmup=1, rep=1))
        x = np.arange(100, dtype=np.float32)
        np.testing.assert_array_equal(result.kernel(x), 0.5 * x + 5.0)
        with self.assertRaisesRegex(NotImplementedError, "nested deeper"):
            tilelang.jit(out_idx=[-1])(self.mod.deeper())(block=32)

    def test_calling_a_prim_func_in_python_explains(self):
        with self.assertRaisesRegex(RuntimeError, "tilelang.compile"):
            self.mod.fixed(None, None)

    def test_jit_of_a_plain_factory_and_get_tir(self):
        factory = tilelang.jit(out_idx=[-1])(self.mod.scale_add)
        tir = factory.get_tir(64, alpha=3.0)
        kernel = tilelang.compile(tir, out_idx=[-1])
        a = np.ones(64, np.float32)
        np.testing.assert_array_equal(kernel(a, a), 4 * a)
        self.assertEqual(len(factory.par_compile([{"N": 32}, {"N": 64}])), 2)

    def test_eager_tensor_shaped_by_a_variable_takes_its_rank_from_the_compiler(self):
        a = np.arange(48 * 4, dtype=np.float32).reshape(48, 4)
        mask = np.array([[False, True], [True, False], [False, True]])
        want = a * np.repeat(mask[:, 1], 16)[:, None]
        np.testing.assert_array_equal(self.mod.eager_masked_rows(a, mask), want)

    def test_eager_symbols_read_through_a_shape_variable_size_allocations(self):
        q = np.arange(6 * 4 * 3, dtype=np.float32).reshape(6 * 4, 3) / 10
        w = np.arange(6 * 4, dtype=np.float32).reshape(6, 4)
        want = (q.reshape(6, 4, 3).sum(axis=2) * w).sum(axis=1)
        np.testing.assert_allclose(self.mod.eager_head_sums(q, w), want, rtol=1e-5)

    def test_eager_factory_without_tensors_runs_when_called(self):
        # TileLang's eager mode: the factory builds its kernel itself, so a call runs it (on the
        # CPU here: no torch GPU) and returns its T.empty output; get_tir leaves tensors out.
        np.testing.assert_array_equal(self.mod.eager_iota(40), np.arange(40, dtype=np.int32))
        self.assertEqual(self.mod.eager_add.get_tir(block=16).args, {"block": 16})
        lazy = tilelang.jit(out_idx=[-1])(self.mod.scale_add)(64)  # returns its @T.prim_func: a kernel
        self.assertIsInstance(lazy, tilelang.JITKernel)

    def test_eager_kernel_on_arrays_binds_shapes(self):
        a = np.random.default_rng(0).standard_normal((40, 24)).astype(np.float32)
        b = np.ones((40, 24), np.float32)
        np.testing.assert_allclose(self.mod.eager_add(a, b), a + b, rtol=1e-6)
        c = np.ones((8, 16), np.float32)  # other shapes: another specialisation
        np.testing.assert_array_equal(self.mod.eager_add(c, c), 2 * c)
        with self.assertRaisesRegex(ValueError, "dimension `M` is 40"):
            self.mod.eager_add(a, c)


class AutoTune(_Kernels):
    def test_autotuner_checks_times_and_keeps_the_errors(self):
        from tilelang.autotuner import AutoTuner

        def ref(A, B):
            return 2.0 * A + B

        configs = [{"N": 128, "block": 32}, {"N": 128, "block": 64}, {"N": 128, "dtype": "float3"}]
        result = (AutoTuner.from_kernel(kernel=self.mod.scale_add, configs=configs)
                  .set_compile_args(out_idx=[-1], target="auto")
                  .set_profile_args(ref_prog=ref, skip_check=False)
                  .run(warmup=1, rep=1))
        self.assertIn(result.config["block"], (32, 64))
        self.assertGreater(result.latency, 0.0)
        a = np.ones(128, np.float32)
        np.testing.assert_array_equal(result.kernel(a, a), 3 * a)

        wrong = AutoTuner.from_kernel(kernel=self.mod.scale_add, configs=configs[:1]).set_compile_args(out_idx=[-1])
        with self.assertRaisesRegex(RuntimeError, "AssertionError"):  # the check fails: no kernel is kept
            wrong.set_profile_args(ref_prog=lambda A, B: A + B).run(warmup=1, rep=1)

    def test_set_autotune_inputs_feeds_the_timing(self):
        from tilelang.autotuner import set_autotune_inputs
        tuned = tilelang.autotune(configs=[{"block": 32}], warmup=1, rep=1)(tilelang.jit(out_idx=[-1])(self.mod.scale_add))
        a = np.full(64, 3.0, np.float32)
        with set_autotune_inputs(a, a):
            kernel = tuned(64)
        np.testing.assert_array_equal(kernel(a, a), 9.0)
        short = np.ones(10, np.float32)  # the kernel is timed on these: wrong-sized, no config runs
        with set_autotune_inputs([short, short]):
            with self.assertRaisesRegex(RuntimeError, "dimension 0 must be 48"):
                tuned(48)


class Testing(unittest.TestCase):
    def test_requires_decorators_skip_without_a_gpu(self):
        calls = []
        if tileplay.cuda_device_count() > 0:
            self.skipTest("a CUDA device is present")

        @tilelang.testing.requires_cuda
        def needs_gpu():
            calls.append(1)

        with self.assertRaises(unittest.SkipTest):
            needs_gpu()
        with self.assertRaises(unittest.SkipTest):
            tilelang.testing.requires_cuda_compute_version_eq(9, 0)(needs_gpu)()
        self.assertEqual(calls, [])
        self.assertEqual(tilelang.testing.compute_version(), (0, 0))
        from tilelang.contrib import nvcc
        with self.assertRaises(ValueError):
            nvcc.get_target_compute_version()

    def test_requires_package(self):
        ran = tilelang.testing.requires_package("json")(lambda: "ran")
        self.assertEqual(ran(), "ran")
        with self.assertRaisesRegex(unittest.SkipTest, "no_such_package_xyz"):
            tilelang.testing.requires_package("no_such_package_xyz")(lambda: None)()

    def test_torch_assert_close_on_arrays(self):
        a = np.linspace(0, 1, 1000).astype(np.float32)
        b = a.copy()
        b[0] += 1.0  # one element of 1000: within max_mismatched_ratio=0.001
        self.assertTrue(tilelang.testing.torch_assert_close(a, b))
        b[1] += 1.0
        with self.assertRaisesRegex(AssertionError, "Too many mismatched elements: 2 > 1"):
            tilelang.testing.torch_assert_close(a, b)
        with self.assertRaisesRegex(AssertionError, "dtype"):
            tilelang.testing.torch_assert_close(a, a.astype(np.float64))

    def test_seed_and_regression(self):
        tilelang.testing.set_random_seed(7)
        x = np.random.rand()
        tilelang.testing.set_random_seed(7)
        self.assertEqual(np.random.rand(), x)

        def run_regression_perf(scale=1.0):
            return 0.25 * scale

        def regression_case():
            tilelang.testing.process_func(run_regression_perf, "case", scale=2.0)

        out = io.StringIO()
        with redirect_stdout(out):
            namespace = {"regression_case": regression_case}
            exec("import tilelang.testing\ntilelang.testing.regression()", namespace)
        self.assertIn("case: 0.5", out.getvalue())


class HostModules(unittest.TestCase):
    def test_tvm_and_small_helpers(self):
        from tilelang import tvm
        from tvm import DataType, tirx
        self.assertEqual((DataType("float16").bits, DataType("int4").bits, DataType("float8_e4m3").bits), (16, 4, 8))
        self.assertEqual(DataType("float32x4").lanes, 4)
        self.assertIs(tvm.DataType, DataType)
        self.assertIn("PrimExpr", repr(tirx.PrimExpr))  # an annotation Python evaluates
        self.assertEqual([tilelang.math.next_power_of_2(x) for x in (1, 5, 64, 65)], [1, 8, 64, 128])
        from tilelang.transform import PassConfigKey
        self.assertEqual(PassConfigKey.TL_DISABLE_TMA_LOWER, "tl.disable_tma_lower")
        self.assertTrue(tilelang.env.TILELANG_CACHE_DIR)
        from tilelang.cuda.intrinsics.macro.mma_macro_generator import TensorCoreIntrinEmitter
        with self.assertRaisesRegex(RuntimeError, "runs only inside a kernel"):
            TensorCoreIntrinEmitter()
        from tilelang.carver.template import MatmulTemplate
        with self.assertRaisesRegex(NotImplementedError, "roller"):
            MatmulTemplate(M=1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
