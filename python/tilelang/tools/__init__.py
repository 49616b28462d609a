"""tilelang.tools on TilePlay: Analyzer (a kernel's work and a roofline estimate) and the CUDA
tools TileLang's example scripts import (tools.cuda.iket)."""

from .analyzer import AnalysisResult, Analyzer

__all__ = ["AnalysisResult", "Analyzer"]
