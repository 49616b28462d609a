// The inspection core: instruction classes over PTX and SASS, counts of a listing, the
// occupancy calculator against hand-worked figures, and nvdisasm's absence as a sentence.
#include <gtest/gtest.h>

#include "tileplay/inspect.h"

using tp::InstrClass;
using tp::Isa;

TEST(InspectClassify, PtxMnemonics) {
    auto cls = [](const char* m) { return tp::classify_mnemonic(m, Isa::Ptx); };
    EXPECT_EQ(cls("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), InstrClass::TensorCore);
    EXPECT_EQ(cls("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"), InstrClass::TensorCore);
    EXPECT_EQ(cls("cp.async.cg.shared.global"), InstrClass::AsyncCopy);
    EXPECT_EQ(cls("cp.async.commit_group"), InstrClass::AsyncCopy);
    EXPECT_EQ(cls("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"), InstrClass::AsyncCopy);
    EXPECT_EQ(cls("bar.sync"), InstrClass::Barrier);
    EXPECT_EQ(cls("barrier.cluster.arrive"), InstrClass::Barrier);
    EXPECT_EQ(cls("mbarrier.try_wait.parity.shared::cta.b64"), InstrClass::Barrier);
    EXPECT_EQ(cls("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), InstrClass::MatrixLoad);
    // Whole components only: these merely start with the same letters.
    EXPECT_FALSE(cls("max.s32").has_value());
    EXPECT_FALSE(cls("mmax.f32").has_value());
    EXPECT_FALSE(cls("bra.uni").has_value());
    EXPECT_FALSE(cls("cp.reduce.global").has_value());
    EXPECT_FALSE(cls("ld.shared.u32").has_value());
}

TEST(InspectClassify, SassMnemonics) {
    auto cls = [](const char* m) { return tp::classify_mnemonic(m, Isa::Sass); };
    EXPECT_EQ(cls("HMMA.16816.F32"), InstrClass::TensorCore);
    EXPECT_EQ(cls("HGMMA.64x128x16.F32"), InstrClass::TensorCore);
    EXPECT_EQ(cls("LDGSTS.E.BYPASS.LTC128B.128"), InstrClass::AsyncCopy);
    EXPECT_EQ(cls("UTMALDG.2D"), InstrClass::AsyncCopy);
    EXPECT_EQ(cls("BAR.SYNC.DEFER_BLOCKING"), InstrClass::Barrier);
    EXPECT_EQ(cls("SYNCS.ARRIVE.TRANS64.RED.A1T0"), InstrClass::Barrier);
    EXPECT_EQ(cls("LDSM.16.M88.4"), InstrClass::MatrixLoad);
    EXPECT_FALSE(cls("BRA").has_value());
    EXPECT_FALSE(cls("LDS.U.128").has_value());
    EXPECT_FALSE(cls("HMMAX").has_value());
}

TEST(InspectClassify, MnemonicOfALine) {
    EXPECT_EQ(tp::instruction_mnemonic("\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2}, ...;", Isa::Ptx),
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
    EXPECT_EQ(tp::instruction_mnemonic("\t@%p3 bra $L__BB0_2;", Isa::Ptx), "bra");
    EXPECT_EQ(tp::instruction_mnemonic("\tbar.sync \t0;", Isa::Ptx), "bar.sync");
    EXPECT_EQ(tp::instruction_mnemonic("\tret;", Isa::Ptx), "ret");
    EXPECT_EQ(tp::instruction_mnemonic("$L__BB0_2:", Isa::Ptx), "");
    EXPECT_EQ(tp::instruction_mnemonic("\t.reg .b32 %r<12>;", Isa::Ptx), "");
    EXPECT_EQ(tp::instruction_mnemonic("\t// begin inline asm", Isa::Ptx), "");
    EXPECT_EQ(tp::instruction_mnemonic("\t{", Isa::Ptx), "");
    EXPECT_EQ(tp::instruction_mnemonic("\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;", Isa::Ptx),
              "mbarrier.try_wait.parity.shared::cta.b64");
    EXPECT_EQ(tp::instruction_mnemonic("        /*00f0*/  @!P0 HMMA.16816.F32 R4, R8, R12, R4 ;  /* 0x000 */", Isa::Sass),
              "HMMA.16816.F32");
    EXPECT_EQ(tp::instruction_mnemonic("        /*0000*/                   MOV R1, c[0x0][0x28] ;", Isa::Sass), "MOV");
    EXPECT_EQ(tp::instruction_mnemonic("                                                  /* 0x000fe40000000f00 */", Isa::Sass), "");
    EXPECT_EQ(tp::instruction_mnemonic(".L_x_3:", Isa::Sass), "");
    EXPECT_EQ(tp::instruction_mnemonic("        .section .text.kernel,\"ax\",@progbits", Isa::Sass), "");
    EXPECT_EQ(tp::instruction_mnemonic("        //## File \"gemm.py\", line 30", Isa::Sass), "");
}

TEST(InspectCount, PtxListing) {
    const char* ptx =
        ".visible .entry k(\n"
        "\t.param .u64 k_param_0\n"
        ")\n"
        "{\n"
        "\t.reg .pred %p<3>;\n"
        "\tcp.async.cg.shared.global [%r1], [%rd1], 16;\n"
        "\tcp.async.commit_group;\n"
        "\tcp.async.wait_group 0;\n"
        "\tbar.sync \t0;\n"
        "$L__BB0_1:\n"
        "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r6];\n"
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r2}, {%r3}, {%f1};\n"
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2}, {%r2}, {%r3}, {%f2};\n"
        "\t@%p1 bra $L__BB0_1;\n"
        "\tret;\n"
        "}\n";
    tp::InstrCounts c = tp::count_instructions(ptx, Isa::Ptx);
    EXPECT_EQ(c.instructions, 9);
    EXPECT_EQ(c.of(InstrClass::TensorCore), 2);
    EXPECT_EQ(c.of(InstrClass::AsyncCopy), 3);
    EXPECT_EQ(c.of(InstrClass::Barrier), 1);
    EXPECT_EQ(c.of(InstrClass::MatrixLoad), 1);
    const auto& async = c.opcodes[static_cast<int>(InstrClass::AsyncCopy)];
    EXPECT_EQ(async.at("cp.async.cg"), 1);
    EXPECT_EQ(async.at("cp.async.commit_group"), 1);
    EXPECT_EQ(async.at("cp.async.wait_group"), 1);
    EXPECT_EQ(c.opcodes[static_cast<int>(InstrClass::TensorCore)].at("mma.sync"), 2);
    EXPECT_EQ(c.opcodes[static_cast<int>(InstrClass::MatrixLoad)].at("ldmatrix.sync"), 1);
}

TEST(InspectCount, SassListing) {
    const char* sass =
        "        .text.k:\n"
        "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
        "                                                                  /* 0x000fe40000000f00 */\n"
        "        /*0010*/                   LDGSTS.E.BYPASS.LTC128B.128 [R3], desc[UR4][R4.64] ;\n"
        "        /*0020*/                   LDGDEPBAR ;\n"
        "        /*0030*/                   DEPBAR.LE SB0, 0x0 ;\n"
        "        /*0040*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
        "        /*0050*/                   LDSM.16.M88.4 R8, [R2] ;\n"
        "        /*0060*/                   HMMA.16816.F32 R12, R8, R10, R12 ;\n"
        "        /*0070*/              @!P0 BRA `(.L_x_0) ;\n"
        ".L_x_0:\n"
        "        /*0080*/                   EXIT ;\n";
    tp::InstrCounts c = tp::count_instructions(sass, Isa::Sass);
    EXPECT_EQ(c.instructions, 9);
    EXPECT_EQ(c.of(InstrClass::TensorCore), 1);
    EXPECT_EQ(c.of(InstrClass::AsyncCopy), 2);
    EXPECT_EQ(c.of(InstrClass::Barrier), 1);
    EXPECT_EQ(c.of(InstrClass::MatrixLoad), 1);
    EXPECT_EQ(c.opcodes[static_cast<int>(InstrClass::AsyncCopy)].at("LDGSTS"), 1);
}

TEST(InspectOccupancy, RegistersLimit) {
    auto L = tp::sm_limits("sm_90");
    ASSERT_TRUE(L);
    // 128 regs x 32 lanes = 4096 per warp; 16384 per sub-partition -> 4 warps each, 16 per SM.
    tp::Occupancy o = tp::compute_occupancy(*L, {128, 128, 32768});
    EXPECT_TRUE(o.fits);
    EXPECT_EQ(o.by_registers, 4);
    EXPECT_EQ(o.by_shared_memory, 6);  // 233472 / (32768 + 1024)
    EXPECT_EQ(o.by_threads, 16);
    EXPECT_EQ(o.blocks_per_sm, 4);
    EXPECT_EQ(o.limiter, "registers");
    EXPECT_EQ(o.warps_per_sm, 16);
    EXPECT_DOUBLE_EQ(o.occupancy, 0.25);
}

TEST(InspectOccupancy, SharedMemoryLimit) {
    auto L = tp::sm_limits("sm_80");
    ASSERT_TRUE(L);
    tp::Occupancy o = tp::compute_occupancy(*L, {32, 256, 96 * 1024});
    EXPECT_EQ(o.by_registers, 8);
    EXPECT_EQ(o.by_shared_memory, 1);
    EXPECT_EQ(o.smem_allocated_per_block, 96 * 1024 + 1024);
    EXPECT_EQ(o.limiter, "shared memory");
    EXPECT_DOUBLE_EQ(o.occupancy, 8.0 / 64.0);
}

TEST(InspectOccupancy, ThreadsAndTies) {
    auto L86 = tp::sm_limits("sm_86");
    ASSERT_TRUE(L86);
    tp::Occupancy o = tp::compute_occupancy(*L86, {16, 1024, 0});
    EXPECT_EQ(o.blocks_per_sm, 1);
    EXPECT_EQ(o.limiter, "threads");
    EXPECT_DOUBLE_EQ(o.occupancy, 32.0 / 48.0);
    // 64-thread blocks of a light kernel: threads and the block limit both allow 32.
    tp::Occupancy t = tp::compute_occupancy(*tp::sm_limits("sm_90"), {32, 64, 0});
    EXPECT_EQ(t.blocks_per_sm, 32);
    EXPECT_EQ(t.limiter, "registers, threads, blocks per SM");
    EXPECT_DOUBLE_EQ(t.occupancy, 1.0);
}

TEST(InspectOccupancy, BlocksThatDoNotFit) {
    auto L = tp::sm_limits("sm_90");
    ASSERT_TRUE(L);
    tp::Occupancy r = tp::compute_occupancy(*L, {255, 1024, 0});
    EXPECT_FALSE(r.fits);
    EXPECT_EQ(r.limiter, "registers");
    EXPECT_NE(r.why.find("registers"), std::string::npos);
    tp::Occupancy s = tp::compute_occupancy(*L, {32, 128, 240 * 1024});
    EXPECT_FALSE(s.fits);
    EXPECT_EQ(s.limiter, "shared memory");
    EXPECT_NE(s.why.find("shared memory"), std::string::npos);
    // Turing: 64 KB per block fits exactly, with no reserved part.
    tp::Occupancy t = tp::compute_occupancy(*tp::sm_limits("sm_75"), {32, 128, 64 * 1024});
    EXPECT_TRUE(t.fits);
    EXPECT_EQ(t.blocks_per_sm, 1);
    EXPECT_FALSE(tp::sm_limits("sm_70").has_value());
}

TEST(InspectSass, ReasonWhenItCannot) {
    tp::SassResult none = tp::disassemble_cubin({});
    EXPECT_FALSE(none.ok);
    EXPECT_NE(none.why.find("no cubin"), std::string::npos);
    // Not a cubin: with nvdisasm present it fails on the file, without it the reason says so.
    tp::SassResult bad = tp::disassemble_cubin({1, 2, 3, 4});
    EXPECT_FALSE(bad.ok);
    if (tp::find_nvdisasm().empty()) EXPECT_NE(bad.why.find("nvdisasm not found"), std::string::npos);
    else EXPECT_NE(bad.why.find("failed"), std::string::npos);
}
