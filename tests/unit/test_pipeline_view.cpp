// The pipeline view (tileplay/pipeline_view.h) on the samples: the cp.async multi-buffering of
// samples/gemm.py on sm_80 (prefetch before the loop, wait_group + __syncthreads, the copy one
// stage ahead, mma.sync on stage k % S), its warp-specialised form on sm_90a (a TMA producer
// that acquires ring slots, consumers that wait on the full mbarriers, issue wgmma, wait for
// the group and release), and samples/flash_attention.py with block_N=128 on sm_90a (two rings,
// a rotated consumer loop with a peeled first iteration and last group, warpgroups taking
// turns at named barriers). The orders checked are the ones the lowered IR runs.
#include <gtest/gtest.h>

#include <algorithm>

#include "tileplay/pipeline_view.h"
#include "tileplay/sample_header.h"
#include "test_util.h"

using namespace tp;
using tp::test_util::read_sample;

namespace {

PipelineReport view(const std::string& sample, const std::string& target, std::vector<std::pair<std::string, std::string>> defines = {}) {
    CompileRequest req;
    req.path = "samples/" + sample;
    req.source = read_sample(sample);
    req.target = target;
    req.defines = std::move(defines);
    req.fallback_defines = parse_sample_header(req.source).args;  // the GPU problem size
    PipelineReport r = inspect_pipeline(req);
    EXPECT_TRUE(r.ok) << r.error;
    return r;
}

// Kinds of the events, skipping the scalar bookkeeping and element-wise work.
std::vector<PipeEventKind> kinds(const std::vector<PipeEvent>& es) {
    std::vector<PipeEventKind> k;
    for (const auto& e : es)
        if (e.kind != PipeEventKind::Scalar && e.kind != PipeEventKind::Compute) k.push_back(e.kind);
    return k;
}

const PipeRole* role(const PipelineLoopView& l, const std::string& name) {
    for (const auto& r : l.roles)
        if (r.name == name) return &r;
    return nullptr;
}

using K = PipeEventKind;

}  // namespace

TEST(PipelineView, CpAsyncMultiBufferingOnSm80) {
    PipelineReport r = view("gemm.py", "sm_80", {{"M", "256"}, {"N", "256"}, {"K", "256"}, {"num_stages", "3"}});
    ASSERT_EQ(r.loops.size(), 1u);
    const PipelineLoopView& l = r.loops[0];
    EXPECT_EQ(l.span.begin.line, 42u);
    EXPECT_EQ(l.num_stages, 3);
    ASSERT_EQ(l.roles.size(), 1u);
    const PipeRole& b = l.roles[0];
    EXPECT_EQ(b.name, "block");
    EXPECT_EQ(b.threads, 128);
    EXPECT_NE(l.scheme.find("cp.async"), std::string::npos);
    ASSERT_EQ(l.buffers.size(), 2u);
    EXPECT_EQ(l.buffers[0].depth, 3);
    // Prologue: S-1 stages issued (A, B, commit under the unrolled stage loop).
    EXPECT_EQ(kinds(b.prologue), (std::vector<K>{K::CpAsync, K::CpAsync, K::Commit}));
    EXPECT_NE(b.prologue[0].guard.find("tp_stage"), std::string::npos);
    // Each iteration: wait for its stage (S-2 groups may stay in flight), barrier, the copy
    // S-1 ahead under its bound check, commit, then the gemm on stage k % S.
    EXPECT_EQ(kinds(b.steady), (std::vector<K>{K::WaitGroup, K::Barrier, K::CpAsync, K::CpAsync, K::Commit, K::Mma}));
    EXPECT_EQ(b.steady[0].label, "cp.async wait_group 1");
    EXPECT_TRUE(b.steady[0].waits);
    EXPECT_EQ(b.steady[2].buffer, "A_shared");
    EXPECT_EQ(b.steady[2].span.begin.line, 43u);
    EXPECT_EQ(b.steady[3].span.begin.line, 44u);
    EXPECT_EQ(b.steady[2].slot, "(k + 2) % 3");
    EXPECT_FALSE(b.steady[2].guard.empty());
    EXPECT_EQ(b.steady[5].span.begin.line, 45u);
    EXPECT_EQ(b.steady[5].slot, "k % 3");
    EXPECT_EQ(kinds(b.epilogue), (std::vector<K>{K::WaitGroup}));
    EXPECT_EQ(b.waits_on.size(), 3u);  // wait_group 1, __syncthreads, the drain's wait_group 0
}

TEST(PipelineView, WarpSpecialisedGemmOnSm90a) {
    PipelineReport r = view("gemm.py", "sm_90a", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}});
    ASSERT_EQ(r.loops.size(), 1u);
    const PipelineLoopView& l = r.loops[0];
    ASSERT_EQ(l.roles.size(), 2u);
    const PipeRole* p = role(l, "producer");
    const PipeRole* c = role(l, "consumer");
    ASSERT_TRUE(p && c);
    EXPECT_EQ(p->first_thread, c->threads);
    EXPECT_EQ(p->threads, 128);
    EXPECT_GT(c->regs, p->regs);
    EXPECT_NE(l.scheme.find("warp-specialised"), std::string::npos);
    // The producer: acquire a slot (waits for the consumers' release), then the TMA loads of A
    // and B into it, issued by one thread.
    auto pk = kinds(p->steady);
    ASSERT_GE(pk.size(), 3u);
    EXPECT_EQ(pk[0], K::Acquire);
    EXPECT_TRUE(std::all_of(pk.begin() + 1, pk.end(), [](K k) { return k == K::TmaLoad; }));
    EXPECT_TRUE(p->steady[0].waits);
    EXPECT_NE(p->steady[0].guard.find("tx == "), std::string::npos);
    EXPECT_EQ(p->steady[1].buffer, "A_shared");
    EXPECT_EQ(p->steady[1].span.begin.line, 43u);
    const PipeEvent& last_load = *std::find_if(p->steady.rbegin(), p->steady.rend(), [](const PipeEvent& e) { return e.kind == K::TmaLoad; });
    EXPECT_EQ(last_load.buffer, "B_shared");
    EXPECT_EQ(last_load.span.begin.line, 44u);
    // The consumers: wait on the full mbarrier, issue wgmma, wait for the previous group (one
    // stays in flight), release the slot it read; after the loop the last group and release.
    EXPECT_EQ(kinds(c->steady), (std::vector<K>{K::MbarWait, K::MmaIssue, K::MmaWait, K::Release}));
    EXPECT_EQ(c->steady[0].buffer, "A_shared");
    EXPECT_EQ(c->steady[0].span.begin.line, 43u);
    const PipeEvent* wait = nullptr;
    for (const auto& e : c->steady)
        if (e.kind == K::MmaWait) wait = &e;
    ASSERT_TRUE(wait);
    EXPECT_EQ(wait->label, "wgmma wait_group 1");
    EXPECT_EQ(wait->span.begin.line, 45u);
    EXPECT_EQ(kinds(c->epilogue), (std::vector<K>{K::MmaWait, K::Release}));
    for (const auto& b : l.buffers) EXPECT_GE(b.depth, 2);
}

TEST(PipelineView, FlashAttentionConsumersRotateAndTakeTurns) {
    PipelineReport r = view("flash_attention.py", "sm_90a", {{"block_N", "128"}});
    ASSERT_EQ(r.loops.size(), 1u);
    const PipelineLoopView& l = r.loops[0];
    const PipeRole* p = role(l, "producer");
    const PipeRole* c = role(l, "consumer");
    ASSERT_TRUE(p && c);
    // Two rings, K then V, each acquired and loaded per iteration.
    auto pk = kinds(p->steady);
    EXPECT_EQ(pk, (std::vector<K>{K::Acquire, K::TmaLoad, K::TmaLoad, K::Acquire, K::TmaLoad, K::TmaLoad}));
    EXPECT_EQ(p->steady[0].buffer, "K_shared");
    for (const auto& e : p->steady) {
        if (e.kind == K::TmaLoad && e.span.begin.line != p->steady[0].span.begin.line) {
            EXPECT_EQ(e.buffer, "V_shared");
        }
    }
    // The consumer loop is rotated: it starts at 1, iteration 0's first group is before it and
    // the last iteration's second group after it.
    EXPECT_NE(c->loop.find("(1, "), std::string::npos) << c->loop;
    EXPECT_FALSE(kinds(c->prologue).empty());
    EXPECT_EQ(kinds(c->prologue)[0], K::MbarWait);
    auto ck = kinds(c->steady);
    EXPECT_EQ(std::count(ck.begin(), ck.end(), K::MmaIssue), 2);
    EXPECT_EQ(std::count(ck.begin(), ck.end(), K::MbarWait), 2);
    EXPECT_EQ(std::count(ck.begin(), ck.end(), K::Release), 2);
    EXPECT_EQ(std::count(ck.begin(), ck.end(), K::NamedSync), 1);
    EXPECT_EQ(std::count(ck.begin(), ck.end(), K::NamedArrive), 1);
    // K's wait comes before the first issue, V's before the second; every release after the
    // wgmma wait that completes the group reading its slot.
    auto at = [&](K k, int nth) {
        int seen = 0;
        for (size_t i = 0; i < c->steady.size(); ++i)
            if (c->steady[i].kind == k && seen++ == nth) return int(i);
        return -1;
    };
    EXPECT_LT(at(K::MbarWait, 0), at(K::MmaIssue, 0));
    EXPECT_LT(at(K::MbarWait, 1), at(K::MmaIssue, 1));
    EXPECT_LT(at(K::MmaWait, 0), at(K::Release, 0));
    EXPECT_LT(at(K::MmaWait, 1), at(K::Release, 1));
    EXPECT_EQ(c->steady[size_t(at(K::MbarWait, 1))].buffer, "V_shared");
    // The softmax between the groups is there as work, at its DSL lines inside the loop.
    bool softmax = false;
    for (const auto& e : c->steady) softmax |= e.kind == K::Compute && e.label.find("reduce_rows") != std::string::npos;
    EXPECT_TRUE(softmax);
    EXPECT_FALSE(kinds(c->epilogue).empty());
    for (const auto* part : {&c->prologue, &c->steady, &c->epilogue})
        for (const auto& e : *part) EXPECT_TRUE(e.span.valid()) << e.code;
}

TEST(PipelineView, NoPipelinedLoopGivesNoLoops) {
    PipelineReport r = view("vector_add.py", "sm_80");
    EXPECT_TRUE(r.loops.empty());
}

TEST(PipelineView, FallbackToCpAsyncCarriesTheCompilersRemark) {
    // tl.disable_tma_lower on sm_90a: no producer warpgroup; the loop keeps its cp.async stages,
    // and the remark at the T.Pipelined line says why.
    CompileRequest req;
    req.path = "samples/gemm.py";
    req.source = read_sample("gemm.py");
    req.target = "sm_90a";
    req.fallback_defines = parse_sample_header(req.source).args;
    req.pass_configs = {{"tl.disable_tma_lower", "true"}};
    PipelineReport r = inspect_pipeline(req);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.loops.size(), 1u);
    const PipelineLoopView& l = r.loops[0];
    ASSERT_EQ(l.roles.size(), 1u);
    EXPECT_NE(l.scheme.find("cp.async multi-buffering"), std::string::npos);
    bool why = false;
    for (const auto& n : l.notes) why |= n.find("line 42") == 0 && n.find("tl.disable_tma_lower") != std::string::npos;
    EXPECT_TRUE(why);
}

TEST(PipelineView, OneStageRunsAsWrittenWithItsCopiesWaitedFor) {
    PipelineReport r = view("gemm.py", "sm_80", {{"num_stages", "1"}});
    ASSERT_EQ(r.loops.size(), 1u);
    const PipelineLoopView& l = r.loops[0];
    EXPECT_EQ(l.scheme.rfind("not pipelined (num_stages=1)", 0), 0u) << l.scheme;
    const PipeRole& b = l.roles[0];
    EXPECT_TRUE(kinds(b.prologue).empty());
    auto k = kinds(b.steady);
    // A barrier (the last iteration's readers are done), the copies issued (cp.async) and
    // waited for in the same iteration, another barrier, the mma.
    EXPECT_EQ(k, (std::vector<K>{K::Barrier, K::CpAsync, K::CpAsync, K::Commit, K::WaitGroup, K::Barrier, K::Mma}));
    EXPECT_NE(std::find(k.begin(), k.end(), K::WaitGroup), k.end());
    EXPECT_LT(std::find(k.begin(), k.end(), K::CpAsync) - k.begin(), std::find(k.begin(), k.end(), K::WaitGroup) - k.begin());
}
