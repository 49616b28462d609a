// Token classes, the code lexer's styles, hover cards and the line-link index on golden
// CUDA, PTX and SASS texts (tests/ui/data).
#include <QFile>
#include <QToolTip>
#include <QtTest>

#include "views/code_lexer.h"
#include "views/code_view.h"
#include "views/line_links.h"
#include "views/token_classes.h"

using namespace tpui;

namespace {

std::string read(const char* name) {
    QFile f(QStringLiteral(UI_TEST_DATA "/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing test data %s", name);
    return f.readAll().toStdString();
}

// The line of `text` holding `needle` (without its newline).
std::string line_with(const std::string& text, const std::string& needle) {
    size_t pos = text.find(needle);
    if (pos == std::string::npos) qFatal("no line with %s", needle.c_str());
    size_t b = text.rfind('\n', pos), e = text.find('\n', pos);
    b = b == std::string::npos ? 0 : b + 1;
    return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

// The card under byte `offset` of the first `needle` in `line`.
HoverCard card_at(const std::string& line, const std::string& needle, CodeKind kind, int offset = 1) {
    size_t col = line.find(needle);
    if (col == std::string::npos) qFatal("no %s in the line", needle.c_str());
    return hover_card_at(line, int(col) + offset, kind);
}

int line_of(const std::string& text, const std::string& needle) {
    size_t pos = text.find(needle);
    return pos == std::string::npos ? 0 : int(std::count(text.begin(), text.begin() + long(pos), '\n')) + 1;
}

}  // namespace

class TestViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // PTX starts with the module's globals; a view opens at the kernel, and a recompile keeps
    // the reader's place.
    void ptx_view_opens_at_the_entry() {
        const std::string ptx = read("golden.ptx");
        QCOMPARE(entry_line(QString::fromStdString(ptx), CodeKind::Ptx), line_of(ptx, ".visible .entry") - 1);
        QCOMPARE(entry_line(QString::fromStdString(read("golden.sass")), CodeKind::Sass), line_of(read("golden.sass"), "Function :") - 1);
        QCOMPARE(entry_line(QStringLiteral("int x;\n"), CodeKind::Cuda), 0);
        QString padded = QString(QStringLiteral(".global .u8 g;\n")).repeated(200) + QString::fromStdString(ptx);
        CodeView v(CodeKind::Ptx);
        v.resize(600, 300);
        v.show();
        v.set_code(padded);
        const int entry = entry_line(padded, CodeKind::Ptx);
        QVERIFY(entry > 200);
        QCOMPARE(v.firstVisibleLine(), entry - 1);
        v.setFirstVisibleLine(10);
        v.set_code(padded);
        QCOMPARE(v.firstVisibleLine(), 10);
    }

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
        // The runtime helpers the generated CUDA calls count as what they compile to.
        QCOMPARE(classify_word("gemm_ss", CodeKind::Cuda), TokenClass::TensorCore);
        QCOMPARE(classify_word("copy_g2s", CodeKind::Cuda), TokenClass::AsyncCopy);
        QCOMPARE(classify_word("mbar_wait", CodeKind::Cuda), TokenClass::Barrier);
        QCOMPARE(classify_word("copy_s2g", CodeKind::Cuda), TokenClass::None);
        QCOMPARE(classify_word("gemm_ss", CodeKind::Ptx), TokenClass::None);
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

    // Hover positions in the golden texts resolve to the card of the instruction class under
    // the mouse, anywhere in the dotted word; comments, registers and numbers get none.
    void hover_cards_at_positions_in_ptx() {
        std::string ptx = read("golden.ptx");
        std::string mma = line_with(ptx, "\tmma.sync.aligned");
        HoverCard c = card_at(mma, "mma.sync", CodeKind::Ptx, 0);
        QCOMPARE(c.title, QString("Warp-level matrix multiply-accumulate"));
        QCOMPARE(c.cls, QString("Tensor Core"));
        QCOMPARE(c.word, QString("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
        QCOMPARE(card_at(mma, "m16n8k16", CodeKind::Ptx, 3).title, c.title);  // inside the modifiers
        QVERIFY(card_at(mma, "%f1", CodeKind::Ptx, 1).empty());               // a register
        QVERIFY(card_at(mma, "%f1", CodeKind::Ptx, 0).empty());               // its '%'
        QCOMPARE(card_at(line_with(ptx, "wgmma"), "wgmma", CodeKind::Ptx).title, QString("Warpgroup matrix multiply (Hopper)"));

        std::string cp = line_with(ptx, "cp.async.cg");
        QCOMPARE(card_at(cp, "cp.async", CodeKind::Ptx).title, QString("Asynchronous global -> shared copy"));
        QCOMPARE(card_at(cp, "cp.async", CodeKind::Ptx).cls, QString("async copy"));
        QVERIFY(card_at(cp, "16;", CodeKind::Ptx, 0).empty());  // a number
        QCOMPARE(card_at(line_with(ptx, "commit_group"), "commit", CodeKind::Ptx).title, QString("Commit async copies"));
        QCOMPARE(card_at(line_with(ptx, "wait_group"), "cp", CodeKind::Ptx).title, QString("Wait for async copies"));
        std::string tma = line_with(ptx, "cp.async.bulk.tensor");
        QCOMPARE(card_at(tma, "bulk", CodeKind::Ptx).title, QString("TMA tensor copy (Hopper)"));
        QVERIFY(card_at(tma, "cluster", CodeKind::Ptx).empty());  // `::cluster` is a state space, not an op

        QCOMPARE(card_at(line_with(ptx, "bar.sync"), "bar.sync", CodeKind::Ptx).title, QString("Block barrier"));
        QCOMPARE(card_at(line_with(ptx, "bar.sync"), "bar.sync", CodeKind::Ptx).cls, QString("barrier"));
        HoverCard mbar = card_at(line_with(ptx, "mbarrier.try_wait"), "try_wait", CodeKind::Ptx);
        QCOMPARE(mbar.title, QString("mbarrier wait"));
        QCOMPARE(mbar.cls, QString("barrier"));
        HoverCard ldm = card_at(line_with(ptx, "ldmatrix"), "ldmatrix", CodeKind::Ptx, 4);
        QCOMPARE(ldm.title, QString("Matrix fragment load"));
        QCOMPARE(ldm.cls, QString("matrix load"));
        QVERIFY(ldm.text.contains("8x8"));
        // A common instruction outside the four classes has a card but no class.
        HoverCard ret = card_at(line_with(ptx, "\tret;"), "ret", CodeKind::Ptx);
        QCOMPARE(ret.title, QString("Return"));
        QVERIFY(ret.cls.isEmpty());
        // Comments and directives explain nothing.
        QVERIFY(card_at(line_with(ptx, "// mma.sync in a comment"), "mma", CodeKind::Ptx).empty());
        QVERIFY(card_at(line_with(ptx, ".loc\t1 30"), "loc", CodeKind::Ptx).empty());
        QVERIFY(hover_card_at(mma, -1, CodeKind::Ptx).empty());
        QVERIFY(hover_card_at(mma, int(mma.size()) + 5, CodeKind::Ptx).empty());
    }

    void hover_cards_at_positions_in_sass_and_cuda() {
        std::string sass = read("golden.sass");
        std::string hmma = line_with(sass, "HMMA.16816.F32 R12");
        HoverCard h = card_at(hmma, "HMMA", CodeKind::Sass, 2);
        QCOMPARE(h.title, QString("Tensor Core multiply (SASS)"));
        QCOMPARE(h.cls, QString("Tensor Core"));
        QCOMPARE(h.word, QString("HMMA.16816.F32"));
        QVERIFY(card_at(hmma, "0040", CodeKind::Sass).empty());  // the address comment
        QVERIFY(card_at(hmma, "R12", CodeKind::Sass).empty());   // a register
        QCOMPARE(card_at(line_with(sass, "LDGSTS"), "LDGSTS", CodeKind::Sass).title, QString("Global -> shared async copy (SASS)"));
        QCOMPARE(card_at(line_with(sass, "LDGSTS"), "BYPASS", CodeKind::Sass).cls, QString("async copy"));
        QCOMPARE(card_at(line_with(sass, "BAR.SYNC"), "SYNC", CodeKind::Sass).title, QString("Barrier (SASS)"));
        QCOMPARE(card_at(line_with(sass, "LDSM"), "LDSM", CodeKind::Sass).title, QString("Matrix fragment load (SASS)"));
        QVERIFY(card_at(line_with(sass, "//## File \"/work/samples/gemm.py\", line 32"), "File", CodeKind::Sass).empty());
        std::string hopper = "        /*0100*/                   UTMALDG.2D [UR8], [UR4] ;";
        QCOMPARE(card_at(hopper, "UTMALDG", CodeKind::Sass).title, QString("TMA load (SASS)"));
        QVERIFY(card_at(hopper, "UR8", CodeKind::Sass).empty());
        // SASS cards are not PTX cards: the same spelling in the wrong view finds nothing.
        QVERIFY(hover_card_for("HMMA.16816.F32", CodeKind::Ptx).empty());
        QVERIFY(hover_card_for("mma.sync", CodeKind::Sass).empty());

        // CUDA: PTX inside inline asm strings, CUDA intrinsics and the runtime's helpers.
        std::string cu = read("golden.cu");
        QCOMPARE(card_at(line_with(cu, "mma.sync"), "mma.sync", CodeKind::Cuda).title, QString("Warp-level matrix multiply-accumulate"));
        QCOMPARE(card_at(line_with(cu, "cp.async"), "async", CodeKind::Cuda).title, QString("Asynchronous global -> shared copy"));
        QCOMPARE(card_at(line_with(cu, "__syncthreads"), "sync", CodeKind::Cuda).title, QString("Block barrier"));
        std::string gen = "        tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>(&A_shared[0], &B_shared[0], &C_local[0]);";
        HoverCard g = card_at(gen, "gemm_ss", CodeKind::Cuda, 3);
        QCOMPARE(g.title, QString("Tile GEMM on Tensor Cores"));
        QCOMPARE(g.cls, QString("Tensor Core"));
        QVERIFY(card_at(gen, "half_t", CodeKind::Cuda).empty());
        QVERIFY(card_at(gen, "tp::", CodeKind::Cuda, 0).empty());
        HoverCard copy = card_at("tp::copy_g2s<128, 32, 128, half_t, true, true>(&A_shared[0], &A[0], 4096, 4096, 4096, tx);",
                                 "copy_g2s", CodeKind::Cuda);
        QCOMPARE(copy.title, QString("Global -> shared tile copy"));
        QCOMPARE(copy.cls, QString("async copy"));
        QCOMPARE(card_at("    tp::cp_async_wait<0>();", "cp_async", CodeKind::Cuda).title, QString("Wait for async copies"));
        QCOMPARE(card_at("tp::ldmatrix_x4_trans(r, p);", "ldmatrix", CodeKind::Cuda).title, QString("Matrix fragment load"));
        QCOMPARE(card_at("tp::mbar_wait(&bar[0], phase);", "mbar", CodeKind::Cuda).cls, QString("barrier"));
        QCOMPARE(card_at("tp::wgmma_ss_m64n128k16(d, a, b);", "wgmma", CodeKind::Cuda).title, QString("Warpgroup GEMM (Hopper)"));
        QVERIFY(card_at("// tp::gemm_ss in a comment", "gemm", CodeKind::Cuda).empty());
        QVERIFY(hover_card_for("gemm_ss", CodeKind::Ir).empty());
    }

    // Each instruction class has its own words: no two class cards share their text.
    void hover_cards_differ_per_class() {
        QStringList texts;
        for (auto [w, k] : std::vector<std::pair<const char*, CodeKind>>{
                 {"mma.sync", CodeKind::Ptx}, {"wgmma.mma_async", CodeKind::Ptx}, {"cp.async.ca", CodeKind::Ptx},
                 {"cp.async.bulk.tensor", CodeKind::Ptx}, {"bar.sync", CodeKind::Ptx}, {"mbarrier.arrive", CodeKind::Ptx},
                 {"ldmatrix.sync", CodeKind::Ptx}, {"HMMA", CodeKind::Sass}, {"LDGSTS", CodeKind::Sass},
                 {"UTMALDG", CodeKind::Sass}, {"BAR.SYNC", CodeKind::Sass}, {"LDSM", CodeKind::Sass}}) {
            HoverCard c = hover_card_for(w, k);
            QVERIFY2(!c.empty(), w);
            QVERIFY2(!c.cls.isEmpty(), w);
            QVERIFY2(!texts.contains(c.text), w);
            texts << c.text;
            QVERIFY(c.html().contains(c.title) && c.html().contains(c.cls));
        }
    }

    // The widget: resting the mouse on an instruction in a PTX view shows its card as a
    // tooltip; resting on a register shows none.
    void code_view_shows_tooltip_on_hover() {
        CodeView v(CodeKind::Ptx);
        v.set_code(QString::fromStdString(read("golden.ptx")));
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        auto point_at = [&v](const char* needle, int offset) {
            int line = 0, idx = 0;
            std::string text = v.text().toStdString();
            size_t pos = text.find(needle) + size_t(offset);
            v.lineIndexFromPosition(int(pos), &line, &idx);
            long p = v.positionFromLineIndex(line, idx);
            int x = int(v.SendScintilla(QsciScintillaBase::SCI_POINTXFROMPOSITION, 0UL, p));
            int y = int(v.SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, p));
            return QPoint(x + 2, y + v.textHeight(line) / 2);
        };
        QTest::mouseMove(v.viewport(), point_at("bar.sync", 2));
        QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 3000);
        QCOMPARE(QToolTip::text(), hover_card_for("bar.sync", CodeKind::Ptx).html());
        QVERIFY(QToolTip::text().contains("Block barrier"));
        QToolTip::hideText();
        QTRY_VERIFY(!QToolTip::isVisible());
        QTest::mouseMove(v.viewport(), point_at("ldmatrix", 3));
        QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 3000);
        QVERIFY(QToolTip::text().contains("Matrix fragment load"));
        QToolTip::hideText();
        QTRY_VERIFY(!QToolTip::isVisible());
        QTest::mouseMove(v.viewport(), point_at("%r<20>", 1));  // a register
        QTest::qWait(800);
        QVERIFY(!QToolTip::isVisible());
    }

    // The CUDA view drops the #line directives; every kept line keeps its DSL line.
    void cuda_view_without_line_directives() {
        std::string cu = "#include \"tp_half.cuh\"\n#line 28 \"/x/gemm.py\"\nextern \"C\" void k() {\n"
                         "    #line 35 \"/x/gemm.py\"\n    int bx = 0;\n}\n";
        tp::LineMap m;
        m.to_dsl = {0, 28, 28, 35, 35, 0};
        StrippedCuda s = strip_line_directives(cu, m);
        QCOMPARE(QString::fromStdString(s.text), QStringLiteral("#include \"tp_half.cuh\"\nextern \"C\" void k() {\n    int bx = 0;\n}\n"));
        QCOMPARE(s.lines.to_dsl, (std::vector<uint32_t>{0, 28, 35, 0}));
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
