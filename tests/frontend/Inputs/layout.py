# Layout: comments at odd indents, blank lines, continuation lines, nested blocks.
def f(x):
        # deeply indented comment
    if x:
            y = 1
  # comment at a shallower indent
            if y:
                z = (1,
  2,
                        3)
                w = [
]
    else:
        pass

    return \
        x


class K:

    def a(self):


        pass
    # trailing comment



    def b(self): pass
x = 1 # comment
