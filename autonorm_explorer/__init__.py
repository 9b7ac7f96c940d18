"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.autonorm`: AutoNorm as the paper describes it (not as its public code does it), and its baselines.
- `autonorm_explorer.autonormify`: Swap the normalization layers of a model you did not write (torch's `TransformerEncoder`, HF BERT, GPT-2, ViT, T5, Llama, ConvNeXt) for AutoNorm or a baseline, without breaking what the model already does right.
- `autonorm_explorer.block_rank`: `block_rank_profile(model, inputs)`: the rank tools of `propagation` for any residual network whose blocks are a list of modules: ViT-Lite, the text encoder, the tabular transformer, the residual MLP, or your own model. At every depth ℓ = 0..L it gives the effective rank of the Jacobian of the residual stream, the representation rank, the branch-to-skip ratio of the attention and the MLP branch, the stream norm and the mean spike.
- `autonorm_explorer.exercises_autonorm`: The exercises of the course lessons on trainability, normalization layers, AutoNorm and AutoNorm-S, each with a grader that says right or gives a hint (never the answer).
- `autonorm_explorer.exercises_depth`: Graders for the course's depth lessons (norm placement, the mean spike, width expansion): each exercise is registered with `autonorm_explorer.checking`, computes its truth with the package's rank tools, and answers a wrong attempt with a hint that points at the reasoning, never at the number.
- `autonorm_explorer.gates`: A tidy log of every gated site's weights and entropy, and the three plots that show what the gates did.
- `autonorm_explorer.models`: The three backbones of the AutoNorm paper, each taking `norm=` with any method of `make_norm`.
- `autonorm_explorer.norm_registry`: One list of norm names (old spellings accepted), `make_norm`, which builds any of them by name, and `normalize`, the LayerNorm/RMSNorm formula that every normalizing layer calls.
- `autonorm_explorer.norms`: The normalization layers AutoNorm mixes and the baselines it is compared with, written from their papers.
- `autonorm_explorer.schedule`: The AutoNorm-S rule as an epoch-end callback that freezes the selectors for real.
- `autonorm_explorer.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly."""

__version__ = "0.1.0"
