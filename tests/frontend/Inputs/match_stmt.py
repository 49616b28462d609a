match command.split():
    case [action]:
        pass
    case [action, obj]:
        pass
    case Point(x=0, y=0):
        print("Origin")
    case Point(x, y=0):
        pass
    case [Point(x=0, y=0), *rest]:
        pass
    case {"x": x, "y": y, **rest}:
        pass
    case {1: _, None: b, a.b: c}:
        pass
    case 1 | 2 | 3:
        pass
    case -1:
        pass
    case 1 + 2j:
        pass
    case -1 - 2j:
        pass
    case "a" "b":
        pass
    case b"x":
        pass
    case None:
        pass
    case True | False:
        pass
    case a.b.c:
        pass
    case (a, b, *_):
        pass
    case (a):
        pass
    case ():
        pass
    case []:
        pass
    case [a, *b, c] if a > c:
        pass
    case (1 | 2) as x:
        pass
    case str() | bytes():
        pass
    case _:
        pass
match x, y:
    case a, b:
        pass
    case *a, b:
        pass
match (x):
    case 1:
        pass
match -x:
    case 1:
        pass
match = 1
match.foo = 2
match[0] = 3
match(x)
case = 4
type = 5
_ = 6
print(match, case, type)


def match(): pass
