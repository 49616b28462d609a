# A helper module beside tests/errors/fail_import_failed.py (copied into one folder with it):
# an assertion that fails inside it is reported at the kernel file's call.
_SUPPORTED_BLOCKS = (16, 32, 64)


def check_block(block: int):
    assert block in _SUPPORTED_BLOCKS, f"block must be one of {_SUPPORTED_BLOCKS}, got {block}"
