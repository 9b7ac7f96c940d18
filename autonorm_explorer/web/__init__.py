"""web: the package on a web page. Figures that move without a kernel (`figures`), the documentation site
(`site`) and the explorers served as an app (`app`).

May import: every other domain (it is the top of the tree)."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core", "norms", "models", "rank", "data", "experiments", "course", "explore")
__getattr__, __dir__ = lazy_exports(__name__, __file__)
