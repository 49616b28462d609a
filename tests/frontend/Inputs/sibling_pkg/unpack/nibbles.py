from tilelang import tvm as tvm


def packed_to_unsigned(storage_dtype):
    def convert(nbit, val, pos, dtype):
        assert val.dtype == storage_dtype, f"{val.dtype} != {storage_dtype}"
        mask = tvm.tirx.const((1 << nbit) - 1, storage_dtype)
        return ((val >> (pos * nbit).astype(storage_dtype)) & mask).astype(dtype)

    return convert
