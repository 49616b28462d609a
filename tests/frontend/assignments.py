# RUN: %tilec compile %s --emit=ast | FileCheck %s
# Assignment forms: chained, unpacking with a starred target, augmented, annotated.
a = b = 1
# CHECK: Assign@[[#@LINE-1]]:1-[[#@LINE-1]]:10(
# CHECK-NEXT: targets=[
# CHECK-NEXT: Name@[[#@LINE-3]]:1-[[#@LINE-3]]:2(id='a', ctx=Store())
# CHECK-NEXT: Name@[[#@LINE-4]]:5-[[#@LINE-4]]:6(id='b', ctx=Store())],
first, *rest = [1, 2, 3]
# CHECK: Starred@[[#@LINE-1]]:8-[[#@LINE-1]]:13(
# CHECK-NEXT: value=Name@[[#@LINE-2]]:9-[[#@LINE-2]]:13(id='rest', ctx=Store()),
# CHECK-NEXT: ctx=Store())
a += 2
# CHECK: AugAssign@[[#@LINE-1]]:1-[[#@LINE-1]]:7(
# CHECK: op=Add()
size: int = 4
# CHECK: AnnAssign@[[#@LINE-1]]:1-[[#@LINE-1]]:14(
# CHECK: simple=1)
x = 1 if a < b <= 3 else 0x_ff
# CHECK: IfExp@[[#@LINE-1]]:5-[[#@LINE-1]]:31(
# CHECK: ops=[
# CHECK-NEXT: Lt(),
# CHECK-NEXT: LtE()],
# CHECK: Constant@[[#@LINE-5]]:26-[[#@LINE-5]]:31(value=255)
