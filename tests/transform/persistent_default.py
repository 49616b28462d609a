# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o %t.cu -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 2>&1 | FileCheck %s --check-prefix=TAKEN
# RUN: FileCheck %s --check-prefix=TAKENCUDA < %t.cu
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o %t.off.cu -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 --pass-config tp.persistent=false 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
# RUN: FileCheck %s --check-prefix=OFFCUDA < %t.off.cu
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --remarks --emit cuda -o %t.causal.cu -D is_causal=True 2>&1 | FileCheck %s --check-prefix=CAUSAL
# RUN: FileCheck %s --check-prefix=CAUSALCUDA < %t.causal.cu
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --remarks --emit cuda -o %t.odd.cu -D is_causal=True -D seq_q=3968 -D seq_kv=3968 2>&1 | FileCheck %s --check-prefix=CAUSAL
# RUN: FileCheck %s --check-prefix=ODDCUDA < %t.odd.cu
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --remarks --emit cuda -o /dev/null -D is_causal=True -D seq_q=8192 -D seq_kv=2048 2>&1 | FileCheck %s --check-prefix=UNEVEN
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --remarks --emit cuda -o /dev/null -D is_causal=True --pass-config tp.persistent=true 2>&1 | FileCheck %s --check-prefix=FORCED
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o /dev/null -D M=512 -D N=512 -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 2>&1 | FileCheck %s --check-prefix=WAVE
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUPS
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --json --emit ptx -o /dev/null -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 | FileCheck %s --check-prefix=JSON-ON
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --json --emit ptx -o /dev/null -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 --pass-config tp.persistent=false | FileCheck %s --check-prefix=JSON-OFF
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --json --emit ptx -o /dev/null -D is_causal=True --pass-config tp.persistent=false | FileCheck %s --check-prefix=JSON-OFF
#
# A warp-specialized kernel walks its work units on a persistent grid by default when every unit
# does the same work and the grid is deeper than one wave: the producer then loads the next
# tile while the consumers store this one. The launcher caps the grid at the SM count
# (`"persistent": true` in the JSON). `tp.persistent=false` switches it off. A causal loop, whose
# trip count grows with the query block c, walks pairs of blocks (c, G - 1 - c) that together
# run the same number of key tiles for every c, so a fixed walk stays balanced: the unit loop
# runs twice per pair, its odd steps on the mirrored block (with an odd G the middle block is
# its own mirror and its second step is skipped). Where no pairing evens the work out
# (seq_q 8192 against seq_kv 2048: the later half of the blocks all run the whole key range) the hardware's
# scheduler keeps the blocks.
# TAKEN: gemm.py:35:{{[0-9]+}}: remark: a persistent grid (`tp.persistent`): each of at most SMs x 1 blocks walks the work units, its producer loading the next unit's tiles during this unit's epilogue [FastPathTaken]
# TAKENCUDA: const int tp_pid = blockIdx.x;
# TAKENCUDA: for (int tp_unit = 0; tp_unit < tp::floordiv(((512 - tp_pid)
# OFF-NOT: persistent grid
# OFFCUDA-NOT: tp_pid
# CAUSAL: flash_attention.py:{{[0-9]+}}:{{[0-9]+}}: remark: a persistent grid (`tp.persistent`): each of at most SMs x 1 blocks walks pairs of blocks c and G - 1 - c on axis x (whose loops run longer as c grows, so each pair does equal work), its producer loading the next unit's tiles during this unit's epilogue [FastPathTaken]
# CAUSALCUDA: for (int tp_unit = 0; tp_unit < (tp::floordiv(((512 - tp_pid) + {{.*}}) * 2); ++tp_unit) {
# CAUSALCUDA: const int bx = (((tp_unit & 1) == 1) ? (31 - tp::tile_coord((tp_pid + ((tp_unit >> 1) * {{.*}})), 16, 32, 0, 0, 0)) : tp::tile_coord(
# CAUSALCUDA-NOT: if (!
# ODDCUDA: for (int tp_unit = 0; tp_unit < (tp::floordiv(((512 - tp_pid) + {{.*}}) * 2); ++tp_unit) {
# ODDCUDA: const int bx = (((tp_unit & 1) == 1) ? (30 - tp::tile_coord((tp_pid + ((tp_unit >> 1) * {{.*}})), 16, 32, 0, 0, 0)) : tp::tile_coord(
# ODDCUDA: if ((!(((tp_unit & 1) == 1) && ((bx * 2) == 30)))) {
# UNEVEN: remark: a persistent grid (`tp.persistent`) not used: the loads' loop bounds or branches depend on the block index, so blocks do unequal work (the hardware's scheduler balances them better than a fixed walk; blocks c and G - 1 - c of one axis would need to do equal work together); one block runs per work unit [FastPathNotTaken]
# FORCED: remark: a persistent grid (`tp.persistent`): each of at most SMs x 1 blocks walks
# WAVE: remark: a persistent grid (`tp.persistent`) not used: its 8 blocks run in one wave on 132 resident blocks; one block runs per work unit [FastPathNotTaken]
# GROUPS: remark: consumer groups: blocks 2 at a time
# GROUPS: remark: a persistent grid (`tp.persistent`) not used: consumer groups already share the producer between two blocks
# JSON-ON: "persistent": true
# JSON-OFF: "persistent": false
