"""rank: Transforming Rank's tools. Effective rank, survival rates and Marchenko-Pastur laws (`spectra`), the
residual MLP family and its weights (`resmlp`), rank, spike and branch-to-skip ratio through depth
(`propagation`), path orders (`paths`), the branch Jacobian's rank against width expansion (`branch`), the
effective rank of a Jacobian known only through products with it (`estimate`), and the same measurements on
any model whose blocks are a list of modules (`blocks`).

May import: core, norms, models."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core", "norms", "models")
__getattr__, __dir__ = lazy_exports(__name__, __file__)
