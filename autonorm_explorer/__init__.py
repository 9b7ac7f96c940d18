"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.augment`: The whole uint8 dataset lives on the device; crops, flips, MixUp/CutMix and normalization run per batch.
- `autonorm_explorer.block_rank`: `block_rank_profile(model, inputs)`: the rank tools of `propagation` for any residual network whose blocks are a list of modules: ViT-Lite, the text encoder, the tabular transformer, the residual MLP, or your own model. At every depth ℓ = 0..L it gives the effective rank of the Jacobian of the residual stream, the representation rank, the branch-to-skip ratio of the attention and the MLP branch, the stream norm and the mean spike.
- `autonorm_explorer.corruptions`: Gaussian noise, brightness, contrast, motion blur, pixelate and JPEG at severities 1–5, offline.
- `autonorm_explorer.data`: One call returns any dataset of the experiments as tensors plus metadata, offline when possible.
- `autonorm_explorer.datasources`: Where every dataset file comes from, how it is verified, and what to do when it cannot be had.
- `autonorm_explorer.exercises_depth`: Graders for the course's depth lessons (norm placement, the mean spike, width expansion): each exercise is registered with `autonorm_explorer.checking`, computes its truth with the package's rank tools, and answers a wrong attempt with a hint that points at the reasoning, never at the number.
- `autonorm_explorer.formats`: Parsers for the real file formats of every dataset, each checking what it reads.
- `autonorm_explorer.metrics`: Accuracy, macro-F1, token accuracy and perplexity, RMSE/MAE in original units beside the mean-predictor baseline, accuracy under corruptions and under 90° rotation.
- `autonorm_explorer.stats`: Mean ± standard deviation over seeds, Student-t 95% confidence intervals, and paired t-tests over seed-matched runs — the statistics of the AutoNorm paper's tables, checked against scipy.
- `autonorm_explorer.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly."""

__version__ = "0.1.0"
