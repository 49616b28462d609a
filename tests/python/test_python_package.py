"""The Python package on the CPU interpreter (ctest `python_package`): samples compiled and run
through `tileplay` and through the `tilelang` compatibility module, checked against numpy, and
errors surfacing as exceptions that carry file:line:col. Needs numpy; without it: [SKIP], 77.

Usage: test_python_package.py <source dir>   (TILEPLAY_LIB names the built libtileplay.so)"""

import os
import re
import sys
import tempfile
import textwrap
import unittest

SOURCE_DIR = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))
SAMPLES = os.path.join(SOURCE_DIR, "samples")

from needs_numpy import require_numpy  # noqa: E402

np = require_numpy(__file__, SOURCE_DIR)

sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
import tileplay  # noqa: E402
import tilelang  # noqa: E402


def load_module(path, name):
    """Imports a TileLang file as a module, as a user's script does (its __main__ block stays off)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def softmax_ref(x):
    # The profiler hands torch CUDA tensors where torch and a GPU are present, numpy arrays
    # elsewhere; the reference computes in numpy either way.
    x = x.float().cpu().numpy() if hasattr(x, "cpu") else x.astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# Two `T.Kernel` launches: partial row sums over four column splits, then their combination
# (the lit test's kernel, whose CUDA and CPU run it checks).
TWO_LAUNCHES = os.path.join(SOURCE_DIR, "tests", "codegen", "two_launches.py")


class TilePlayPackage(unittest.TestCase):
    def test_vector_add_params_and_run(self):
        k = tileplay.compile(os.path.join(SAMPLES, "vector_add.py"), defines={"N": 1000})
        self.assertEqual([(p.name, p.dtype, p.shape, p.is_output) for p in k.params],
                         [("A", "float32", (1000,), False), ("B", "float32", (1000,), False),
                          ("C", "float32", (1000,), True)])
        self.assertEqual(k.bound_params["N"], "1000")
        rng = np.random.default_rng(1)
        a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
        c = k(a, b)  # out_idx=[-1]: C is allocated and returned
        np.testing.assert_array_equal(c, a + b)
        out = np.zeros(1000, np.float32)
        self.assertIsNone(k(a, b, out))  # every parameter: in place
        np.testing.assert_array_equal(out, a + b)

    def test_code_of_later_stages(self):
        k = tileplay.compile(os.path.join(SAMPLES, "vector_add.py"), defines={"N": 4096}, target="sm_80")
        self.assertIn("__global__", k.cuda)
        try:
            ptx = k.ptx
        except tileplay.CompileError as e:  # a machine without NVRTC stops at CUDA
            self.assertIn("NVRTC", str(e))
            return
        self.assertIn(".entry " + k.name, ptx)

    def test_softmax_matches_numpy(self):
        k = tileplay.compile(os.path.join(SAMPLES, "softmax.py"), defines={"M": 64, "N": 512})
        x = np.random.default_rng(2).standard_normal((64, 512)).astype(np.float16)
        y = k(x)
        self.assertEqual((y.dtype, y.shape), (np.float16, (64, 512)))
        np.testing.assert_allclose(y.astype(np.float32), softmax_ref(x), atol=1e-3, rtol=1e-2)

    def test_dynamic_dimension_binds_from_the_inputs(self):
        source = textwrap.dedent("""\
            import tilelang
            import tilelang.language as T


            @tilelang.jit(out_idx=[-1])
            def scale(block=64):
                n = T.dynamic("n")

                @T.prim_func
                def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
                    with T.Kernel(T.ceildiv(n, block), threads=64) as bx:
                        for i in T.Parallel(block):
                            if bx * block + i < n:
                                B[bx * block + i] = A[bx * block + i] * 2.0

                return main
            """)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dynamic_scale.py")
            with open(path, "w") as f:
                f.write(source)
            k = tileplay.compile(path)
        self.assertEqual([(p.name, p.shape, p.is_dimension) for p in k.params],
                         [("A", (None,), False), ("B", (None,), False), ("n", (), True)])
        for n in (1, 100, 130):  # one kernel, any length: B is sized from A
            a = np.linspace(-1, 1, n, dtype=np.float32)
            np.testing.assert_array_equal(k(a), 2 * a)

    def test_two_launches_run_in_order(self):
        k = tileplay.compile(TWO_LAUNCHES, target="sm_80")
        self.assertEqual(k.num_launches, 2)
        self.assertEqual(k.launch_names, ["split_then_combine_kernel_0", "split_then_combine_kernel_1"])  # compiles the CUDA from the file
        x = np.random.default_rng(3).standard_normal((128, 256)).astype(np.float32)
        part, out = k(x)  # the combine launch reads the partial sums the first one wrote
        np.testing.assert_allclose(part.sum(axis=0), x.sum(axis=1), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-4, atol=1e-4)

    def test_bad_arguments_raise(self):
        k = tileplay.compile(os.path.join(SAMPLES, "vector_add.py"), defines={"N": 256})
        a = np.zeros(256, np.float32)
        with self.assertRaisesRegex(TypeError, "takes 2 input"):
            k(a)
        with self.assertRaisesRegex(tileplay.TilePlayError, "expects float32"):
            k(a, np.zeros(256, np.float64))
        with self.assertRaisesRegex(tileplay.TilePlayError, "dimension 0 must be 256"):
            k(a, np.zeros(255, np.float32))

    def test_compile_errors_carry_the_location(self):
        with self.assertRaisesRegex(tileplay.CompileError, "cannot read the file"):
            tileplay.compile("/nonexistent/kernel.py")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "broken.py")
            with open(path, "w") as f:
                f.write("import tilelang.language as T\n\ndef f(N):\n    return (N +\n")
            with self.assertRaises(tileplay.CompileError) as cm:
                tileplay.compile(path)
            self.assertRegex(str(cm.exception), "^" + re.escape(path) + r":\d+:\d+: ")
            self.assertIn("error:", cm.exception.diagnostics)


class TileLangCompat(unittest.TestCase):
    def test_vector_add_sample_unmodified(self):
        mod = load_module(os.path.join(SAMPLES, "vector_add.py"), "sample_vector_add")
        kernel = mod.vector_add(2048, block_N=128)
        self.assertIs(kernel, mod.vector_add(2048, block_N=128))  # cached per argument set
        self.assertIs(kernel, mod.vector_add.compile(N=2048, block_N=128))
        self.assertIn("__global__", kernel.get_kernel_source())
        a = np.arange(2048, dtype=np.float32)
        b = np.full(2048, 0.5, np.float32)
        np.testing.assert_array_equal(kernel(a, b), a + b)
        profiler = kernel.get_profiler()
        profiler.assert_allclose(lambda A, B: A + B)
        with self.assertRaises(AssertionError):  # a wrong reference is caught
            profiler.assert_allclose(lambda A, B: A - B)
        self.assertGreater(profiler.do_bench(warmup=1, rep=1), 0.0)
        from tilelang.profiler import do_bench
        self.assertGreater(do_bench(lambda: kernel(a, b), _n_warmup=1, _n_repeat=2), 0.0)
        self.assertEqual((tilelang.cdiv(2049, 128), tilelang.cdiv(2048, 128)), (17, 16))

    def test_softmax_sample_unmodified(self):
        mod = load_module(os.path.join(SAMPLES, "softmax.py"), "sample_softmax")
        kernel = mod.softmax(32, 256)
        x = np.random.default_rng(3).standard_normal((32, 256)).astype(np.float16)
        np.testing.assert_allclose(kernel(x).astype(np.float32), softmax_ref(x), atol=1e-3, rtol=1e-2)
        kernel.get_profiler().assert_allclose(lambda X: softmax_ref(X).astype(np.float16), atol=1e-3)

    def test_errors_in_a_kernel_body_carry_the_location(self):
        source = textwrap.dedent("""\
            import tilelang
            import tilelang.language as T


            @tilelang.jit(out_idx=[-1])
            def scale(N, dtype=T.float32):
                @T.prim_func
                def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
                    with T.Kernel(1, threads=32) as bx:
                        for i in T.Parallel(N):
                            B[i] = A[i] * undefined_name

                return main
            """)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "scale_kernel.py")
            with open(path, "w") as f:
                f.write(source)
            mod = load_module(path, "scale_kernel")
            with self.assertRaises(tileplay.CompileError) as cm:
                mod.scale(16)
        self.assertRegex(str(cm.exception), "^" + re.escape(path) + r":11:\d+: .*undefined_name")

    def test_jit_applied_in_python_sets_the_outputs(self):
        source = textwrap.dedent("""\
            import tilelang.language as T


            def double(N, dtype="float32"):
                @T.prim_func
                def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
                    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
                        for i in T.Parallel(64):
                            if bx * 64 + i < N:
                                B[bx * 64 + i] = A[bx * 64 + i] * 2.0

                return main
            """)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "double_kernel.py")
            with open(path, "w") as f:
                f.write(source)
            mod = load_module(path, "double_kernel")
            kernel = tilelang.jit(out_idx=[1])(mod.double)(100)
            a = np.arange(100, dtype=np.float32)
            np.testing.assert_array_equal(kernel(a), 2 * a)
            plain = tilelang.jit(mod.double)(100)  # no out_idx: every parameter is passed
            b = np.zeros(100, np.float32)
            self.assertIsNone(plain(a, b))
            np.testing.assert_array_equal(b, 2 * a)
            with self.assertRaises(IndexError):
                tilelang.jit(out_idx=[2])(mod.double)(100)

    def test_autotune_picks_a_configuration_that_runs(self):
        mod = load_module(os.path.join(SAMPLES, "vector_add.py"), "sample_vector_add_tune")
        configs = [{"block_N": 64, "threads": 64}, {"block_N": 128, "threads": 128}]
        tuned = tilelang.autotune(configs=configs, warmup=1, rep=1)(mod.vector_add)
        kernel = tuned(1000)
        self.assertIn(kernel.config, configs)
        self.assertGreater(kernel.latency, 0.0)
        a = np.arange(1000, dtype=np.float32)
        np.testing.assert_array_equal(kernel(a, a), 2 * a)
        broken = tilelang.autotune(configs=[{"dtype": "float3"}], warmup=1, rep=1)(mod.vector_add)
        with self.assertRaisesRegex(RuntimeError, "none of the 1 configurations"):
            broken(1000)
        self.assertIn("float3", broken.last_errors[0][1])

    def test_language_names_exist(self):
        import tilelang.language as T
        self.assertEqual(str(T.float16), "float16")
        self.assertEqual(tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED, "tl.disable_warp_specialized")
        for name in ("prim_func", "Tensor", "Kernel", "Parallel", "Pipelined", "copy", "gemm", "alloc_shared"):
            self.assertTrue(hasattr(T, name), name)
        with self.assertRaisesRegex(RuntimeError, "never executes the kernel body"):
            T.copy(None, None)


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() and tileplay.cuda_device_count() > 0 else None


@unittest.skipIf(torch_cuda() is None, "no torch with a CUDA device (the GPU machine runs these)")
class TorchCuda(unittest.TestCase):
    def test_vector_add_on_a_side_stream(self):
        torch = torch_cuda()
        k = tileplay.compile(os.path.join(SAMPLES, "vector_add.py"), defines={"N": 100000})
        a, b = torch.randn(100000, device="cuda"), torch.randn(100000, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # the launch must follow torch's current stream
            c = k(a, b)
        side.synchronize()
        torch.testing.assert_close(c, a + b)

    def test_two_launches_run_in_order_on_the_stream(self):
        torch = torch_cuda()
        k = tileplay.compile(TWO_LAUNCHES, defines={"M": 4096, "K": 1024})
        x = torch.randn(4096, 1024, device="cuda")
        part, out = k(x)  # compiles the cubin from the file, then launches both kernels
        torch.testing.assert_close(out, x.sum(dim=1), rtol=1e-4, atol=1e-3)
        torch.testing.assert_close(part.sum(dim=0), x.sum(dim=1), rtol=1e-4, atol=1e-3)

    def test_softmax_sample_through_tilelang(self):
        torch = torch_cuda()
        mod = load_module(os.path.join(SAMPLES, "softmax.py"), "sample_softmax_gpu")
        kernel = mod.softmax(256, 1024)
        x = torch.randn(256, 1024, device="cuda", dtype=torch.float16)
        torch.testing.assert_close(kernel(x), torch.softmax(x, -1), rtol=1e-2, atol=1e-2)
        profiler = kernel.get_profiler()
        profiler.assert_allclose(lambda X: torch.softmax(X, -1))
        self.assertGreater(profiler.do_bench(), 0.0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
