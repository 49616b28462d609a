# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o %t.cu -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 2>&1 | FileCheck %s --check-prefix=TAKEN
# RUN: FileCheck %s --check-prefix=TAKENCUDA < %t.cu
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o %t.off.cu -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 --pass-config tp.persistent=false 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
# RUN: FileCheck %s --check-prefix=OFFCUDA < %t.off.cu
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --remarks --emit cuda -o /dev/null -D is_causal=True 2>&1 | FileCheck %s --check-prefix=CAUSAL
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --remarks --emit cuda -o /dev/null -D is_causal=True --pass-config tp.persistent=true 2>&1 | FileCheck %s --check-prefix=FORCED
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o /dev/null -D M=512 -D N=512 -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 2>&1 | FileCheck %s --check-prefix=WAVE
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --remarks --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUPS
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --json --emit ptx -o /dev/null -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 | FileCheck %s --check-prefix=JSON-ON
# RUN: %tilec compile %samples/gemm.py --arch sm_90a --json --emit ptx -o /dev/null -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 --pass-config tp.persistent=false | FileCheck %s --check-prefix=JSON-OFF
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --json --emit ptx -o /dev/null -D is_causal=True | FileCheck %s --check-prefix=JSON-OFF
#
# A warp-specialized kernel walks its work units on a persistent grid by default when every unit
# does the same work and the grid is deeper than one wave: the producer then loads the next
# tile while the consumers store this one. The launcher caps the grid at the SM count
# (`"persistent": true` in the JSON). `tp.persistent=false` switches it off; a causal loop,
# whose trip count follows the block index, keeps the hardware's scheduler unless asked.
# TAKEN: gemm.py:35:{{[0-9]+}}: remark: a persistent grid (`tp.persistent`): each of at most SMs x 1 blocks walks the work units, its producer loading the next unit's tiles during this unit's epilogue [FastPathTaken]
# TAKENCUDA: const int tp_pid = blockIdx.x;
# TAKENCUDA: for (int tp_unit = 0; tp_unit < tp::floordiv(((512 - tp_pid)
# OFF-NOT: persistent grid
# OFFCUDA-NOT: tp_pid
# CAUSAL: flash_attention.py:{{[0-9]+}}:{{[0-9]+}}: remark: a persistent grid (`tp.persistent`) not used: the loads' loop bounds or branches depend on the block index, so blocks do unequal work (the hardware's scheduler balances them better than a fixed walk); one block runs per work unit [FastPathNotTaken]
# FORCED: remark: a persistent grid (`tp.persistent`): each of at most SMs x 1 blocks walks
# WAVE: remark: a persistent grid (`tp.persistent`) not used: its 8 blocks run in one wave on 132 resident blocks; one block runs per work unit [FastPathNotTaken]
# GROUPS: remark: consumer groups: blocks 2 at a time
# GROUPS: remark: a persistent grid (`tp.persistent`) not used: consumer groups already share the producer between two blocks
# JSON-ON: "persistent": true
# JSON-OFF: "persistent": false
