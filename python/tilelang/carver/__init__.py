"""tilelang.carver on TilePlay: the device queries scripts use on the host (carver.arch); the
roller's schedule recommendations are not implemented."""

from . import arch  # noqa: F401
