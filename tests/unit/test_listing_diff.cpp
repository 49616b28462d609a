// diff_listings: two configurations' PTX compared by instruction, not by register numbers;
// the script is minimal and complete, and a listing pair past the edit budget says so.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "tileplay/inspect.h"

using namespace tp;

namespace {

std::vector<std::string> lines_of(const std::string& t) {
    std::vector<std::string> out;
    std::istringstream in(t);
    std::string l;
    while (std::getline(in, l)) out.push_back(l);
    return out;
}

// Rebuilds both sides from the script: every line once, in order, kept lines equal by key.
void check_script(const std::string& a, const std::string& b, const ListingDiff& d) {
    int next_left = 0, next_right = 0;
    for (const auto& l : d.lines) {
        if (l.kind != ListingDiffLine::Added) EXPECT_EQ(l.left, next_left++);
        if (l.kind != ListingDiffLine::Removed) EXPECT_EQ(l.right, next_right++);
    }
    EXPECT_EQ(next_left, int(lines_of(a).size()));
    EXPECT_EQ(next_right, int(lines_of(b).size()));
}

}  // namespace

TEST(ListingDiff, RegistersDoNotCountOpcodesDo) {
    const std::string a =
        "\t.reg .f32 %f<10>;\n"
        "\tld.global.f32 %f1, [%rd1];\n"
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
        "\tst.global.f32 [%rd2], %f1;\n";
    const std::string b =
        "\t.reg .f32 %f<10>;\n"
        "\tld.global.f32 %f7, [%rd9];\n"
        "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f1}, %rd3, %rd4, 1;\n"
        "\tbar.sync 0;\n"
        "\tst.global.f32 [%rd5], %f7;\n";
    ListingDiff d = diff_listings(a, b, Isa::Ptx);
    EXPECT_TRUE(d.complete);
    EXPECT_EQ(d.removed, 1);  // the mma.sync
    EXPECT_EQ(d.added, 2);    // the wgmma and the barrier
    check_script(a, b, d);
    EXPECT_EQ(d.lines[1].kind, ListingDiffLine::Same);  // the loads differ only in registers
}

TEST(ListingDiff, MinimalOnRandomEdits) {
    std::mt19937 rng(7);
    const char* ops[] = {"add.s32 %r1, %r2, %r3;", "mul.lo.s32 %r1, %r2, 4;", "ld.shared.u32 %r5, [%r6];", "bar.sync 0;"};
    for (int t = 0; t < 50; ++t) {
        std::string a, b;
        int edits = 0;
        for (int i = 0; i < 60; ++i) {
            std::string l = std::string("\t") + ops[rng() % 4] + "\n";
            a += l;
            switch (rng() % 6) {
                case 0: ++edits; break;                                            // deleted
                case 1: b += l + "\tcvt.rn.f16.f32 %h1, %f1;\n"; ++edits; break;  // inserted after
                default: b += l;
            }
        }
        ListingDiff d = diff_listings(a, b, Isa::Ptx);
        ASSERT_TRUE(d.complete);
        check_script(a, b, d);
        EXPECT_LE(d.removed + d.added, edits);  // no longer than the script that made b
    }
}

TEST(ListingDiff, PastTheBudgetSaysSoAndKeepsEveryLine) {
    std::string a, b;
    for (int i = 0; i < 300; ++i) {
        a += "\tadd.s32 %r1, %r2, %r3;\n";
        b += "\tmul.lo.s32 %r1, %r2, 4;\n";
    }
    ListingDiff d = diff_listings(a, b, Isa::Ptx, 100);
    EXPECT_FALSE(d.complete);
    EXPECT_EQ(d.removed, 300);
    EXPECT_EQ(d.added, 300);
    check_script(a, b, d);
    EXPECT_TRUE(diff_listings(a, a, Isa::Ptx).complete);
    EXPECT_EQ(diff_listings(a, a, Isa::Ptx).removed, 0);
}
