"""tilelang.utils on TilePlay: the tensor helpers TileLang's examples import (utils.tensor)."""

from .tensor import TensorSupplyType, get_tensor_supply, torch_assert_close  # noqa: F401
