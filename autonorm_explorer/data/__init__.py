"""data: every dataset of the experiments. Where each file comes from and how it is verified (`sources`), the
parsers of the real file formats (`formats`), `load_dataset` (`loading`), vision batches augmented on the
device (`augment`), corruptions at severities 1-5 (`corruptions`), and what each task is scored by
(`metrics`).

May import: core."""
from ..core.exports import lazy_exports

MAY_IMPORT = ("core",)
__getattr__, __dir__ = lazy_exports(__name__, __file__)
