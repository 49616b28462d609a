"""tilelang.contrib on TilePlay: nvcc's device query helpers."""
