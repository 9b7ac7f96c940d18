"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.metrics`: Accuracy, macro-F1, token accuracy and perplexity, RMSE/MAE in original units beside the mean-predictor baseline, accuracy under corruptions and under 90° rotation.
- `autonorm_explorer.stats`: Mean ± standard deviation over seeds, Student-t 95% confidence intervals, and paired t-tests over seed-matched runs — the statistics of the AutoNorm paper's tables, checked against scipy."""

__version__ = "0.1.0"
