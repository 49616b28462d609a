    x
