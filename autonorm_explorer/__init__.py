"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.experiment`: Load a dataset, build the backbone with a normalization method, train with the paper's protocol (AutoNorm-S: with the gate-freezing rule), evaluate clean and robust accuracy, and write `metrics.json`, the gate log and the training log into one folder.
- `autonorm_explorer.metrics`: Accuracy, macro-F1, token accuracy and perplexity, RMSE/MAE in original units beside the mean-predictor baseline, accuracy under corruptions and under 90° rotation.
- `autonorm_explorer.report`: The AutoNorm draft's numbers (spec tables A1/A2, each with its provenance and plausibility flags), and the functions that turn a sweep's results into the reproduction report's tables.
- `autonorm_explorer.stats`: Mean ± standard deviation over seeds, Student-t 95% confidence intervals, and paired t-tests over seed-matched runs — the statistics of the AutoNorm paper's tables, checked against scipy.
- `autonorm_explorer.sweep`: A grid file (datasets × methods × seeds × overrides) becomes one papermill execution per cell, each in its own subprocess and folder; a local pool (one GPU per worker) or Slurm job arrays through submitit; resume that re-runs only unfinished cells; one tidy results table.
- `autonorm_explorer.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly."""

__version__ = "0.1.0"
