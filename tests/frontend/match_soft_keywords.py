# RUN: %tilec compile %s --emit=ast | FileCheck %s
# `match`, `case` and `type` are soft keywords: statements only where the grammar says so.
match = {"dtype": "float16"}
# CHECK: Name@[[#@LINE-1]]:1-[[#@LINE-1]]:6(id='match', ctx=Store())
match match:
    case {"dtype": "float16" | "bfloat16" as dt}:
        pass
    case [x, *rest] if x > 0:
        pass
    case Config(stages=3):
        pass
    case _:
        pass
# CHECK: Match@[[#@LINE-9]]:1-[[#@LINE-1]]:13(
# CHECK: MatchMapping@
# CHECK: MatchAs@{{.*}}(
# CHECK: MatchOr@
# CHECK: name='dt')
# CHECK: MatchSequence@
# CHECK: MatchStar@{{.*}}(name='rest')
# CHECK: guard=Compare@
# CHECK: MatchClass@
# CHECK: kwd_attrs=[
# CHECK-NEXT: 'stages'],
# CHECK: pattern=MatchAs@[[#@LINE-13]]:10-[[#@LINE-13]]:11(),
type Shape = tuple[int, int]
# CHECK: TypeAlias@[[#@LINE-1]]:1-[[#@LINE-1]]:29(
