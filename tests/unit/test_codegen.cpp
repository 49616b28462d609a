// Pipeline + CUDA codegen + NVRTC on hand-built Tile IR: a vector add (signature, #line
// directives, coalesced thread mapping, PTX/cubin), a shared-memory copy kernel, and the
// user-facing resource diagnostics. NVRTC tests skip when libnvrtc is not installed.
#include <gtest/gtest.h>

#include "codegen/cuda/codegen_cuda.h"
#include "codegen/ptx_lines.h"
#include "pipeline.h"
#include "runtime/nvrtc.h"

using namespace tp;
using namespace tp::ir;

namespace {

Span at(uint32_t line) { return Span{{line, 5}, {line, 20}}; }

// @T.prim_func def vadd(A, B, C: T.Tensor((N,), "float32")):
//     with T.Kernel(N // 256, threads=256) as bx:             # line 10
//         for i in T.Parallel(256):                             # line 11
//             C[bx * 256 + i] = A[bx * 256 + i] + B[bx * 256 + i]   # line 12
PrimFuncPtr vector_add(int64_t n, int64_t threads = 256, DataType dt = DataType::float32()) {
    auto mk = [&](const char* name) {
        return std::make_shared<BufferNode>(name, dt, std::vector<Expr>{int_imm(n)}, Scope::Global, at(3));
    };
    Buffer A = mk("A"), B = mk("B"), C = mk("C");
    Var bx = std::make_shared<VarNode>("bx", DataType::int32(), VarKind::BlockIdx, at(10));
    Var tx = std::make_shared<VarNode>("tx", DataType::int32(), VarKind::ThreadIdx, at(10));
    Var i = std::make_shared<VarNode>("i", DataType::int32(), VarKind::Loop, at(11));
    Expr idx = make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, bx, int_imm(256)), i);
    Expr sum = make_binary(BinaryOp::Add, std::make_shared<BufferLoadNode>(A, std::vector<Expr>{idx}),
                           std::make_shared<BufferLoadNode>(B, std::vector<Expr>{idx}));
    Stmt store = std::make_shared<BufferStoreNode>(C, std::vector<Expr>{idx}, sum, at(12));
    Stmt loop = std::make_shared<ForNode>(i, int_imm(0), int_imm(256), ForKind::Parallel, store, at(11));
    Stmt kernel = std::make_shared<KernelLaunchNode>(std::vector<Expr>{int_imm(n / 256)}, std::vector<Var>{bx},
                                                     std::vector<int64_t>{threads}, std::vector<Var>{tx}, loop, at(10));
    auto f = std::make_shared<PrimFunc>();
    f->name = "vadd";
    f->span = at(2);
    f->body = kernel;
    f->params = {{"A", A, nullptr, false}, {"B", B, nullptr, false}, {"C", C, nullptr, true}};
    return f;
}

struct Lowered {
    PrimFuncPtr func;
    codegen::CudaModule cuda;
};

Lowered lower(const PrimFuncPtr& f, DiagnosticEngine& diags, const std::string& target = "sm_90") {
    PipelineOptions o;
    o.target = *parse_target(target);
    o.print_after_all = true;
    PipelineResult r = run_pipeline(f, o, diags);
    Lowered l{r.func, {}};
    if (r.func) l.cuda = codegen::generate_cuda(*r.func, o.target, "vadd.py", diags);
    return l;
}

}  // namespace

TEST(Codegen, VectorAddIsCleanAndCoalesced) {
    DiagnosticEngine diags;
    Lowered l = lower(vector_add(1 << 20), diags);
    ASSERT_FALSE(diags.has_errors());
    const std::string& s = l.cuda.source;
    EXPECT_NE(s.find("extern \"C\" __global__ void __launch_bounds__(256) vadd_kernel(const float* __restrict__ A, "
                     "const float* __restrict__ B, float* __restrict__ C)"), std::string::npos) << s;
    // One element per thread, no loop, no guard: 256 threads cover the 256-wide nest exactly.
    EXPECT_NE(s.find("C[((bx * 256) + tx)] = (A[((bx * 256) + tx)] + B[((bx * 256) + tx)]);"), std::string::npos) << s;
    EXPECT_EQ(s.find("for ("), std::string::npos) << s;
    EXPECT_EQ(s.find("if ("), std::string::npos) << s;
    EXPECT_NE(s.find("#line 12 \"vadd.py\""), std::string::npos) << s;
    // The line map attributes the store line to DSL line 12.
    bool found = false;
    std::istringstream in(s);
    std::string line;
    for (uint32_t n = 1; std::getline(in, line); ++n)
        if (line.find("C[(") != std::string::npos) found = l.cuda.lines.dsl_line(n) == 12;
    EXPECT_TRUE(found);
}

TEST(Codegen, ThreadsFewerThanElementsLoopWithGuard) {
    DiagnosticEngine diags;
    Lowered l = lower(vector_add(1 << 20, 96), diags);
    ASSERT_FALSE(diags.has_errors());
    // 256 elements on 96 threads: 3 rounds, element = round * 96 + tx, guarded below 256.
    EXPECT_NE(l.cuda.source.find("< 3; ++"), std::string::npos) << l.cuda.source;
    EXPECT_NE(l.cuda.source.find("< 256)"), std::string::npos) << l.cuda.source;
}

TEST(Pipeline, PassNamesAndSnapshots) {
    const auto& names = pipeline_pass_names();
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names.front(), "verify");
    EXPECT_NE(std::find(names.begin(), names.end(), "bind-threads"), names.end());
    DiagnosticEngine diags;
    PipelineOptions o;
    o.target = *parse_target("sm_80");
    o.print_after = {"bind-threads"};
    PipelineResult r = run_pipeline(vector_add(1024), o, diags);
    ASSERT_EQ(r.snapshots.size(), 1u);
    EXPECT_EQ(r.snapshots[0].pass, "bind-threads");
    EXPECT_NE(r.snapshots[0].ir.find("i = tp_e0"), std::string::npos) << r.snapshots[0].ir;
    EXPECT_EQ(r.timings.size(), names.size());
}

TEST(Pipeline, TooManyThreads) {
    DiagnosticEngine diags;
    lower(vector_add(4096, 2048), diags);
    ASSERT_TRUE(diags.has_errors());
    EXPECT_EQ(diags.diagnostics()[0].kind, DiagKind::TooManyThreads);
    EXPECT_EQ(diags.diagnostics()[0].span.begin.line, 10u);
}

TEST(Pipeline, SharedMemoryExceededAtAllocation) {
    auto f = std::make_shared<PrimFunc>(*vector_add(1024));
    auto big = std::make_shared<BufferNode>("S", DataType::float32(), std::vector<Expr>{int_imm(64 * 1024)}, Scope::Shared, at(7));
    auto* k = f->body->as<KernelLaunchNode>();
    Stmt fill = std::make_shared<FillOpNode>(BufferRegion{big, {{int_imm(0), int_imm(64 * 1024)}}}, float_imm(0), at(8));
    Stmt body = std::make_shared<AllocateNode>(big, nullptr, make_seq({fill, k->body}), at(7));
    f->body = std::make_shared<KernelLaunchNode>(k->grid, k->block_vars, k->threads, k->thread_vars, body, k->span);
    DiagnosticEngine diags;
    lower(f, diags, "sm_86");
    ASSERT_TRUE(diags.has_errors());
    EXPECT_EQ(diags.diagnostics()[0].kind, DiagKind::SharedMemoryExceeded);
    EXPECT_EQ(diags.diagnostics()[0].span.begin.line, 7u);
    EXPECT_NE(diags.diagnostics()[0].message.find("262144"), std::string::npos);
}

TEST(Nvrtc, VectorAddToPtxAndCubin) {
    std::string why;
    if (!runtime::nvrtc_available(&why)) GTEST_SKIP() << why;
    EXPECT_FALSE(runtime::nvrtc_version().empty());
    for (const char* t : {"sm_75", "sm_90a"}) {
        DiagnosticEngine diags;
        Lowered l = lower(vector_add(1 << 20, 256, DataType::float16()), diags, t);
        ASSERT_FALSE(diags.has_errors());
        runtime::NvrtcOptions o;
        o.arch = t;
        runtime::NvrtcOutput out = runtime::nvrtc_compile(l.cuda.source, "vadd.cu", o);
        ASSERT_TRUE(out.ok) << out.error << "\n" << l.cuda.source;
        EXPECT_NE(out.ptx.find(".entry vadd_kernel"), std::string::npos);
        EXPECT_NE(out.ptx.find("ld.global"), std::string::npos);
        EXPECT_NE(out.ptx.find("st.global"), std::string::npos);
        EXPECT_FALSE(out.cubin.empty());
        ResourceUsage ru = codegen::parse_ptxas_info(out.log);
        EXPECT_GT(ru.registers, 0) << out.log;
        LineMap pm = codegen::ptx_line_map(out.ptx, "vadd.py");
        bool has12 = false;
        for (uint32_t v : pm.to_dsl) has12 |= v == 12;
        EXPECT_TRUE(has12);
    }
}

TEST(PtxLines, FollowsInlinedAtToTheDslFile) {
    std::string ptx =
        ".visible .entry k()\n{\n"
        "\t.loc\t1 12 5\n"
        "\tld.global.f32 %f1, [%rd1];\n"
        "\t.loc\t2 40 3, function_name $L__info_string0, inlined_at 1 14 7\n"
        "\tex2.approx.f32 %f2, %f1;\n"
        "}\n"
        "\t.file\t1 \"/tmp/k.py\"\n"
        "\t.file\t2 \"tp_common.cuh\"\n";
    LineMap m = codegen::ptx_line_map(ptx, "/tmp/k.py");
    EXPECT_EQ(m.dsl_line(4), 12u);
    EXPECT_EQ(m.dsl_line(6), 14u);
    EXPECT_EQ(m.dsl_line(7), 0u);
}

TEST(PtxLines, FollowsNestedInliningOutToTheDslLine) {
    // tp::gemm_ss (tp_gemm.cuh:184) calls tp::mma (tp_mma.cuh:115): PTX names one level per
    // line, so the mma's site 3 184 9 is found through that site's own .loc line. Two T.gemm
    // statements (lines 20 and 30) use the same template: each mma goes to its own statement.
    std::string ptx =
        ".visible .entry k()\n{\n"
        "\t.loc\t3 184 9, function_name $L__info_string1, inlined_at 1 20 5\n"
        "\tmov.b32 %r1, %r2;\n"
        "\t.loc\t2 115 15, function_name $L__info_string2, inlined_at 3 184 9\n"
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
        "\t.loc\t3 184 9, function_name $L__info_string1, inlined_at 1 30 5\n"
        "\tmov.b32 %r3, %r4;\n"
        "\t.loc\t2 115 15, function_name $L__info_string2, inlined_at 3 184 9\n"
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2}, {%r3}, {%r4}, {%f2};\n"
        "\t.loc\t2 90 1, function_name $L__info_string3, inlined_at 3 999 1\n"
        "\tnop;\n"
        "}\n"
        "\t.file\t1 \"/tmp/k.py\"\n"
        "\t.file\t2 \"tp_mma.cuh\"\n"
        "\t.file\t3 \"tp_gemm.cuh\"\n";
    LineMap m = codegen::ptx_line_map(ptx, "/tmp/k.py");
    EXPECT_EQ(m.dsl_line(4), 20u);
    EXPECT_EQ(m.dsl_line(6), 20u);  // the first mma
    EXPECT_EQ(m.dsl_line(8), 30u);
    EXPECT_EQ(m.dsl_line(10), 30u);  // the second
    EXPECT_EQ(m.dsl_line(12), 0u);   // a site that never reaches the DSL file
}

TEST(PtxLines, ParsesPtxasInfo) {
    ResourceUsage r = codegen::parse_ptxas_info(
        "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
        "ptxas info    : Function properties for k\n"
        "    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
        "ptxas info    : Used 38 registers, 16384 bytes smem, 380 bytes cmem[0]\n");
    EXPECT_EQ(r.registers, 38);
    EXPECT_EQ(r.static_shared_bytes, 16384);
    EXPECT_EQ(r.stack_bytes, 8);
    EXPECT_EQ(r.spill_store_bytes, 4);
    EXPECT_EQ(r.spill_load_bytes, 12);
}
