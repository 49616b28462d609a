with (a as b, c as d,):
    pass
with (a, b) as c:
    pass
with ((a)):
    pass
