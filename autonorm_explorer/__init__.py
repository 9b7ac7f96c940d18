"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.block_rank`: `block_rank_profile(model, inputs)`: the rank tools of `propagation` for any residual network whose blocks are a list of modules: ViT-Lite, the text encoder, the tabular transformer, the residual MLP, or your own model. At every depth ℓ = 0..L it gives the effective rank of the Jacobian of the residual stream, the representation rank, the branch-to-skip ratio of the attention and the MLP branch, the stream norm and the mean spike.
- `autonorm_explorer.exercises_depth`: Graders for the course's depth lessons (norm placement, the mean spike, width expansion): each exercise is registered with `autonorm_explorer.checking`, computes its truth with the package's rank tools, and answers a wrong attempt with a hint that points at the reasoning, never at the number.
- `autonorm_explorer.experiment`: Load a dataset, build the backbone with a normalization method, train with the paper's protocol (AutoNorm-S: with the gate-freezing rule), evaluate clean and robust accuracy, and write `metrics.json`, the gate log and the training log into one folder.
- `autonorm_explorer.report`: The AutoNorm paper's numbers, each with its provenance, budget and plausibility flags, and the functions that turn a sweep's results into a report a reader can trust.
- `autonorm_explorer.sweep`: A grid file (datasets × methods × seeds × overrides) becomes one papermill execution per cell, each in its own subprocess and folder; a local pool (one GPU per worker) or Slurm job arrays through submitit; resume that re-runs only unfinished cells; one tidy results table.
- `autonorm_explorer.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly."""

__version__ = "0.1.0"
