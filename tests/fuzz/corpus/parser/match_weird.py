match x:
    case {**rest, "a": 1}:
        pass
    case 1 + 1:
        pass
