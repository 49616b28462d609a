// T.atomic_add, T.print and fp8 values on the JIT against the interpreter. Atomic adds whose
// sums are exact (small integers, in fp32, fp16 and int32) give the same bits in any order, so
// they are compared on the thread pool; sums that round are compared with one thread, where both
// engines add in block order. `return_prev=True` on the pool hands every caller a distinct
// ticket (the adds are atomic). T.print's text is the interpreter's, in block order, on any
// number of threads. fp8 conversions (saturating, e4m3 and e5m2) and T.reinterpret are bit for
// bit the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit_test_util.h"

using namespace tp;
using namespace tp::jit_test;

namespace {

const char* kAtomics = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1, 2, 3, 4, 5, 6])
def atomics(N=16384, block=128, bins=16):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), Sum: T.Tensor((bins,), "float32"), Count: T.Tensor((bins,), "int32"),
             Half: T.Tensor((bins,), "float16"), Tile: T.Tensor((block,), "float32"), Exact: T.Tensor((bins,), "float32"),
             Ticket: T.Tensor((N,), "int32")):
        with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
            t = T.alloc_fragment((block,), "float32")
            for i in T.Parallel(block):
                g = bx * block + i
                T.atomic_add(Sum[(g * 7) % bins], A[g])
                T.atomic_add(Count[(g * 5) % bins], 1)
                T.atomic_add(Half[g % bins], T.floor(A[g] * 4.0))
                T.atomic_add(Exact[(g * 3) % bins], T.floor(A[g] * 8.0))
                Ticket[g] = T.atomic_add(Count[bins - 1], 1, return_prev=True)
                t[i] = T.floor(A[g] * 2.0)
            T.atomic_add(Tile, t)

    return main
)";

const char* kPrints = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def printed(N=64, block=8):
    @T.prim_func
    def main(A: T.Tensor((N,), "float16"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            s = T.alloc_shared((block,), "float16")
            T.copy(A[bx * block], s)
            T.print(bx * 3 + 1, msg="int")
            T.print(A[bx * block], msg="half")
            T.print(bx > 2, msg="bool")
            if bx % 3 == 0:
                T.print(s, msg="tile")
            for i in T.Parallel(block):
                B[bx * block + i] = s[i] * 2.0

    return main
)";

const char* kFp8 = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1, 2, 3, 4])
def fp8(N=1024, block=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), E4: T.Tensor((N,), "float8_e4m3"), E5: T.Tensor((N,), "float8_e5m2"),
             Back: T.Tensor((N,), "float32"), Mixed: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(N, block), threads=64) as bx:
            s4 = T.alloc_shared((block,), "float8_e4m3")
            s5 = T.alloc_fragment((block,), "float8_e5m2")
            for i in T.Parallel(block):
                g = bx * block + i
                x = A[g] * T.cast(1 << (g % 20), "float32") * 0.001
                s4[i] = x
                s5[i] = x * 3.0
            T.copy(s4, E4[bx * block])
            T.copy(s5, E5[bx * block])
            for i in T.Parallel(block):
                g = bx * block + i
                Back[g] = T.cast(E4[g], "float32") + T.cast(s5[i], "float32")
                Mixed[g] = s4[i] * s5[i] - T.cast(E5[g], "float16")

    return main
)";

const char* kReinterpret = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[2, 3, 4, 5])
def bits(N=256, block=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), H: T.Tensor((N,), "float16"), I: T.Tensor((N,), "int32"),
             F: T.Tensor((N,), "float32"), S: T.Tensor((N,), "int16"), U: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(N, block), threads=64) as bx:
            for i in T.Parallel(block):
                g = bx * block + i
                I[g] = T.reinterpret(A[g], "int32")
                F[g] = T.reinterpret(I[g] ^ 0x00400000, "float32")
                S[g] = T.reinterpret(H[g], "int16")
                U[g] = T.reinterpret(T.cast(S[g] + 1, "uint16"), "float16")

    return main
)";

TEST(JitAtomics, ExactSumsMatchOnThePoolAndEveryTicketIsDistinct) {
    require_jit();
    Both r = run_both(compile_ir(kAtomics, {}), [](InterpOptions& o) { o.threads = 2; });
    expect_jit(r);
    for (const char* name : {"Count", "Half", "Tile", "Exact"}) {
        const HostTensor &j = r.jit_args.at(name), &i = r.interp_args.at(name);
        for (int64_t k = 0; k < i.numel(); ++k) EXPECT_TRUE(same_value(j.get(k), i.get(k))) << name << "[" << k << "]";
    }
    // Sum rounds, and its order differs from run to run: within fp32's tolerance.
    CompareResult c = compare_tensors(r.jit_args.at("Sum"), r.interp_args.at("Sum"));
    EXPECT_TRUE(c.pass) << "Sum rel_fro=" << c.rel_fro;
    // Count[bins - 1] took N tickets 0..N-1 (and its own share of the other adds).
    std::vector<int64_t> tickets;
    const HostTensor& t = r.jit_args.at("Ticket");
    for (int64_t k = 0; k < t.numel(); ++k) tickets.push_back(static_cast<int64_t>(t.get(k)));
    std::sort(tickets.begin(), tickets.end());
    EXPECT_EQ(std::adjacent_find(tickets.begin(), tickets.end()), tickets.end()) << "two adds saw the same value";
}

TEST(JitAtomics, RoundedSumsAndTicketsMatchOnOneThread) {
    require_jit();
    Both r = run_both(compile_ir(kAtomics, {{"N", "2048"}}), [](InterpOptions& o) { o.threads = 1; });
    expect_jit(r);
    expect_bitwise(r);
}

TEST(JitPrint, TextMatchesTheInterpreterInBlockOrder) {
    require_jit();
    std::string jit_text, interp_text;
    auto f = compile_ir(kPrints, {});
    ASSERT_TRUE(f);
    std::map<std::string, HostTensor> a, b;
    std::string err;
    ASSERT_TRUE(allocate_args(*f, 3, {}, a, &err)) << err;
    b = a;
    InterpOptions oi, oj;
    oi.threads = 1;
    oi.print_sink = [&](const std::string& s) { interp_text += s; };
    oj.threads = 2;
    oj.engine = CpuEngine::Auto;
    oj.print_sink = [&](const std::string& s) { jit_text += s; };
    InterpReport ri = run_on_cpu(*f, a, oi), rj = run_on_cpu(*f, b, oj);
    EXPECT_EQ(rj.engine, "jit") << rj.jit_note;
    ASSERT_TRUE(ri.ok && rj.ok);
    EXPECT_FALSE(interp_text.empty());
    EXPECT_NE(interp_text.find("msg='tile' BlockIdx=(3, 0, 0), ThreadIdx=(0, 0, 0): buffer=s, index=7, dtype=half_t value="), std::string::npos)
        << interp_text;
    EXPECT_EQ(jit_text, interp_text);
    EXPECT_EQ(a.at("B").bytes, b.at("B").bytes);
}

TEST(JitFp8, ConversionsAndArithmeticAreBitwiseEqual) {
    require_jit();
    Both r = run_both(compile_ir(kFp8, {}));
    expect_jit(r);
    expect_bitwise(r);
    // The raw bytes too (the comparison above goes through each dtype's value).
    for (const char* name : {"E4", "E5"}) EXPECT_EQ(r.jit_args.at(name).bytes, r.interp_args.at(name).bytes) << name;
}

TEST(JitBits, ReinterpretIsBitwiseEqual) {
    require_jit();
    Both r = run_both(compile_ir(kReinterpret, {}));
    expect_jit(r);
    expect_bitwise(r);
}

}  // namespace
