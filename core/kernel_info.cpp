// KernelInfo's view of one launch of a kernel function with several (tileplay/compiler.h): the
// first launch's fields live on KernelInfo itself, later ones in LaunchInfo entries.
#include "tileplay/compiler.h"

namespace tp {

KernelInfo KernelInfo::launch(size_t i) const {
    if (i == 0) return *this;
    KernelInfo k = *this;
    const LaunchInfo& l = later_launches.at(i - 1);
    k.name = l.name;
    k.grid_text = l.grid_text;
    k.grid = l.grid;
    k.threads = l.threads;
    k.logical_grid = l.logical_grid;
    k.logical_grid_text = l.logical_grid_text;
    k.dynamic_shared_bytes = l.dynamic_shared_bytes;
    k.tensor_maps = l.tensor_maps;
    k.persistent = l.persistent;
    k.blocks_per_sm = l.blocks_per_sm;
    k.later_launches.clear();  // the copy is one launch
    return k;
}

void KernelInfo::set_launch(size_t i, const KernelInfo& v) {
    if (i == 0) {
        std::vector<LaunchInfo> later = std::move(later_launches);
        *this = v;
        later_launches = std::move(later);
        return;
    }
    LaunchInfo& l = later_launches.at(i - 1);
    l.name = v.name;
    l.grid_text = v.grid_text;
    l.grid = v.grid;
    l.threads = v.threads;
    l.logical_grid = v.logical_grid;
    l.logical_grid_text = v.logical_grid_text;
    l.dynamic_shared_bytes = v.dynamic_shared_bytes;
    l.tensor_maps = v.tensor_maps;
    l.persistent = v.persistent;
    l.blocks_per_sm = v.blocks_per_sm;
}

}  // namespace tp
