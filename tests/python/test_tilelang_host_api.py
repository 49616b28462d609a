"""Host-side TileLang APIs that example scripts call before or around a kernel (ctest
`python_tilelang_host`), on the CPU interpreter with numpy, no torch: factory arguments that are
None, tuples, lists or T.<enum> members; factory.compile() of an eager-style kernel naming its
T.const symbols; factory.get_kernel_source(); autotune's compile() and per-config pass_configs;
profiler.func; T.dtype's conversions; tilelang.language.fp8's host helpers; tilelang.engine.callback.
Needs numpy; without it: [SKIP], 77.

Usage: test_tilelang_host_api.py <source dir>   (TILEPLAY_LIB names the built libtileplay.so)"""

import importlib.util
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
import tilelang.language as T  # noqa: E402
import tileplay  # noqa: E402

KERNELS = textwrap.dedent("""\
    import tilelang
    import tilelang.language as T


    @tilelang.jit(out_idx=[-1])
    def offsets(sizes, scale=None, policy=T.GemmWarpPolicy.Square, block=32):
        # sizes: a tuple or list of ints; scale None means 1/len(sizes); the policy picks a sign
        N = sum(sizes)
        factor = 1.0 / len(sizes) if scale is None else scale
        sign = 1.0 if policy == T.GemmWarpPolicy.Square else -1.0

        @T.prim_func
        def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
                for i in T.Parallel(block):
                    if bx * block + i < N:
                        B[bx * block + i] = A[bx * block + i] * factor * sign
        return main


    @tilelang.jit
    def eager_scale(A, alpha, block: int = 16, dtype=T.float32):
        M, N = T.const("M, N")
        A: T.Tensor[[M, N], dtype]
        C = T.empty((M, N), dtype)
        with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
            for i, j in T.Parallel(block, N):
                if bx * block + i < M:
                    C[bx * block + i, j] = A[bx * block + i, j] * alpha
        return C


    @tilelang.autotune(configs=[{"block": 16}, {"block": 32, "pass_configs": {"tl.disable_warp_specialized": True}}],
                       warmup=1, rep=1)
    @tilelang.jit
    def tuned_scale(A, alpha, block: int = 16):
        M, N = T.const("M, N")
        A: T.Tensor[[M, N], T.float32]
        C = T.empty((M, N), T.float32)
        with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
            for i, j in T.Parallel(block, N):
                if bx * block + i < M:
                    C[bx * block + i, j] = A[bx * block + i, j] * alpha
        return C


    @tilelang.autotune(configs=[{"blk_m": 8}, {"blk_m": 16}], warmup=1, rep=1)
    @tilelang.jit
    def row_max(logits, blk_m, threads=32):
        # the fragment is sized by the symbol N: no compile can happen before N is known
        M, N = T.const("M, N")
        logits: T.Tensor([M, N], T.float32)
        out = T.empty([M], T.float32)
        with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
            frag = T.alloc_fragment([blk_m, N], T.float32)
            best = T.alloc_fragment([blk_m], T.float32)
            T.copy(logits[bx * blk_m, 0], frag)
            T.reduce_max(frag, best, dim=1, clear=True)
            for i in T.Parallel(blk_m):
                out[bx * blk_m + i] = best[i]
        return out
    """)


def setUpModule():
    global _dir, mod
    _dir = tempfile.TemporaryDirectory()
    path = os.path.join(_dir.name, "host_api_kernels.py")
    with open(path, "w") as f:
        f.write(KERNELS)
    spec = importlib.util.spec_from_file_location("host_api_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)


def tearDownModule():
    _dir.cleanup()


class FactoryArguments(unittest.TestCase):
    a = np.arange(27, dtype=np.float32)

    def test_tuple_and_list_arguments_reach_the_factory_as_sequences(self):
        np.testing.assert_allclose(mod.offsets((5, 9, 13))(self.a), self.a / 3, rtol=1e-6)
        b = np.arange(12, dtype=np.float32)
        np.testing.assert_allclose(mod.offsets([4, 8])(b), b / 2, rtol=1e-6)

    def test_none_and_a_float_are_told_apart(self):
        np.testing.assert_allclose(mod.offsets((27,), scale=None)(self.a), self.a, rtol=1e-6)
        np.testing.assert_allclose(mod.offsets((27,), scale=0.25)(self.a), self.a * 0.25, rtol=1e-6)

    def test_an_enum_member_is_passed_as_itself(self):
        square = mod.offsets((27,), policy=T.GemmWarpPolicy.Square)(self.a)
        np.testing.assert_allclose(square, self.a, rtol=1e-6)
        full_row = mod.offsets((27,), policy=T.GemmWarpPolicy.FullRow)(self.a)
        np.testing.assert_allclose(full_row, -self.a, rtol=1e-6)

    def test_numpy_scalars_and_unpassable_values(self):
        np.testing.assert_allclose(mod.offsets((np.int64(27),), scale=np.float32(0.5))(self.a), self.a * 0.5)
        with self.assertRaisesRegex(TypeError, "argument `sizes` = .*object"):
            mod.offsets((object(),))


class EagerCompile(unittest.TestCase):
    def test_compile_names_the_symbols_and_leaves_the_tensors_out(self):
        kernel = mod.eager_scale.compile(M=20, N=8, alpha=3.0)
        self.assertEqual([p.shape for p in kernel.params if not p.is_scalar], [(20, 8), (20, 8)])
        a = np.random.default_rng(1).standard_normal((20, 8)).astype(np.float32)
        np.testing.assert_allclose(kernel(a), 3 * a, rtol=1e-6)
        self.assertIn("__global__", mod.eager_scale.get_kernel_source(M=20, N=8, alpha=3.0))

    def test_compile_reports_an_unknown_name(self):
        with self.assertRaisesRegex(tileplay.CompileError, "Q"):
            mod.eager_scale.compile(M=4, N=4, alpha=1.0, Q=3)

    def test_profiler_func_is_the_kernel(self):
        kernel = mod.eager_scale.compile(M=4, N=4, alpha=2.0)
        a = np.ones((4, 4), np.float32)
        np.testing.assert_array_equal(kernel.get_profiler().func(a), 2 * a)


class AutotuneCompile(unittest.TestCase):
    def test_compile_tunes_without_tensors_and_a_call_runs_the_best(self):
        kernel = mod.tuned_scale.compile(M=40, N=8, alpha=2.0)
        self.assertIn(kernel.config["block"], (16, 32))
        self.assertEqual(mod.tuned_scale.last_errors, [])  # the pass_configs entry is not an argument
        a = np.ones((40, 8), np.float32)
        np.testing.assert_array_equal(kernel(a), 2 * a)
        np.testing.assert_array_equal(mod.tuned_scale(a, 5.0), 5 * a)


    def test_symbols_sizing_a_fragment_come_from_the_tensors(self):
        logits = np.random.default_rng(2).standard_normal((32, 24)).astype(np.float32)
        np.testing.assert_allclose(mod.row_max(logits), logits.max(axis=1), rtol=1e-6)
        self.assertEqual(mod.row_max.last_errors, [])


class DTypes(unittest.TestCase):
    def test_dtype_from_anything_that_names_one(self):
        self.assertEqual([T.dtype(x) for x in ("float", "half", np.float16, np.dtype("int8"), float, bool)],
                         ["float32", "float16", "float16", "int8", "float32", "bool"])
        self.assertIs(T.dtype(T.bfloat16), T.bfloat16)
        with self.assertRaisesRegex(TypeError, "Invalid DataType"):
            T.dtype([1])

    def test_bits_bytes_and_tvm_is_the_same_class(self):
        import tvm
        self.assertIs(tvm.DataType, T.dtype)
        self.assertEqual((T.bfloat16.bits, T.bfloat16.bytes, T.float8_e4m3fn.itemsize, T.dtype("float32x4").bytes),
                         (16, 2, 1, 16))
        self.assertTrue(T.float8_e5m2.is_float8() and not T.int8.is_float())

    def test_as_torch_names_torch_dtypes(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not installed")
        self.assertIs(T.dtype("float16").as_torch(), torch.float16)
        self.assertIs(T.float8_e4m3fn.as_torch(), torch.float8_e4m3fn)

    def test_fp8_helpers_pick_cuda_formats(self):
        from tilelang.language.fp8 import determine_fp8_type
        self.assertEqual((determine_fp8_type(), T.fp8.determine_fp8_type("e5m2")), ("float8_e4m3fn", "float8_e5m2"))
        self.assertIsInstance(determine_fp8_type(), T.dtype)
        with self.assertRaisesRegex(ValueError, "e4m2"):
            determine_fp8_type("e4m2")


class EngineCallback(unittest.TestCase):
    def test_imports_and_registering_says_why_not(self):
        from tilelang.engine.callback import register_cuda_postproc_callback
        with self.assertRaisesRegex(NotImplementedError, "TilePlay does not support CUDA post-processing"):
            @register_cuda_postproc_callback
            def postproc(code, target):
                return code


if __name__ == "__main__":
    unittest.main(verbosity=2)
