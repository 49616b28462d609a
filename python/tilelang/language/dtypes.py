"""T.dtype (TileLang's tvm.DataType): a dtype name that is also a str, so `T.float16 == "float16"`
and TilePlay passes it to a factory as its name. Host code builds one from whatever names a
dtype (a string, torch.float16, np.float16, `float`) and asks it for .bits or .as_torch(),
which is what TileLang's scripts do before making their inputs."""

import re

# TileLang's short spellings (tilelang/language/dtypes.py _CANONICAL_TO_DISPLAY_STR).
_CANONICAL = {"double": "float64", "float": "float32", "int": "int32", "long": "int64", "short": "int16",
              "uint": "uint32", "ulong": "uint64", "half": "float16"}
_PYTHON = {bool: "bool", int: "int32", float: "float32"}
_PATTERN = re.compile(r"^(bool|int|uint|float|bfloat|tfloat|float8_e\dm\d\w*|float6_e\dm\d\w*|float4_e\dm\d\w*)"
                      r"(\d*)(x(\d+))?$")
# torch spells TileLang's packed fp4 with an underscore
_TORCH_NAMES = {"float4_e2m1fnx2": "float4_e2m1fn_x2"}


def _name_of(value):
    """The dtype name of anything that names one; TypeError otherwise."""
    if isinstance(value, str):
        text = value[len("torch."):] if value.startswith("torch.") else value
        return _CANONICAL.get(text, text)
    if isinstance(value, type) and value in _PYTHON:
        return _PYTHON[value]
    module = type(value).__module__.split(".")[0]
    if module == "torch":  # torch.float16 prints as "torch.float16"
        return str(value)[len("torch."):]
    if module == "numpy" or (isinstance(value, type) and value.__module__ == "numpy"):
        import numpy as np
        return np.dtype(value).name
    raise TypeError("Invalid DataType %r (%s): expected a dtype name, a torch or numpy dtype, or bool/int/float"
                    % (value, type(value).__name__))


class dtype(str):
    """A dtype name with TileLang's host-side queries: bits, lanes, bytes, as_torch()."""

    def __new__(cls, value="float32"):
        if type(value) is cls:
            return value
        return super().__new__(cls, _name_of(value))

    def _parts(self):
        m = _PATTERN.match(str(self))
        if not m:
            raise ValueError("unknown dtype %r" % str(self))
        return m.group(1), m.group(2), int(m.group(4) or 1)

    @property
    def bits(self):
        kind, digits, _ = self._parts()
        if kind == "bool":
            return 8
        if kind.startswith(("float8", "float6", "float4")):
            return int(kind[5])
        return int(digits or 32)

    @property
    def lanes(self):
        return self._parts()[2]

    @property
    def type_code(self):
        return self._parts()[0]

    @property
    def itemsize(self):
        """Bytes of one value (all lanes); sub-byte types round up to a byte."""
        return (self.bits * self.lanes + 7) // 8

    @property
    def bytes(self):
        return self.itemsize

    def is_float(self):
        return self._parts()[0].startswith(("float", "bfloat", "tfloat"))

    def is_int(self):
        return self._parts()[0] == "int"

    def is_uint(self):
        return self._parts()[0] == "uint"

    def is_float8(self):
        return self._parts()[0].startswith("float8")

    def is_float4(self):
        return self._parts()[0].startswith("float4")

    def as_torch(self):
        """The torch dtype of this name (torch.float16 for "float16")."""
        import torch
        name = _TORCH_NAMES.get(str(self), str(self))
        found = getattr(torch, name, None)
        if not isinstance(found, torch.dtype):
            raise ValueError("Cannot convert dtype '%s' to torch.dtype: this torch has no torch.%s" % (self, name))
        return found

    @property
    def __tileplay_dtype__(self):
        return str(self)
