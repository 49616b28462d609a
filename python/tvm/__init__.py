"""The few `tvm` names TileLang scripts touch in Python, for scripts run on TilePlay (there is no
TVM: TilePlay's C++ front end compiles kernels, and evaluates tvm.DataType, tvm.tirx.const and
friends itself where kernel code uses them). Here: DataType with its bits and lanes for host
code, and the tir/tirx/target/testing submodules whose names resolve so module-level imports
and annotations (`val: tirx.PrimExpr`) evaluate; kernel-only names are placeholders."""

import re

from tilelang.language import Placeholder


class DataType(str):
    """tvm.DataType("float16"): a dtype name with .bits, .lanes and .type_code's kind."""

    _PATTERN = re.compile(r"^(bool|int|uint|float|bfloat|float8_e\dm\d\w*|float4_e\dm\d\w*|float6_e\dm\d\w*)(\d*)(x(\d+))?$")

    def __new__(cls, name):
        text = str(name)
        if text.startswith("torch."):
            text = text[len("torch."):]
        return super().__new__(cls, text)

    def _parts(self):
        m = self._PATTERN.match(str(self))
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

    def is_float(self):
        return self._parts()[0].startswith(("float", "bfloat"))

    def is_int(self):
        return self._parts()[0] == "int"

    def is_uint(self):
        return self._parts()[0] == "uint"

    @property
    def __tileplay_dtype__(self):
        return str(self)


_SUBMODULES = ("tir", "tirx", "target", "testing")


def __getattr__(name):  # PEP 562: tvm.<anything else> only inside kernels
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _SUBMODULES:  # `from tvm import tirx` asks the package before importing
        import importlib
        return importlib.import_module("tvm." + name)
    return Placeholder("tvm." + name)
