"""experiments: running the AutoNorm protocol and reading its results. Seeds, confidence intervals and paired
tests (`stats`), the trainer (`train`), one run end to end (`runner`), grids of papermill runs locally or on
Slurm (`sweep`), the papers' claims beside our measurements (`report`) and the demo job (`demo`).

May import: core, norms, models, data."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core", "norms", "models", "data")
__getattr__, __dir__ = lazy_exports(__name__, __file__)
