if x:
    y
