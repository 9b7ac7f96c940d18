"""explore: the interactive explorers. The machinery behind each of them: controls, one figure updated in
place, presets, shareable state, a background compute that never draws stale results (`core`); the rank
explorers (`rank`) and the gate explorers (`gates`).

May import: core, norms, models, rank, data, experiments."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core", "norms", "models", "rank", "data", "experiments")
__getattr__, __dir__ = lazy_exports(__name__, __file__)
