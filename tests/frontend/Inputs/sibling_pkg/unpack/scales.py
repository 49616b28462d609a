from . import nibbles  # noqa: F401

SCALE = 2
