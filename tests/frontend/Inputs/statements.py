"""Module docstring."""
from __future__ import annotations
import os
import os.path as osp, sys
from . import x
from .. import y as z
from ...pkg.mod import (a, b as c,
                        d,)
from pkg import *
import a.b.c

x: int
y: list[int] = []
(z): int = 1
a.b: str = "s"
a[0]: int = 1
x += 1
x -= 1; x *= 2; x /= 3
x //= 4
x %= 5
x **= 6
x >>= 7
x <<= 8
x &= 9
x |= 10
x ^= 11
x @= y
a = b = c = 1
a, b = b, a
a, *b = c
[a, b] = c
(a, (b, c)) = d
a.b, c[d] = 1, 2
del a, b[0], c.d
del (a, b)
del [a]
assert x, "msg"
assert y
global g1, g2
pass
if a:
    pass
elif b:
    pass
elif c:
    pass
else:
    pass
while x:
    break
else:
    continue
for i in range(10):
    pass
else:
    pass
for a, b in c: pass
for (a, b) in c: pass
for *a, b in c: pass
for x, in y: pass
for x in 1, 2, 3: pass
for x in *a, *b: pass
try:
    pass
except ValueError:
    pass
except (TypeError, KeyError) as e:
    raise
except:
    raise ValueError("x") from e
else:
    pass
finally:
    pass
try:
    pass
finally:
    pass
try:
    pass
except* ValueError:
    pass
except* (TypeError, KeyError) as eg:
    pass
with a:
    pass
with a as b, c as d:
    pass
with (a as b, c as d):
    pass
with (a, b):
    pass
with (a, b) as c:
    pass
with (a) as b:
    pass
with (
    open("x") as f,
    open("y") as g,
):
    pass
with a as (b, c):
    pass
with a as b.c:
    pass
with (yield):
    pass


@decorator
@decorator.attr(arg)
@(lambda f: f)
def func(a, b: int = 1, *args: str, c, d: float = 2.0, **kwargs) -> None:
    """Docstring."""
    return


def posonly(a, b, /, c, *, d):
    return a, b


def defaults(a, b=1, /, c=2, *d, e, f=3, **g):
    yield
    yield a
    yield a, b
    x = yield from b
    y = yield
    return (yield)


async def coro(a):
    await a
    async for x in a:
        pass
    async with a as b, c:
        pass
    x = [y async for y in z]
    return await a.b()


def nested():
    x = 1

    def inner():
        nonlocal x
        global y
        x = 2
    return inner


class A:
    pass


class B(A, metaclass=Meta, **kw):
    x: int = 1

    def method(self):
        return super().method()


@dataclass
class C(object):
    """Doc."""
    a: int
    b: str = "x"


class D(): pass
def one_liner(): return 1
if x: y = 1; z = 2
while 0: pass
print("hello", end="")
x = 1;
lambda: (yield)
