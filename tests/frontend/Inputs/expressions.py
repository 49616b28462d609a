# Expressions: operators, precedence, comparisons, calls, subscripts, displays, lambdas.
a = 1 + 2 * 3 - 4 / 5 // 6 % 7 @ m
b = -x ** -y ** 2
c = ~a | b ^ c & d << 2 >> 1
d = not a and b or c and not d
e = a < b <= c > d >= e == f != g
f = a in b not in c is d is not e
g = x if y else z if w else v
h = lambda: 0
i = lambda x, y=1, *a, k, kk=2, **kw: x + y
j = lambda *, k: k
k = lambda x, /, y: x
l = f(a)(b)[c].d.e(*args, **kwargs)
m = f(a, b=1, *c, d=2, **e)
n = f(x for x in range(10) if x % 2)
o = [1, 2, *rest]
p = (1,)
q = ()
r = {1: 2, **other, 3: 4}
s = {1, 2, *others}
t = {}
u = [x * y for x in a for y in b if x if y]
v = {x: y for x, y in pairs}
w = {x for x in a}
x = (y for y in z)
y = a[1:2, ::3, 4:, :5, ...]
z = a[1:2]
aa = a[:]
bb = a[::2]
cc = a[x, y]
dd = a[(x, y)]
ee = a[*b]
ff = (yield_ := 10)
gg = [y := 1, y ** 2]
hh = a.b.c[1][2](3)
ii = 1_000_000 + 0x_ff + 0o17 + 0b1010 + 1e10 + 1.5e-3 + .5 + 5. + 3j + 1.5J
jj = 123456789012345678901234567890 + 0xffffffffffffffffffff
kk = 'single' "double" '''triple''' """triple double"""
ll = b'bytes' B"BYTES" rb'\d' Rb"\w" br'x'
mm = r'\n' R"\t" u'unicode'
nn = 'esc\n\t\\\'\"\x41\u00e9\U0001F600\101\0'
oo = 'a' 'b' 'c'
pp = x if (y := 2) else 3
qq = [*a, *b]
rr = print(*a, sep='')
ss = a if b else c
tt = f(a)[b](c)
uu = (a for b in c for d in e)
vv = 1 if True else None if False else ...
ww = (a
      + b
      - c)
xx = [
    1,
    2,
]
yy = a \
    + b
zz = -1
ab = +1
ac = not not x
ad = a[b:c:d]
ae = x[1:2][3:4]
af = {**a, **b}
ag = {'a': 1, 'b': [1, 2, {3: 4}]}
ah = 1 < 2 < 3
ai = (a, b) = c
aj = (-1) ** 2
ak = 2 ** -1
al = a.b(c).d[e:f]
am = a == b == c
an = a is not None
ao = f(a for a in b)
ap = [i for i in range(10) if i if not i]
aq = 0xDEAD_BEEF
ar = 0.0
at = 1e100
au = 1e-100
av = 123456789.123456789
aw = 1e16
ax = 1e15
ay = 0.0001
az = 0.00001
ba = 10j
bc = 1e20j
bd = 3.14j
be = 'it\'s'
bf = "say \"hi\""
bg = 'both \' and "'
bh = '\x00\x7f\x80\xff\u200b\u3000'
bi = '日本語 é ü'
bj = b'\x00\xff\'"'
bk = True and False or None
bl = x[1,]
bm = x[()]
bn = 0_0
bo = 00
bp = 1if x else 2
bq = [1for x in y]
