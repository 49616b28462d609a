"""tilelang.carver.roller.rasterization: the plan classes scripts compare roller hints with."""


class NoRasterization:
    pass


class Rasterization2DRow:
    pass


class Rasterization2DColumn:
    pass
