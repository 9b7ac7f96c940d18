"""Explore and reproduce two results on normalization in deep networks: Transforming Rank (rank through depth at init) and AutoNorm (learned per-site LayerNorm/DyT gates).

Modules:

- `autonorm_explorer.core.cli`: Every console command parses its arguments with `argparse` through `run_cli`; `autonorm-explorer notebooks DIR` copies the shipped notebooks somewhere editable.
- `autonorm_explorer.core.devices`: `resolve_device`, the memory a request may take (`check_memory`) and the machine has, and `torch_threads`.
- `autonorm_explorer.core.exports`: Each domain of the package (`rank`, `norms`, `data`, ...) re-exports the public names of its modules, and `import autonorm_explorer as ae` gives the handful of names a user reaches for first, without importing torch, papermill or matplotlib until a name is used.
- `autonorm_explorer.core.files`: Nothing a user computed or trained is lost or half-written on a crash or a kill: every file is written beside its destination and renamed into place.
- `autonorm_explorer.core.notebooks`: Run a notebook with parameters and refuse misspelled parameters.
- `autonorm_explorer.core.resources`: The dataset manifest and the notebooks (course, tutorials, experiment templates and their grids, explorers, app), found through `importlib.resources` wherever the package is installed.
- `autonorm_explorer.core.seeds`: `seed_everything` for the global state, `torch_generator` for a private stream, `derived_generator` and `derived_rng` when one seed feeds several independent streams.
- `autonorm_explorer.core.validation`: `check_choice`, `check_range`, `check_finite`, `check_int`, `check_type`, `check_bool`: the one place every bad input is answered.
- `autonorm_explorer.course.checking`: `check(exercise_id, answer)` says right, or wrong with a hint that never gives the answer away; `reveal(question_id, guess, truth)` compares a prediction the learner committed to with the value the next cell computed.
- `autonorm_explorer.course.claims`: One table per paper: each claim, what result would refute it, the notebook that tests it, and the verdict here. `TR-n` ids are *Transforming Rank*'s claims, `AN-n` ids are AutoNorm's. The course, the reproduction tutorial and the report cite these ids.
- `autonorm_explorer.course.diagrams`: The figures that show structure (where a norm sits in a block, how a Jacobian splits into paths), drawn with matplotlib and shown as SVG with a sentence of alt text, sized for the site's column.
- `autonorm_explorer.course.exercises_autonorm`: The exercises and recap questions of the course lessons on trainability, normalization layers, AutoNorm, AutoNorm-S and the capstone on norms and rank, each with a grader that says right or names the likely slip (never the answer).
- `autonorm_explorer.course.exercises_depth`: Graders for the course's depth lessons (norm placement, the mean spike, width expansion) and their recap questions: each is registered with `autonorm_explorer.course.checking`, computes its truth with the package's rank tools or a closed form, and answers a wrong attempt with a hint that names the likely slip, never the number.
- `autonorm_explorer.course.exercises_rank`: The exercises and recap questions of the course's first part (effective rank; depth and skips), registered with `checking.register` so that `check("L1.2", answer)` or `check("L2.Q3", answer)` can grade them.
- `autonorm_explorer.data.augment`: The whole uint8 dataset lives on the device; crops, flips, MixUp/CutMix and normalization run per batch.
- `autonorm_explorer.data.corruptions`: Gaussian noise, brightness, contrast, motion blur, pixelate and JPEG at severities 1–5, offline.
- `autonorm_explorer.data.formats`: Parsers for the real file formats of every dataset, each checking what it reads.
- `autonorm_explorer.data.loading`: One call returns any dataset of the experiments as tensors plus metadata, offline when possible.
- `autonorm_explorer.data.metrics`: Accuracy, macro-F1, token accuracy and perplexity, RMSE/MAE in original units beside the mean-predictor baseline, accuracy under corruptions and under 90° rotation.
- `autonorm_explorer.data.sources`: Where every dataset file comes from, how it is verified, and what to do when it cannot be had.
- `autonorm_explorer.experiments.demo`: `autonorm-demo` runs the landing tour, two tutorials, a small sweep and its report.
- `autonorm_explorer.experiments.report`: The AutoNorm paper's numbers, each with its provenance, budget and plausibility flags, and the functions that turn a sweep's results into a report a reader can trust.
- `autonorm_explorer.experiments.results`: A finished sweep folder holds executed notebooks, figures and checkpoints: megabytes a repository should not carry, and a folder that exists only on the machine that ran it. `publish_sweep` keeps the part a reader needs (one row per run, the gates' per-epoch log, and how it was all produced) in a small text folder; `load_published` reads it back. The lessons, the report, the claims table and the site read the same files.
- `autonorm_explorer.experiments.runner`: Load a dataset, build the backbone with a normalization method, train with the paper's protocol (AutoNorm-S: with the gate-freezing rule), evaluate clean and robust accuracy, and write `metrics.json`, the gate log and the training log into one folder.
- `autonorm_explorer.experiments.stats`: Mean ± standard deviation over seeds, Student-t 95% confidence intervals, and paired t-tests over seed-matched runs — the statistics of the AutoNorm paper's tables, checked against scipy.
- `autonorm_explorer.experiments.sweep`: A grid file (datasets × methods × seeds × overrides) becomes one papermill execution per cell, each in its own subprocess and folder; a local pool (one GPU per worker) or Slurm job arrays through submitit; resume that re-runs only unfinished cells; one tidy results table.
- `autonorm_explorer.experiments.train`: AdamW with a warmed-up cosine schedule, gradient clipping, label smoothing (also on MixUp's soft targets), bf16 autocast on CUDA, exact CPU determinism under a seed, callbacks, early stopping, per-epoch JSONL metrics, atomic checkpoints and resume-after-kill that reproduces the uninterrupted run exactly.
- `autonorm_explorer.explore.core`: Controls with the names a reader knows, one figure updated in place, a readout line, Hold, presets, a shareable config, export, and a background compute that never draws stale results.
- `autonorm_explorer.explore.gates`: `GateExplorer` (what one Gumbel-Softmax gate does at temperature τ) and `FreezeExplorer` (AutoNorm-S live: a small ViT-Lite trains in the background while its gates decide).
- `autonorm_explorer.explore.rank`: `RankExplorer`, `ThresholdExplorer` and `PathExplorer`: move β, switch Pre-Norm to Post-Norm, and watch rank collapse happen, at once.
- `autonorm_explorer.models.backbones`: The three backbones of the AutoNorm paper, each taking `norm=` with any method of `make_norm`.
- `autonorm_explorer.norms.autonorm`: AutoNorm as the paper describes it (not as its public code does it), and its baselines.
- `autonorm_explorer.norms.convert`: Swap the normalization layers of a model you did not write (torch's `TransformerEncoder`, HF BERT, GPT-2, ViT, T5, Llama, ConvNeXt) for AutoNorm or a baseline, without breaking what the model already does right.
- `autonorm_explorer.norms.gates`: A tidy log of every gated site's weights and entropy, and the three plots that show what the gates did.
- `autonorm_explorer.norms.integrations`: Train an `autonormify`-converted model with the trainer you already use: the τ schedule per optimizer update, the gate log, the AutoNorm-S freeze at epoch boundaries, and resuming from a checkpoint.
- `autonorm_explorer.norms.layers`: The normalization layers AutoNorm mixes and the baselines it is compared with, written from their papers.
- `autonorm_explorer.norms.registry`: One list of norm names (old spellings accepted), `make_norm`, which builds any of them by name, and `normalize`, the LayerNorm/RMSNorm formula that every normalizing layer calls.
- `autonorm_explorer.norms.schedule`: The AutoNorm-S rule as an epoch-end callback that freezes the selectors for real.
- `autonorm_explorer.rank.blocks`: `block_rank_profile(model, inputs)`: the rank tools of `rank.propagation` for any residual network whose blocks are a list of modules: ViT-Lite, the text encoder, the tabular transformer, the residual MLP, HuggingFace's GPT-2, BERT/RoBERTa, Llama/Qwen/Mistral, T5 and ViT/DeiT, or your own model. At every depth ℓ = 0..L it gives the effective rank of the Jacobian of the residual stream (exact, or estimated from Jacobian–vector products at real widths), the representation rank, the branch-to-skip ratio of the attention and the MLP branch, the stream norm and the mean spike.
- `autonorm_explorer.rank.branch`: `branch_rank_sweep(expansions)`: numerical rank, full-rank fraction, effective rank and conditioning of J_f = W_down·D·W_up over expansion ratios m/d, to see the Marchenko–Pastur threshold 1/p(σ).
- `autonorm_explorer.rank.estimate`: `estimate_erank(matvec, n)`: the effective rank of a Jacobian J from products v ↦ JᵀJv only, by stochastic Lanczos quadrature, with a 95% interval from the probes. `block_rank_profile(..., method="estimate")` uses it for transformers at their real widths, where J has side tokens × width (98,304 for GPT-2 small on 128 tokens).
- `autonorm_explorer.rank.paths`: `path_orders(cfg)`: how much of ∂h_L/∂h_0 travels through k branches, k = 0..L — exactly (DP), by random probes (Hutchinson), or by a mean-field binomial law.
- `autonorm_explorer.rank.propagation`: `rank_profile(cfg)`: one pass over the blocks gives, at every depth ℓ = 0..L, the effective rank of the input–output Jacobian ∂h_ℓ/∂h_0, the effective rank of the representation, the mean spike, the branch-to-skip ratio and the stream norm.
- `autonorm_explorer.rank.resmlp`: `ResMLPConfig`, shared Gaussian weights (`sample_weights`), and `ResidualMLP`, a trainable `torch.nn.Module` with four norm placements, one- or two-matrix branches and the DetachNorm ablation.
- `autonorm_explorer.rank.spectra`: Spectral measures the rank tools are built on: Roy–Vetterli effective rank, the activation survival rate p(σ) that sets the branch-Jacobian threshold, and Marchenko–Pastur laws for overlays.
- `autonorm_explorer.web.app`: `make app`: the explorers for people who don't code, served by Voilà, with links that carry the view and an Export that downloads in the browser.
- `autonorm_explorer.web.checks`: Five checks a learner's page must pass before it is published: code that fits the site's column, symbols written with real sub- and superscripts, nothing internal in the text, comments that are not split around code, and prose without control characters. `tests/test_page_checks.py` runs them on every learner page, and the last one on every notebook.
- `autonorm_explorer.web.figures`: Self-contained HTML pages with a slider over a precomputed grid: the Jacobian's effective rank over depth, the branch-rank threshold, and the Gumbel-Softmax gate across τ.
- `autonorm_explorer.web.guide`: The pages of the user guide (`docs/guide/*.md`) as the site shows them, and one page of measurements generated from the benchmarks' last run and the last `make test`.
- `autonorm_explorer.web.site`: `make docs`: a static site in `site/` (Sphinx, myst-nb, sphinx-book-theme) from executed notebooks, with the API reference, search, launch links and the kernel-free figures."""

__version__ = "0.1.0"

# The names a user reaches for first, each imported from its domain the first time it is used, so that
# `import autonorm_explorer as ae` stays fast: no torch, papermill or matplotlib until a name is asked for.
# Everything else: `from autonorm_explorer.<domain> import <name>` (each domain re-exports its modules).
from typing import TYPE_CHECKING as _TYPE_CHECKING

from .core.exports import lazy_exports as _lazy_exports

FIRST_NAMES = {
    "rank_profile": "rank.propagation", "ResMLPConfig": "rank.resmlp", "block_rank_profile": "rank.blocks",
    "path_orders": "rank.paths", "erank": "rank.spectra",
    "autonormify": "norms.convert", "AutoNorm": "norms.autonorm", "make_norm": "norms.registry",
    "load_dataset": "data.loading", "ExperimentConfig": "experiments.runner", "run_experiment": "experiments.runner",
    "check": "course.checking", "reveal": "course.checking",
    "RankExplorer": "explore.rank", "ThresholdExplorer": "explore.rank", "PathExplorer": "explore.rank",
    "GateExplorer": "explore.gates", "FreezeExplorer": "explore.gates",
}
__getattr__, __dir__ = _lazy_exports(__name__, __file__, FIRST_NAMES)

if _TYPE_CHECKING:    # what editors and type checkers see; at run time the names arrive lazily
    from .course.checking import check, reveal
    from .data.loading import load_dataset
    from .experiments.runner import ExperimentConfig, run_experiment
    from .explore.gates import FreezeExplorer, GateExplorer
    from .explore.rank import PathExplorer, RankExplorer, ThresholdExplorer
    from .norms.autonorm import AutoNorm
    from .norms.convert import autonormify
    from .norms.registry import make_norm
    from .rank.blocks import block_rank_profile
    from .rank.paths import path_orders
    from .rank.propagation import rank_profile
    from .rank.resmlp import ResMLPConfig
    from .rank.spectra import erank
