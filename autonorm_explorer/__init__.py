"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.widget_core`: Controls with the names a reader knows, one figure updated in place, a readout line, Hold, presets, a shareable config, export, and a background compute that never draws stale results.
- `autonorm_explorer.widgets`: `RankExplorer`, `ThresholdExplorer` and `PathExplorer`: move β, switch Pre-Norm to Post-Norm, and watch rank collapse happen, at once."""

__version__ = "0.1.0"
