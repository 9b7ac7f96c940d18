"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.app`: `make app`: the explorers for people who don't code, served by Voilà, with links that carry the view and an Export that downloads in the browser.
- `autonorm_explorer.block_rank`: `block_rank_profile(model, inputs)`: the rank tools of `propagation` for any residual network whose blocks are a list of modules: ViT-Lite, the text encoder, the tabular transformer, the residual MLP, or your own model. At every depth ℓ = 0..L it gives the effective rank of the Jacobian of the residual stream, the representation rank, the branch-to-skip ratio of the attention and the MLP branch, the stream norm and the mean spike.
- `autonorm_explorer.cli`: Every console command parses its arguments with `argparse` through `run_cli`; `autonorm-explorer notebooks DIR` copies the shipped notebooks somewhere editable.
- `autonorm_explorer.demo`: `autonorm-demo` runs the landing tour, two tutorials, a small sweep and its report.
- `autonorm_explorer.docsite`: `make docs`: a static site in `site/` (Sphinx, myst-nb, sphinx-book-theme) from executed notebooks, with the API reference, search, launch links and the kernel-free figures.
- `autonorm_explorer.exercises_depth`: Graders for the course's depth lessons (norm placement, the mean spike, width expansion): each exercise is registered with `autonorm_explorer.checking`, computes its truth with the package's rank tools, and answers a wrong attempt with a hint that points at the reasoning, never at the number.
- `autonorm_explorer.resources`: The dataset manifest and the notebooks (course, tutorials, experiment templates and their grids, explorers, app), found through `importlib.resources` wherever the package is installed.
- `autonorm_explorer.runner`: Run a notebook with parameters and refuse misspelled parameters.
- `autonorm_explorer.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly.
- `autonorm_explorer.webfigures`: Self-contained HTML pages with a slider over a precomputed grid: the Jacobian's effective rank over depth, the branch-rank threshold, and the Gumbel-Softmax gate across τ."""

__version__ = "0.1.0"
