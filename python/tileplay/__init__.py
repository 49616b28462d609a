"""TilePlay from Python: TileLang kernel factories compiled by TilePlay's C++ compiler (no TVM,
no Python execution of the kernel body) through libtileplay's C ABI, run on the CPU interpreter
with numpy arrays or launched on torch CUDA tensors. See docs/python.md."""

from .kernel import CompileError, Kernel, Param, TilePlayError, compile, cuda_device_count, device_target, target_figures

__all__ = ["CompileError", "Kernel", "Param", "TilePlayError", "compile", "cuda_device_count", "device_target", "target_figures"]
