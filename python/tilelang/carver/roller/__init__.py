"""tilelang.carver.roller on TilePlay: only the rasterization markers scripts compare with."""
