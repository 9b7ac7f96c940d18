"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.branch`: `branch_rank_sweep(expansions)`: numerical rank, full-rank fraction, effective rank and conditioning of J_f = W_down·D·W_up over expansion ratios m/d, to see the Marchenko–Pastur threshold 1/p(σ).
- `autonorm_explorer.checking`: `check(exercise_id, answer)` says right, or wrong with a hint that never gives the answer away; `reveal(question_id, guess, truth)` compares a prediction the learner committed to with the value the next cell computed.
- `autonorm_explorer.claims`: One table per paper: each claim, what result would refute it, the notebook that tests it, and the verdict here. `TR-n` ids are *Transforming Rank*'s claims, `AN-n` ids are AutoNorm's. The course, the reproduction tutorial and the report cite these ids.
- `autonorm_explorer.exercises_autonorm`: The exercises of the course lessons on trainability, normalization layers, AutoNorm and AutoNorm-S, each with a grader that says right or gives a hint (never the answer).
- `autonorm_explorer.exercises_rank`: The exercises of the course's first part (effective rank; depth and skips), registered with `checking.register` so that `check("L1.2", answer)` can grade them.
- `autonorm_explorer.experiment`: Load a dataset, build the backbone with a normalization method, train with the paper's protocol (AutoNorm-S: with the gate-freezing rule), evaluate clean and robust accuracy, and write `metrics.json`, the gate log and the training log into one folder.
- `autonorm_explorer.gate_widgets`: `GateExplorer` (what one Gumbel-Softmax gate does at temperature τ) and `FreezeExplorer` (AutoNorm-S live: a small ViT-Lite trains in the background while its gates decide).
- `autonorm_explorer.metrics`: Accuracy, macro-F1, token accuracy and perplexity, RMSE/MAE in original units beside the mean-predictor baseline, accuracy under corruptions and under 90° rotation.
- `autonorm_explorer.paths`: `path_orders(cfg)`: how much of ∂h_L/∂h_0 travels through k branches, k = 0..L — exactly (DP), by random probes (Hutchinson), or by a mean-field binomial law.
- `autonorm_explorer.propagation`: `rank_profile(cfg)`: one pass over the blocks gives, at every depth ℓ = 0..L, the effective rank of the input–output Jacobian ∂h_ℓ/∂h_0, the effective rank of the representation, the mean spike, the branch-to-skip ratio and the stream norm.
- `autonorm_explorer.report`: The AutoNorm draft's numbers (every number of the drafts' tables, each with its provenance and plausibility flags), and the functions that turn a sweep's results into the reproduction report's tables.
- `autonorm_explorer.resmlp`: `ResMLPConfig`, shared Gaussian weights (`sample_weights`), and `ResidualMLP`, a trainable `torch.nn.Module` with four norm placements, one- or two-matrix branches and the DetachNorm ablation.
- `autonorm_explorer.spectra`: Spectral measures the rank tools are built on: Roy–Vetterli effective rank, the activation survival rate p(σ) that sets the branch-Jacobian threshold, and Marchenko–Pastur laws for overlays.
- `autonorm_explorer.stats`: Mean ± standard deviation over seeds, Student-t 95% confidence intervals, and paired t-tests over seed-matched runs — the statistics of the AutoNorm paper's tables, checked against scipy.
- `autonorm_explorer.sweep`: A grid file (datasets × methods × seeds × overrides) becomes one papermill execution per cell, each in its own subprocess and folder; a local pool (one GPU per worker) or Slurm job arrays through submitit; resume that re-runs only unfinished cells; one tidy results table.
- `autonorm_explorer.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly.
- `autonorm_explorer.widget_core`: Controls with the names a reader knows, one figure updated in place, a readout line, Hold, presets, a shareable config, export, and a background compute that never draws stale results.
- `autonorm_explorer.widgets`: `RankExplorer`, `ThresholdExplorer` and `PathExplorer`: move β, switch Pre-Norm to Post-Norm, and watch rank collapse happen, at once."""

__version__ = "0.1.0"
