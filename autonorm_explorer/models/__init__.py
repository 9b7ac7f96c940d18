"""models: the three backbones of the AutoNorm paper (ViT-Lite in the CCT layout, a text encoder, a tabular
transformer), each taking `norm=` with any method of `make_norm` (`backbones`).

May import: core, norms."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core", "norms")
__getattr__, __dir__ = lazy_exports(__name__, __file__)
