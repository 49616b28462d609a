def f[T: (int, str), *Ts, **P](*a: *Ts): pass
type X[T] = list[T]
class C[T](Base[T]): pass
