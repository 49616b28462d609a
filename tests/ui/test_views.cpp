// Token classes, the code lexer's styles, hover cards and the line-link index on golden
// CUDA, PTX and SASS texts (tests/ui/data).
#include <QFile>
#include <QtTest>

#include "views/code_lexer.h"
#include "views/line_links.h"
#include "views/token_classes.h"

using namespace tpui;

namespace {

std::string read(const char* name) {
    QFile f(QStringLiteral(UI_TEST_DATA "/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing test data %s", name);
    return f.readAll().toStdString();
}

int line_of(const std::string& text, const std::string& needle) {
    size_t pos = text.find(needle);
    return pos == std::string::npos ? 0 : int(std::count(text.begin(), text.begin() + long(pos), '\n')) + 1;
}

}  // namespace

class TestViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void classify_words() {
        QCOMPARE(classify_word("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", CodeKind::Ptx), TokenClass::TensorCore);
        QCOMPARE(classify_word("wgmma.mma_async.sync", CodeKind::Ptx), TokenClass::TensorCore);
        QCOMPARE(classify_word("cp.async.bulk.tensor.2d", CodeKind::Ptx), TokenClass::AsyncCopy);
        QCOMPARE(classify_word("cp.reduce", CodeKind::Ptx), TokenClass::None);
        QCOMPARE(classify_word("bar.sync", CodeKind::Ptx), TokenClass::Barrier);
        QCOMPARE(classify_word("mbarrier.init.shared.b64", CodeKind::Ptx), TokenClass::Barrier);
        QCOMPARE(classify_word("ldmatrix.sync.aligned.m8n8.x4", CodeKind::Ptx), TokenClass::MatrixLoad);
        QCOMPARE(classify_word("HGMMA.64x128x16.F32", CodeKind::Sass), TokenClass::TensorCore);
        QCOMPARE(classify_word("UTMALDG.2D", CodeKind::Sass), TokenClass::AsyncCopy);
        QCOMPARE(classify_word("LDSM.16.M88.4", CodeKind::Sass), TokenClass::MatrixLoad);
        QCOMPARE(classify_word("BAR.SYNC", CodeKind::Sass), TokenClass::Barrier);
        QCOMPARE(classify_word("mma", CodeKind::Sass), TokenClass::None);  // SASS is upper-case
        QCOMPARE(classify_word("ld.global.v4", CodeKind::Ptx), TokenClass::None);
        QCOMPARE(classify_word("__syncthreads", CodeKind::Cuda), TokenClass::Barrier);
    }

    void counts_on_golden_ptx() {
        ClassCounts n = count_tokens(read("golden.ptx"), CodeKind::Ptx);
        QCOMPARE(n[0], 2);  // mma.sync, wgmma (the commented mma.sync does not count)
        QCOMPARE(n[1], 4);  // cp.async x3 (incl. commit, wait) + cp.async.bulk.tensor
        QCOMPARE(n[2], 2);  // bar.sync, mbarrier.try_wait
        QCOMPARE(n[3], 1);  // ldmatrix
    }

    void counts_on_golden_cuda_and_sass() {
        ClassCounts c = count_tokens(read("golden.cu"), CodeKind::Cuda);
        QCOMPARE(c[0], 1);
        QCOMPARE(c[1], 1);
        QCOMPARE(c[2], 1);  // __syncthreads
        QCOMPARE(c[3], 1);
        ClassCounts s = count_tokens(read("golden.sass"), CodeKind::Sass);
        QCOMPARE(s[0], 2);  // HMMA x2
        QCOMPARE(s[1], 2);  // LDGSTS, LDGDEPBAR
        QCOMPARE(s[2], 1);
        QCOMPARE(s[3], 1);
    }

    void token_positions_and_styles() {
        std::string line = "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r2};  // ldmatrix";
        auto hits = find_tokens(line, CodeKind::Ptx);
        QCOMPARE(int(hits.size()), 1);
        QCOMPARE(hits[0].start, 1);
        auto st = CodeLexer::style_line(line, CodeKind::Ptx);
        QCOMPARE(st[1], int(CodeLexer::ClassTensorCore));
        QCOMPARE(st[line.find("%f1")], int(CodeLexer::Register));
        QCOMPARE(st[line.find("ldmatrix")], int(CodeLexer::Comment));
        auto sass = CodeLexer::style_line("        /*0040*/  HMMA.16816.F32 R12, R8, R10, R12 ;", CodeKind::Sass);
        QCOMPARE(sass[8], int(CodeLexer::Comment));
        QCOMPARE(sass[18], int(CodeLexer::ClassTensorCore));
        QCOMPARE(sass[33], int(CodeLexer::Register));
        auto cuda = CodeLexer::style_line("#line 31 \"gemm.py\"", CodeKind::Cuda);
        QCOMPARE(cuda[0], int(CodeLexer::Directive));
    }

    void hover_cards() {
        QVERIFY(hover_card("cp.async.bulk.tensor.2d.shared", CodeKind::Ptx).contains("Tensor Memory Accelerator"));
        QVERIFY(hover_card("cp.async.cg.shared.global", CodeKind::Ptx).contains("without passing through"));
        QVERIFY(hover_card("HMMA.16816.F32", CodeKind::Sass).contains("Tensor Core"));
        QVERIFY(hover_card("mma.sync.aligned", CodeKind::Ptx).contains("(Tensor Core)"));
        QVERIFY(hover_card("frobnicate", CodeKind::Ptx).isEmpty());
        QCOMPARE(QString::fromStdString(std::string(word_at("  bar.sync 0;", 5))), QString("bar.sync"));
    }

    void line_links_on_golden_maps() {
        // Line maps as the compiler reports them for golden.cu (from #line) and golden.ptx (.loc).
        std::string cu = read("golden.cu"), ptx = read("golden.ptx");
        tp::LineMap cm, pm;
        cm.to_dsl.assign(size_t(std::count(cu.begin(), cu.end(), '\n')), 0);
        cm.to_dsl[size_t(line_of(cu, "extern") - 1)] = 30;
        cm.to_dsl[size_t(line_of(cu, "cp.async") - 1)] = 31;
        cm.to_dsl[size_t(line_of(cu, "__syncthreads") - 1)] = 31;
        cm.to_dsl[size_t(line_of(cu, "ldmatrix") - 1)] = 32;
        cm.to_dsl[size_t(line_of(cu, "mma.sync") - 1)] = 32;
        pm.to_dsl.assign(size_t(std::count(ptx.begin(), ptx.end(), '\n')), 0);
        pm.to_dsl[size_t(line_of(ptx, "ldmatrix") - 1)] = 32;
        pm.to_dsl[size_t(line_of(ptx, "mma.sync.aligned") - 1)] = 32;
        LineLinks links;
        links.set_map(LinkedView::Cuda, cm);
        links.set_map(LinkedView::Ptx, pm);
        links.set_map(LinkedView::Sass, sass_line_map(read("golden.sass"), "/elsewhere/gemm.py"));
        int cu_mma = line_of(cu, "mma.sync");
        QCOMPARE(links.dsl_line(LinkedView::Cuda, cu_mma), 32);
        std::vector<int> expect_ptx = {line_of(ptx, "ldmatrix"), line_of(ptx, "mma.sync.aligned")};
        QCOMPARE(links.linked(LinkedView::Cuda, cu_mma, LinkedView::Ptx), expect_ptx);
        std::string sass = read("golden.sass");
        // Instructions from the runtime header keep the DSL call site (32) they were inlined into.
        std::vector<int> expect_sass = {line_of(sass, "LDSM"), line_of(sass, "HMMA.16816.F32 R12"),
                                        line_of(sass, "HMMA.16816.F32 R16"), line_of(sass, "EXIT")};
        QCOMPARE(links.lines_for(LinkedView::Sass, 32), expect_sass);
        QCOMPARE(links.dsl_line(LinkedView::Sass, line_of(sass, "BAR.SYNC")), 31);
        QCOMPARE(links.dsl_line(LinkedView::Sass, line_of(sass, "code for")), 0);
        QCOMPARE(links.lines_for(LinkedView::Dsl, 32), std::vector<int>{32});
        QVERIFY(links.lines_for(LinkedView::Dsl, 99).empty());
        QCOMPARE(links.mapped_dsl_lines(), (std::vector<int>{30, 31, 32}));
        QVERIFY(links.linked(LinkedView::Ptx, 1, LinkedView::Cuda).empty());  // header line: no link
    }
};

QTEST_MAIN(TestViews)
#include "test_views.moc"
