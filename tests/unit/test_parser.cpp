// Parser: constructs CPython 3.11 cannot check for us (PEP 695, PEP 701), values, contexts,
// spans, soft keywords, syntax-error kinds and positions, robustness limits and speed.
#include <gtest/gtest.h>

#include <chrono>

#include "frontend/parser.h"

using namespace tp;
using namespace tp::frontend;

namespace {

struct Parsed {
    ast::ModulePtr module;
    std::vector<Diagnostic> diags;
};

Parsed parse(const std::string& text) {
    auto file = SourceFile::from_string("t.py", text);
    DiagnosticEngine diags(file);
    Parsed p;
    p.module = parse_module(file, diags);
    p.diags = diags.diagnostics();
    return p;
}

std::string dump(const std::string& text) {
    Parsed p = parse(text);
    if (!p.module) return "ERROR: " + (p.diags.empty() ? std::string("?") : p.diags[0].message);
    return ast::dump(*p.module, false);
}

// The body of `Module(body=[...], type_ignores=[])` for one statement.
std::string stmt(const std::string& text) {
    std::string d = dump(text);
    const std::string head = "Module(body=[", tail = "], type_ignores=[])";
    if (d.rfind(head, 0) != 0) return d;
    return d.substr(head.size(), d.size() - head.size() - tail.size());
}

Diagnostic error_of(const std::string& text) {
    Parsed p = parse(text);
    EXPECT_EQ(p.module, nullptr) << text;
    EXPECT_EQ(p.diags.size(), 1u) << text;
    return p.diags.empty() ? Diagnostic{} : p.diags[0];
}

}  // namespace

TEST(Parser, TypeAliasAndTypeParams) {
    EXPECT_EQ(stmt("type X = int\n"),
              "TypeAlias(name=Name(id='X', ctx=Store()), type_params=[], value=Name(id='int', ctx=Load()))");
    EXPECT_EQ(stmt("def f[T: int, *Ts, **P](): pass\n"),
              "FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], "
              "defaults=[]), body=[Pass()], decorator_list=[], type_params=[TypeVar(name='T', "
              "bound=Name(id='int', ctx=Load())), TypeVarTuple(name='Ts'), ParamSpec(name='P')])");
    EXPECT_EQ(stmt("class C[T]: pass\n"),
              "ClassDef(name='C', bases=[], keywords=[], body=[Pass()], decorator_list=[], "
              "type_params=[TypeVar(name='T')])");
    // `type` stays an ordinary name elsewhere.
    EXPECT_EQ(stmt("type(x)\n"), "Expr(value=Call(func=Name(id='type', ctx=Load()), args=[Name(id='x', ctx=Load())], keywords=[]))");
}

TEST(Parser, Pep701FStrings) {
    EXPECT_EQ(stmt("f\"{a[\"k\"]}\"\n"),
              "Expr(value=JoinedStr(values=[FormattedValue(value=Subscript(value=Name(id='a', ctx=Load()), "
              "slice=Constant(value='k'), ctx=Load()), conversion=-1)]))");
    EXPECT_EQ(stmt("f'{f'{x}'}'\n"),
              "Expr(value=JoinedStr(values=[FormattedValue(value=JoinedStr(values=[FormattedValue("
              "value=Name(id='x', ctx=Load()), conversion=-1)]), conversion=-1)]))");
    EXPECT_EQ(stmt("f'{x=}'\n"),
              "Expr(value=JoinedStr(values=[Constant(value='x='), FormattedValue(value=Name(id='x', ctx=Load()), conversion=114)]))");
}

TEST(Parser, FStringFieldSpansPointIntoTheFile) {
    Parsed p = parse("s = f'ab{ x +\n y }'\n");
    ASSERT_TRUE(p.module);
    auto* assign = p.module->body[0]->as<ast::Assign>();
    auto* js = assign->value->as<ast::JoinedStr>();
    ASSERT_TRUE(js);
    auto* fv = js->values[1]->as<ast::FormattedValue>();
    ASSERT_TRUE(fv);
    EXPECT_EQ(fv->value->span.begin, (SourceLoc{1, 11}));
    EXPECT_EQ(fv->value->span.end, (SourceLoc{2, 3}));
}

TEST(Parser, ConstantValues) {
    Parsed p = parse("a = 123456789012345678901234567890\nb = 0xff\nc = 1.5e3\nd = 2j\ne = b'\\x00'\nf = 'a' 'b'\n");
    ASSERT_TRUE(p.module);
    auto value = [&](int i) -> const ast::ConstantValue& {
        return p.module->body[i]->as<ast::Assign>()->value->as<ast::Constant>()->value;
    };
    EXPECT_EQ(std::get<ast::BigIntValue>(value(0)).digits, "123456789012345678901234567890");
    EXPECT_EQ(std::get<int64_t>(value(1)), 255);
    EXPECT_DOUBLE_EQ(std::get<double>(value(2)), 1500.0);
    EXPECT_DOUBLE_EQ(std::get<ast::ImagValue>(value(3)).imag, 2.0);
    EXPECT_EQ(std::get<ast::BytesValue>(value(4)).bytes, std::string(1, '\0'));
    EXPECT_EQ(std::get<std::string>(value(5)), "ab");
    EXPECT_EQ(stmt("9223372036854775807\n"), "Expr(value=Constant(value=9223372036854775807))");
    EXPECT_EQ(stmt("9223372036854775808\n"), "Expr(value=Constant(value=9223372036854775808))");
}

TEST(Parser, ContextsOnTargets) {
    EXPECT_EQ(stmt("a, [b, *c] = d\n"),
              "Assign(targets=[Tuple(elts=[Name(id='a', ctx=Store()), List(elts=[Name(id='b', ctx=Store()), "
              "Starred(value=Name(id='c', ctx=Store()), ctx=Store())], ctx=Store())], ctx=Store())], "
              "value=Name(id='d', ctx=Load()))");
    EXPECT_EQ(stmt("del a.b, c[0]\n"),
              "Delete(targets=[Attribute(value=Name(id='a', ctx=Load()), attr='b', ctx=Del()), "
              "Subscript(value=Name(id='c', ctx=Load()), slice=Constant(value=0), ctx=Del())])");
}

TEST(Parser, SoftKeywords) {
    EXPECT_EQ(stmt("match = 1\n"), "Assign(targets=[Name(id='match', ctx=Store())], value=Constant(value=1))");
    EXPECT_EQ(stmt("match(x)\n"), "Expr(value=Call(func=Name(id='match', ctx=Load()), args=[Name(id='x', ctx=Load())], keywords=[]))");
    EXPECT_EQ(stmt("match x:\n    case _:\n        pass\n"),
              "Match(subject=Name(id='x', ctx=Load()), cases=[match_case(pattern=MatchAs(), body=[Pass()])])");
}

TEST(Parser, StatementSpans) {
    Parsed p = parse("def f(x):\n    return x + 1\n\ny = f(2)\n");
    ASSERT_TRUE(p.module);
    const auto& f = *p.module->body[0];
    EXPECT_EQ(f.span.begin, (SourceLoc{1, 1}));
    EXPECT_EQ(f.span.end, (SourceLoc{2, 17}));  // ends at the last token, not at the dedent
    const auto* ret = f.as<ast::FunctionDef>()->body[0]->as<ast::Return>();
    EXPECT_EQ(ret->value->span.begin, (SourceLoc{2, 12}));
    EXPECT_EQ(ret->value->span.end, (SourceLoc{2, 17}));
    const auto* y = p.module->body[1]->as<ast::Assign>();
    EXPECT_EQ(y->span.begin, (SourceLoc{4, 1}));
    EXPECT_EQ(y->value->span, (Span{{4, 5}, {4, 9}}));
    std::string with_spans = ast::dump(*p.module, true);
    EXPECT_NE(with_spans.find("Call@4:5-4:9("), std::string::npos) << with_spans;
}

TEST(Parser, SyntaxErrorsAtTheOffendingToken) {
    Diagnostic d = error_of("f(x:)\n");
    EXPECT_EQ(d.kind, DiagKind::ExpectedToken);
    EXPECT_EQ(d.message, "expected `)`, found `:`");
    EXPECT_EQ(d.span.begin, (SourceLoc{1, 4}));

    d = error_of("x = 1\nf() = 2\n");
    EXPECT_EQ(d.kind, DiagKind::InvalidAssignTarget);
    EXPECT_EQ(d.message, "cannot assign to function call");
    EXPECT_EQ(d.span.begin, (SourceLoc{2, 1}));

    EXPECT_EQ(error_of("for 1 in x: pass\n").message, "cannot assign to literal");
    EXPECT_EQ(error_of("None = 1\n").message, "cannot assign to `None`");
    EXPECT_EQ(error_of("[a, b + 1] = c\n").message, "cannot assign to expression");
    EXPECT_EQ(error_of("with a as f(): pass\n").kind, DiagKind::InvalidAssignTarget);
    EXPECT_EQ(error_of("if x:\npass\n").kind, DiagKind::ExpectedToken);
    EXPECT_EQ(error_of("x = 1\n    y = 2\n").kind, DiagKind::UnexpectedIndent);
    EXPECT_EQ(error_of("def f(a=1, b): pass\n").kind, DiagKind::InvalidSyntax);
    EXPECT_EQ(error_of("f(a=1, b)\n").kind, DiagKind::InvalidSyntax);
    EXPECT_EQ(error_of("a = *b\n").kind, DiagKind::InvalidSyntax);
    EXPECT_EQ(error_of("x = f'{}'\n").kind, DiagKind::InvalidSyntax);
    EXPECT_EQ(error_of("x = f'{a!x}'\n").kind, DiagKind::InvalidSyntax);
    EXPECT_EQ(error_of("x = f'{a $ b}'\n").kind, DiagKind::InvalidCharacter);
    EXPECT_EQ(error_of("try:\n    pass\nx = 1\n").kind, DiagKind::ExpectedToken);
    EXPECT_EQ(error_of("class\n").message, "expected a class name, found newline");
    EXPECT_EQ(error_of("x = 'a' b'b'\n").kind, DiagKind::InvalidSyntax);
}

TEST(Parser, DeepNestingIsReportedNotACrash) {
    std::string deep = "x = " + std::string(150, '[') + std::string(150, ']') + "\n";
    EXPECT_TRUE(parse(deep).module);
    std::string unary = "x = " + std::string(5000, '-') + "1\n";
    Diagnostic d = error_of(unary);
    EXPECT_EQ(d.kind, DiagKind::InvalidSyntax);
    EXPECT_NE(d.message.find("too deeply nested"), std::string::npos);
    std::string nots;
    for (int i = 0; i < 3000; ++i) nots += "not ";
    EXPECT_EQ(error_of("x = " + nots + "y\n").kind, DiagKind::InvalidSyntax);
    std::string lambdas;
    for (int i = 0; i < 3000; ++i) lambdas += "lambda: ";
    EXPECT_EQ(error_of("x = " + lambdas + "0\n").kind, DiagKind::InvalidSyntax);
    std::string fs = "x = ";
    for (int i = 0; i < 50; ++i) fs += "f'{";
    EXPECT_FALSE(parse(fs + "\n").module);
}

// Left-associative chains grow the tree without recursing in the parser; every later pass
// recurses on it (a 700-link attribute chain overflowed the AST dump's stack under ASan, found
// by CI's short fuzz run). Chains and brackets count together up to 500 levels.
TEST(Parser, DeepChainsAreReportedNotACrash) {
    auto chain = [](const std::string& head, const std::string& link, int n) {
        std::string s = "x = " + head;
        for (int i = 0; i < n; ++i) s += link;
        return s + "\n";
    };
    EXPECT_TRUE(parse(chain("a", ".b", 400)).module);
    EXPECT_TRUE(parse(chain("a", "+b", 400)).module);
    for (const char* link : {".b", "+b", "()", "[0]", "*b"}) {
        Diagnostic d = error_of(chain("a", link, 700));
        EXPECT_EQ(d.kind, DiagKind::InvalidSyntax) << link;
        EXPECT_NE(d.message.find("nested too deeply"), std::string::npos) << link << ": " << d.message;
    }
    // Brackets and chain links add up: 150 parentheses around a 400-term sum is too deep.
    std::string mixed = "x = " + std::string(150, '(') + "a";
    for (int i = 0; i < 400; ++i) mixed += "+b";
    EXPECT_EQ(error_of(mixed + std::string(150, ')') + "\n").kind, DiagKind::InvalidSyntax);
    // An elif nests the next If in the orelse: 600 of them are too deep, 400 are not.
    std::string elifs = "if a: pass\n";
    for (int i = 0; i < 400; ++i) elifs += "elif b: pass\n";
    EXPECT_TRUE(parse(elifs).module);
    for (int i = 0; i < 200; ++i) elifs += "elif b: pass\n";
    EXPECT_NE(error_of(elifs).message.find("nested too deeply"), std::string::npos);
    // A failed speculative parse gives its levels back: later statements still parse.
    EXPECT_TRUE(parse(chain("a", ".b", 400) + chain("a", ".b", 400)).module);
}

TEST(Parser, ParseExpression) {
    auto file = SourceFile::from_string("-D", "2 * (M + 1)");
    DiagnosticEngine diags(file);
    ast::ExprPtr e = parse_expression(file, diags);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->kind, ast::ExprKind::BinOp);
    auto bad = SourceFile::from_string("-D", "2 *");
    DiagnosticEngine bad_diags(bad);
    EXPECT_FALSE(parse_expression(bad, bad_diags));
    EXPECT_TRUE(bad_diags.has_errors());
}

TEST(Parser, ThreeHundredLinesParseFast) {
    std::string src;
    for (int i = 0; i < 30; ++i) {
        src += "@tilelang.jit(out_idx=[-1])\n";
        src += "def matmul_" + std::to_string(i) + "(M, N, K, block_M=128, block_N=128, dtype=\"float16\"):\n";
        src += "    @T.prim_func\n";
        src += "    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype)):\n";
        src += "        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):\n";
        src += "            A_shared = T.alloc_shared((block_M, block_K), dtype)\n";
        src += "            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):\n";
        src += "                T.copy(A[by * block_M, k * block_K], A_shared)\n";
        src += "                T.gemm(A_shared, B_shared, C_local, transpose_B=True)\n";
        src += "    return main\n";
    }
    auto file = SourceFile::from_string("big.py", src);
    // The best of several runs: the machine running the tests may be busy with other work.
    double ms = 1e9;
    for (int r = 0; r < 20; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        DiagnosticEngine diags(file);
        ASSERT_TRUE(parse_module(file, diags));
        ms = std::min(ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    EXPECT_LT(ms, 5.0) << "tokenize+parse of 300 lines took " << ms << " ms";
}
