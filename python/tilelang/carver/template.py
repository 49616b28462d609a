"""tilelang.carver.template on TilePlay: the roller's schedule templates are not implemented;
making one says so (scripts use them only when asked for roller hints)."""


class _NotImplementedTemplate:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("TilePlay does not implement carver's roller templates (%s); use explicit "
                                  "configs" % type(self).__name__)


class MatmulTemplate(_NotImplementedTemplate):
    pass


class GEMVTemplate(_NotImplementedTemplate):
    pass


class ElementwiseTemplate(_NotImplementedTemplate):
    pass


class GeneralReductionTemplate(_NotImplementedTemplate):
    pass
