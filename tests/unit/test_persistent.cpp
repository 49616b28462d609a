// T.Persistent on the CPU interpreter: a grid of wave_size blocks visits every tile of the domain
// exactly once with its own coordinates, including the partial tile group (6 columns in groups
// of 4) and the partial last wave (24 tiles on 5 blocks), as TileLang's persistent loop does.
#include <gtest/gtest.h>

#include "ir/ir.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"

using namespace tp;

namespace {

const char* kKernel = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def tiles(MB=4, NB=6, waves=5, block=4):
    @T.prim_func
    def main(X: T.Tensor((MB * block, NB * block), "float32"), C: T.Tensor((MB * block, NB * block), "float32"),
             V: T.Tensor((MB, NB), "int32")):
        with T.Kernel(waves, threads=32) as block_id:
            for bx, by in T.Persistent([MB, NB], waves, block_id, group_size=4):
                for i, j in T.Parallel(block, block):
                    C[bx * block + i, by * block + j] = X[bx * block + i, by * block + j] + bx * 100 + by
                V[bx, by] = V[bx, by] + 1

    return main
)";

}  // namespace

TEST(Persistent, EveryTileOnceWithItsCoordinates) {
    CompileRequest req;
    req.path = "tiles.py";
    req.source = kKernel;
    req.stop_after = Stage::Ir;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(*r.func, 3, {}, args, nullptr));
    for (int64_t k = 0; k < args["V"].numel(); ++k) args["V"].set(k, 0);
    InterpReport rep = run_on_cpu(*r.func, args);
    ASSERT_TRUE(rep.ok) << rep.error << (rep.diagnostics.empty() ? "" : rep.diagnostics[0].message);
    EXPECT_EQ(rep.total_blocks, 5);
    for (int64_t bx = 0; bx < 4; ++bx)
        for (int64_t by = 0; by < 6; ++by) {
            EXPECT_EQ(args["V"].at({bx, by}), 1) << bx << ", " << by;
            for (int64_t i = 0; i < 4; ++i)
                for (int64_t j = 0; j < 4; ++j) {
                    std::vector<int64_t> e = {bx * 4 + i, by * 4 + j};
                    EXPECT_EQ(args["C"].at(e), static_cast<float>(args["X"].at(e) + bx * 100 + by));
                }
        }
}

TEST(Persistent, CompilesForBothTargets) {
    for (const char* arch : {"sm_80", "sm_90a"}) {
        CompileRequest req;
        req.path = "tiles.py";
        req.source = kKernel;
        req.target = arch;
        req.stop_after = Stage::Cuda;
        CompileResult r = compile(req);
        EXPECT_TRUE(r.ok) << arch << ": " << r.render_diagnostics();
    }
}
