def f(a, /, /): pass
def g(*, **k): pass
def h(**k, a): pass
