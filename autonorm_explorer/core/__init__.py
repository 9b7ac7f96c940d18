"""core: what every other domain leans on. Validation with errors that name the field, the value and what is
allowed (`validation`), seeds and independent random streams (`seeds`), devices, memory and threads
(`devices`), atomic writes (`files`), the files the package ships (`resources`), the one argument parser of
every console command (`cli`), running notebooks with papermill and refusing bad parameters (`notebooks`),
and the lazy re-exports of every domain (`exports`).

May import: nothing of the package (it is the bottom of the tree)."""
from .exports import lazy_exports

MAY_IMPORT: tuple[str, ...] = ()
__getattr__, __dir__ = lazy_exports(__name__, __file__)
