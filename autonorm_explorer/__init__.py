"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.block_rank`: `block_rank_profile(model, inputs)`: the rank tools of `propagation` for any residual network whose blocks are a list of modules: ViT-Lite, the text encoder, the tabular transformer, the residual MLP, or your own model. At every depth ℓ = 0..L it gives the effective rank of the Jacobian of the residual stream, the representation rank, the branch-to-skip ratio of the attention and the MLP branch, the stream norm and the mean spike.
- `autonorm_explorer.branch`: `branch_rank_sweep(expansions)`: numerical rank, full-rank fraction, effective rank and conditioning of J_f = W_down·D·W_up over expansion ratios m/d, to see the Marchenko–Pastur threshold 1/p(σ).
- `autonorm_explorer.checking`: `check(exercise_id, answer)` says right, or wrong with a hint that never gives the answer away; `reveal(question_id, guess, truth)` compares a prediction the learner committed to with the value the next cell computed.
- `autonorm_explorer.claims`: One table per paper: each claim, what result would refute it, the notebook that tests it, and the verdict here. `TR-n` ids are *Transforming Rank*'s claims, `AN-n` ids are AutoNorm's. The course, the reproduction tutorial and the report cite these ids.
- `autonorm_explorer.exercises_depth`: Graders for the course's depth lessons (norm placement, the mean spike, width expansion): each exercise is registered with `autonorm_explorer.checking`, computes its truth with the package's rank tools, and answers a wrong attempt with a hint that points at the reasoning, never at the number.
- `autonorm_explorer.exercises_rank`: The exercises of the course's first part (effective rank; depth and skips), registered with `checking.register` so that `check("L1.2", answer)` can grade them.
- `autonorm_explorer.paths`: `path_orders(cfg)`: how much of ∂h_L/∂h_0 travels through k branches, k = 0..L — exactly (DP), by random probes (Hutchinson), or by a mean-field binomial law.
- `autonorm_explorer.propagation`: `rank_profile(cfg)`: one pass over the blocks gives, at every depth ℓ = 0..L, the effective rank of the input–output Jacobian ∂h_ℓ/∂h_0, the effective rank of the representation, the mean spike, the branch-to-skip ratio and the stream norm.
- `autonorm_explorer.resmlp`: `ResMLPConfig`, shared Gaussian weights (`sample_weights`), and `ResidualMLP`, a trainable `torch.nn.Module` with four norm placements, one- or two-matrix branches and the DetachNorm ablation.
- `autonorm_explorer.spectra`: Spectral measures the rank tools are built on: Roy–Vetterli effective rank, the activation survival rate p(σ) that sets the branch-Jacobian threshold, and Marchenko–Pastur laws for overlays.
- `autonorm_explorer.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly.
- `autonorm_explorer.utils`: Small helpers every other module leans on, kept in one place."""

__version__ = "0.1.0"
