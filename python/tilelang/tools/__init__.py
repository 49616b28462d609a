"""tilelang.tools on TilePlay: the CUDA tools TileLang's example scripts import (tools.cuda.iket)."""
