"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.widget_core`: Controls with the names a reader knows, one figure updated in place, a readout line, Hold, presets, a shareable config, export, and a background compute that never draws stale results."""

__version__ = "0.1.0"
