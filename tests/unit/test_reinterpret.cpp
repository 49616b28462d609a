// T.reinterpret / tvm.tir.reinterpret on the CPU interpreter: the bits of a value read as another
// type of the same width, in both directions between integers and floats (the fp4 -> fp16
// dequantization idiom builds half bits in a uint16), and the trace-time width check.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/ir.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"

using namespace tp;

namespace {

const char* kReinterpretKernel = R"(
import tilelang
import tilelang.language as T
from tvm import tirx

@tilelang.jit(out_idx=[-3, -2, -1])
def bits(N=4):
    @T.prim_func
    def main(H: T.Tensor((N,), "int32"), F: T.Tensor((N,), "float32"), B: T.Tensor((N,), "uint8"),
             Half: T.Tensor((N,), "float16"), FBits: T.Tensor((N,), "uint32"), Signed: T.Tensor((N,), "int8")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                Half[i] = T.reinterpret(T.Cast("uint16", H[i]), T.float16)
                FBits[i] = T.reinterpret(F[i], T.uint32)
                Signed[i] = tirx.reinterpret(T.int8, B[i] << tirx.const(4, T.uint8))

    return main
)";

CompileResult compile_src(const std::string& src) {
    CompileRequest req;
    req.path = "bits.py";
    req.source = src;
    req.stop_after = Stage::Ir;
    return compile(req);
}

}  // namespace

TEST(Reinterpret, BitsReadAsAnotherType) {
    CompileResult r = compile_src(kReinterpretKernel);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(*r.func, 1, {}, args, nullptr));
    const double h[] = {0x3C00, 0xC000, 0x7BFF, 0x0001};  // 1, -2, 65504, the smallest subnormal
    const double f[] = {1.0, -0.0, 2.5, 1e-45};
    const double b[] = {0x0F, 0x08, 0x01, 0x00};  // << 4: 0xF0, 0x80, 0x10, 0x00
    for (int k = 0; k < 4; ++k) {
        args["H"].set(k, h[k]);
        args["F"].set(k, f[k]);
        args["B"].set(k, b[k]);
    }
    InterpReport rep = run_on_cpu(*r.func, args);
    ASSERT_TRUE(rep.ok) << rep.error << (rep.diagnostics.empty() ? "" : rep.diagnostics[0].message);
    EXPECT_EQ(args["Half"].get(0), 1.0);
    EXPECT_EQ(args["Half"].get(1), -2.0);
    EXPECT_EQ(args["Half"].get(2), 65504.0);
    EXPECT_EQ(args["Half"].get(3), std::ldexp(1.0, -24));
    EXPECT_EQ(args["FBits"].get(0), double(0x3F800000u));
    EXPECT_EQ(args["FBits"].get(1), double(0x80000000u));
    EXPECT_EQ(args["FBits"].get(2), double(0x40200000u));
    EXPECT_EQ(args["FBits"].get(3), 1.0);  // 1e-45 rounds to the smallest float subnormal
    EXPECT_EQ(args["Signed"].get(0), -16.0);
    EXPECT_EQ(args["Signed"].get(1), -128.0);
    EXPECT_EQ(args["Signed"].get(2), 16.0);
    EXPECT_EQ(args["Signed"].get(3), 0.0);
}

TEST(Reinterpret, DifferentWidthsAreATraceTimeError) {
    std::string src = kReinterpretKernel;
    src.replace(src.find("T.Cast(\"uint16\", H[i])"), std::string("T.Cast(\"uint16\", H[i])").size(), "H[i]");
    CompileResult r = compile_src(src);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.render_diagnostics().find("`T.reinterpret` needs a value as wide as float16 (16 bits), got int32"), std::string::npos)
        << r.render_diagnostics();
}
