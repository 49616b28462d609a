"""tilelang.engine: of TileLang's lowering engine, scripts import only the code-generation
callbacks (tilelang.engine.callback); TilePlay's C++ compiler is the engine here."""

from . import callback  # noqa: F401
