"""norms: the normalization layers and how a network chooses between them. The one list of norm names and
`make_norm` (`registry`), LayerNorm, RMSNorm, DyT, AdaNorm and FiLM written from their papers (`layers`),
AutoNorm's per-site Gumbel-Softmax gate (`autonorm`), the AutoNorm-S freeze rule (`schedule`), gate logs
(`gates`), `autonormify`, which gives any PyTorch model a learned per-site norm choice (`convert`), and
the callbacks that train a converted model with `transformers.Trainer` or Lightning (`integrations`).

May import: core."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core",)
__getattr__, __dir__ = lazy_exports(__name__, __file__)
