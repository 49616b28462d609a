// `tilec inspect --layout BUF FILE`: the layout model of one fragment or shared buffer
// (tileplay/layout.h) as text (grid, swizzle, accesses with their bank conflicts) or JSON.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tilec {

struct LayoutArgs {
    std::string file, kernel, buffer, target;
    std::vector<std::pair<std::string, std::string>> defines;
    bool json = false;
    int grid_rows = 16, grid_cols = 16;  // the window of the grid printed as text
};

int run_inspect_layout(const LayoutArgs& a, const std::string& source);

}  // namespace tilec
