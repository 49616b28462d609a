if 1:
    if 2:
        a
      b
