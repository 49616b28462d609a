// producer_consumer: producer/consumer warp specialisation on sm_90a, as a pass over tile ops
// that any kernel can take (TileLang's producer_consumer_ws, written anew).
//
// Every global -> shared T.copy that ops::plan_tma_load accepts, whose source indices the
// producer can compute on its own (block indices, loop variables, scalar parameters, reads of
// tensors the kernel never writes) and whose tile nothing else writes, becomes a *channel*: a
// ring of shared tiles (num_stages deep inside a T.Pipelined loop, one tile elsewhere) with a
// full and an empty mbarrier per slot. The block gains one producer warpgroup after the
// user's threads: one of its threads walks the kernel's loops and issues each channel's TMA
// loads as soon as the consumers released the slot. The user's threads become the consumers
// and run the whole program as written, except that a channel's copy is a wait on its full
// barrier, the statements after it read the slot, and after the last of them that reads the
// tile the slot goes back to the producer. Block-wide barriers among the consumers become a
// named barrier over their threads (insert_syncs, the reduction templates). setmaxnreg moves
// registers from the producer to the consumers.
//
// It runs after layout-inference (fragments, gemms and reductions are lowered against the
// user's thread count, which the consumers keep) and before lower-tile-ops (the copies are
// still tile ops). When a kernel cannot take it, a remark at the T.Pipelined line says why
// and the loop keeps its cp.async stages; a copy that stays with the consumers gets a remark
// at its line. `tl.disable_warp_specialized` and `tl.disable_tma_lower` switch it off.
//
// A kernel of one consumer warpgroup may run two of its blocks as one, as consumer groups
// sharing the producer's loads of tiles both blocks read (producer_consumer_groups.cpp).
// Otherwise, where every block does the same work and the grid is deeper than one wave, the
// blocks walk the work units on a persistent grid (producer_consumer_persistent.cpp).
#pragma once

#include <vector>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/compiler.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

ir::PrimFuncPtr producer_consumer(const ir::PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags);

// True when the pass split the kernel (codegen: __launch_bounds__(T, B), shared memory aligned
// to 1024 bytes, tensor-map parameters).
bool is_warp_specialized(const ir::PrimFunc& func);
// B: the blocks per SM the split kernel is launched for (2 with one consumer warpgroup whose
// shared memory fits twice, else 1).
int ws_blocks_per_sm(const ir::PrimFunc& func);
// The tensor maps the kernel takes, in parameter order after the ordinary parameters.
std::vector<TensorMapInfo> tensor_maps_of(const ir::PrimFunc& func);
// The same as ops::tensor_map_key entries, and setting them: the passes that add maps (TMA
// stores in layout-inference and lower-tile-ops, loads here) keep the earlier ones' indices.
std::vector<std::string> tensor_map_keys(const ir::PrimFunc& func);
void set_tensor_maps(ir::PrimFunc& func, const std::vector<std::string>& keys);
// Parameters only TMA stores write (through their map, never a pointer): the code generator
// keeps them writable.
void add_tma_store_params(ir::PrimFunc& func, const std::vector<std::string>& names);

}  // namespace tp::transform
