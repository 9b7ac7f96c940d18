"""course: what the lessons need besides their notebooks. `check` and `reveal` (`checking`), the papers'
claims numbered with where each is tested (`claims`), the graders of each part of the course
(`exercises_rank`, `exercises_depth`, `exercises_autonorm`), and the block diagrams the lessons draw
(`diagrams`).

May import: core, norms, models, rank, data, experiments."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core", "norms", "models", "rank", "data", "experiments")
__getattr__, __dir__ = lazy_exports(__name__, __file__)
