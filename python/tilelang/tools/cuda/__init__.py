"""tilelang.tools.cuda on TilePlay."""
