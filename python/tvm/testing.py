"""tvm.testing's decorators, as TileLang re-exports them (tilelang.testing)."""

from tilelang.testing import requires_cuda, requires_llvm, requires_metal, requires_package, requires_rocm  # noqa: F401
