# RUN: %tilec compile %s --emit=ast | FileCheck %s
# A TileLang GEMM factory: decorators, defaults, `with ... as (bx, by)`, T.Pipelined loops,
# keyword arguments and subscripts with tuples all become the CPython node shapes.
import tilelang
import tilelang.language as T

# CHECK: Import@{{[0-9]+}}:1-{{[0-9]+}}:30(
# CHECK: alias@{{.*}}(name='tilelang.language', asname='T')


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=128, block_K=32, dtype="float16", accum_dtype="float"):
    # CHECK: FunctionDef@[[#@LINE-1]]:1-
    # CHECK: name='matmul'

    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            # CHECK: With@[[#@LINE-1]]:9-
            # CHECK: withitem@[[#@LINE-2]]:14-[[#@LINE-2]]:93(
            # CHECK: optional_vars=Tuple@[[#@LINE-3]]:85-[[#@LINE-3]]:93(
            # CHECK: Name@[[#@LINE-4]]:86-[[#@LINE-4]]:88(id='bx', ctx=Store())
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                # CHECK: For@[[#@LINE-1]]:13-
                # CHECK: target=Name@[[#@LINE-2]]:17-[[#@LINE-2]]:18(id='k', ctx=Store())
                T.copy(A[by * block_M, k * block_K], A_shared)
                # CHECK: Subscript@[[#@LINE-1]]:24-[[#@LINE-1]]:52(
                # CHECK: slice=Tuple@[[#@LINE-2]]:26-[[#@LINE-2]]:51(
                # CHECK: BinOp@[[#@LINE-3]]:26-[[#@LINE-3]]:38(
                # CHECK: op=Mult()
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm
# The decorator list is printed after the body, as CPython orders the fields.
# CHECK: decorator_list=[
# CHECK: Call@11:2-11:28(
# CHECK: arg='out_idx'
