# T.gemm on column slices of shared buffers (DeepSeek's sparse MLA: `Q_s[:, 0:D]` and
# `Q_s[:, D:]` of one [H, D + D_tail] tile): mma.sync reads each slice in place, addressed as
# its buffer's swizzled SmemTile places it (tp::gemm_ss's LD and COL arguments), for A sliced
# along K, B sliced along K (transpose_B) and B sliced along N (transpose_A, as the backward
# kernel's dKV += dP^T Q). sm_90a's wgmma takes whole tiles only, so a remark says these gemms
# stay on mma.sync. `--device cpu` runs the same gemms on the interpreter; the GPU test
# (tests/gpu) compares the two.
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a --remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=HOPPER
# CHECK: tp::gemm_ss<64, 64, 128, {{[0-9]+}}, {{[0-9]+}}, false, true, half_t, true, 192, 0, 0, 0>(&Q_s[0], &K_s[0], &S_l[0]);
# CHECK: tp::gemm_ss<64, 64, 64, {{[0-9]+}}, {{[0-9]+}}, false, true, half_t, true, 192, 128, 0, 0>(&Q_s[0], &T_s[0], &S_l[0]);
# CHECK: tp::gemm_ss<64, 64, 64, {{[0-9]+}}, {{[0-9]+}}, true, false, half_t, true, 0, 0, 192, 128>(&P_s[0], &Q_s[0], &D_l[0]);
# HOPPER: gemm_column_slice.py:42:13: remark: wgmma not used: its operands are not whole 2-D tiles of constant shape; this T.gemm runs on mma.sync
# RUN: %tilec run %s --device cpu > /dev/null
#
# tileplay: kernel=sliced
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def sliced(H=64, D=128, D_tail=64, N=64):
    @T.prim_func
    def main(
        Q: T.Tensor((H, D + D_tail), "float16"),
        K: T.Tensor((N, D + D_tail), "float16"),
        S: T.Tensor((H, N), "float32"),
        DQ: T.Tensor((N, D_tail), "float32"),
    ):
        with T.Kernel(1, threads=128) as bx:
            Q_s = T.alloc_shared((H, D + D_tail), "float16")
            K_s = T.alloc_shared((N, D), "float16")
            T_s = T.alloc_shared((N, D_tail), "float16")
            P_s = T.alloc_shared((H, N), "float16")
            S_l = T.alloc_fragment((H, N), "float32")
            D_l = T.alloc_fragment((N, D_tail), "float32")
            T.copy(Q, Q_s)
            T.copy(K[0:N, 0:D], K_s)
            T.copy(K[0:N, D:], T_s)
            T.clear(S_l)
            T.gemm(Q_s[:, 0:D], K_s, S_l, transpose_B=True)
            T.gemm(Q_s[:, D:], T_s, S_l, transpose_B=True)
            T.copy(S_l, S)
            T.copy(S_l, P_s)
            T.clear(D_l)
            T.gemm(P_s, Q_s[:, D:], D_l, transpose_A=True)
            T.copy(D_l, DQ)

    return main
