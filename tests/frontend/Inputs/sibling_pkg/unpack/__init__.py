# A package beside the kernel file: its names come from its own modules by relative import.
from .nibbles import packed_to_unsigned  # noqa: F401
from .scales import SCALE  # noqa: F401
