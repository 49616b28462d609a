// GPU test of the math-idioms rewrite: the exact GELU compiled to tp::gelu_erf (a polynomial
// for log2 of the normal tail and one ex2.approx) matches the CPU interpreter's double-precision
// GELU to within its documented error over 65536 float32 inputs, on whatever GPU runs the tests.
#include <gtest/gtest.h>

#include "tileplay/worker_client.h"
#include "gpu_test_util.h"

using namespace gpu_test;

TEST(GpuMath, GeluErfMatchesTheDoublePrecisionGelu) {
    tp::WorkerClient c;
    tp::LoadSpec s;
    s.path = source_dir() + "/tests/gpu/data/gelu_erf.py";
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.dump() : l.stderr_tail);
    tp::RunSpec rs;
    rs.seed = 3;
    rs.check_blocks = 256;  // every block
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    const auto& chk = r.body["check"];
    ASSERT_TRUE(chk.value("ok", false)) << chk.dump();
    const auto& out = chk["outputs"][0];
    // Both columns together: gelu_erf's relative error is under 5e-6 (scripts/fit_gelu.py),
    // erff's under 2 ulp; the Frobenius figure of either stays near 1e-6.
    EXPECT_LT(out.value("rel_fro", 1.0), 2e-6) << chk.dump();
    EXPECT_LT(out.value("max_abs", 1.0), 2e-5) << chk.dump();
    EXPECT_EQ(out.value("nonfinite", 1), 0) << chk.dump();
}
