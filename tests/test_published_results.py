"""The committed results (results/): complete, step-matched, reproducible from their provenance, and the
numbers every page quotes from them are the files' numbers.

A page marks the markdown cells that quote published numbers with the tag `quotes-results` (and names the
folders with tags `results:<folder>`); the claims table names them in `claims.MEASURED_IN`. Every decimal in those
texts must be one of the formatted findings of those folders (`results.findings`)."""
import ast, json, shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from autonorm_explorer.core.notebooks import notebook_parameters
from autonorm_explorer.experiments import results as R
from autonorm_explorer.experiments.sweep import expand_grid, load_grid

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
GRIDS = ("nlp-cpu", "vision-cpu")
RANK = "rank-real-scale"
TUTORIAL = ROOT / "nbs" / "tutorials" / "rank_at_real_scale.ipynb"


def quoting_pages():
    "(notebook, [(folders, text)]) for every notebook under nbs/ with a quotes-results cell."
    out = []
    for nb in sorted((ROOT / "nbs").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb.parts:
            continue
        cells = R.quoting_cells(nb)
        if cells:
            out.append((nb, cells))
    return out


def test_the_shipped_results_are_the_committed_folder():
    from autonorm_explorer.core.resources import shipped_path
    assert shipped_path("results").resolve() == RESULTS.resolve()
    assert set(GRIDS) <= set(R.published_names())


@pytest.mark.parametrize("name", GRIDS)
def test_grid_is_complete_and_is_the_shipped_grid(name):
    pub = R.load_published(name)
    p = pub.provenance
    assert p["complete"] and p["cells_done"] == p["cells_total"], p
    grid = load_grid(name)                       # the grid file as shipped now
    cells = expand_grid(grid, "/tmp/unused")
    assert len(pub.results) == len(cells) == len(grid.datasets) * len(grid.methods) * len(grid.seeds)
    want = {(c.dataset, c.method, c.seed) for c in cells}
    assert set(zip(pub.results.dataset, pub.results.method, pub.results.seed)) == want
    assert p["grid"]["parameters"] == grid.parameters, "the shipped grid changed since these results were made"
    assert p["grid"]["dataset_parameters"] == grid.dataset_parameters
    assert p["commit"] and p["command"].startswith("autonorm-sweep run " + name)


def test_text_and_vision_are_step_matched():
    "Every run of both grids: 800 training examples, 10 epochs, batch 64, so 130 steps (and one freeze step)."
    frames = [R.load_published(n).results for n in GRIDS]
    res = pd.concat(frames, ignore_index=True)
    steps = np.ceil(res.train_size / 64) * res.epochs_run
    assert set(res.train_size) == {800} and set(res.epochs_run) == {10}, res.groupby("dataset")[
        ["train_size", "epochs_run"]].first()
    assert set(steps) == {130}
    s = res[res.method == "autonorm_s"]
    assert set(s.frozen_epoch.dropna()) <= {3}


@pytest.mark.parametrize("name", GRIDS)
def test_gate_log_matches_the_runs(name):
    "Every gated run (learned or random selector) has a gate log of every epoch and site; FrozenLN/DyT have none."
    pub = R.load_published(name)
    learned = pub.results[pub.results.method.isin(["autonorm", "autonorm_s", "random"])]
    g = pub.gates
    per_run = g.groupby(["dataset", "method", "seed"]).agg(epochs=("epoch", "nunique"), sites=("site", "nunique"))
    assert len(per_run) == len(learned)
    assert set(per_run.epochs) == {10} and set(per_run.sites) == {8}      # 4 blocks × 2 norms
    # the run's own summary (metrics.json) and the last epoch of its gate log agree
    last = g[g.epoch == 10].groupby(["dataset", "method", "seed"]).entropy.mean()
    mine = learned.set_index(["dataset", "method", "seed"]).gate_final_entropy
    assert np.allclose(last.loc[mine.index], mine, atol=1e-9)


def test_readme_is_generated_from_the_provenance():
    "results/README.md is results_readme(): a republished folder cannot leave a stale wall time or commit."
    assert (RESULTS / "README.md").read_text() == R.results_readme(RESULTS)


def test_pages_quote_only_numbers_in_the_files():
    pages = quoting_pages()
    names = {p.name for p, _ in pages}
    assert {"06_trainability.ipynb", "09_autonorm_s.ipynb", "trainability_vs_rank.ipynb",
            "rank_at_real_scale.ipynb"} <= names, names
    for nb, cells in pages:
        for folders, text in cells:
            found = {k: v for f in folders for k, v in R.findings(f, RESULTS).items()}
            bad = R.unbacked_numbers([text], found)
            assert not bad, f"{nb.relative_to(ROOT)}: {bad} are in no finding of {folders}:\n{text}"
            assert R.decimals(text), f"{nb.name}: a quotes-results cell that quotes no number"


def test_claims_quote_only_numbers_in_the_files():
    "Every claim's `measured` text names its folders in MEASURED_IN, states its budget, and quotes their numbers."
    from autonorm_explorer.course.claims import CLAIMS, MEASURED_IN
    with_text = {cid for cid, c in CLAIMS.items() if c.measured}
    assert with_text and with_text == set(MEASURED_IN), with_text ^ set(MEASURED_IN)
    for cid, folders in MEASURED_IN.items():
        found = {k: v for f in folders for k, v in R.findings(f, RESULTS).items()}
        text = CLAIMS[cid].measured
        assert all(f in text for f in folders), f"{cid}: its measured text does not name {folders}"
        assert "seeds" in text or "networks" in text, f"{cid}: the budget is not stated"
        assert R.decimals(text), f"{cid}'s measured text quotes no number"
        assert not R.unbacked_numbers([text], found), (cid, R.unbacked_numbers([text], found), text)


def test_a_changed_file_is_caught(tmp_path):
    "Negative control: change one run's accuracy in a copy of the results; the pages' quotes no longer match."
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    res = pd.read_csv(copy / "vision-cpu" / "results.csv")
    row = (res.dataset == "fashion_mnist") & (res.method == "frozen_ln") & (res.seed == 0)
    res.loc[row, "test_accuracy"] += 0.05
    res.to_csv(copy / "vision-cpu" / "results.csv", index=False)
    before, after = R.findings("vision-cpu", RESULTS), R.findings("vision-cpu", copy)
    changed = [k for k in before if before[k] != after[k]]
    assert "vision-cpu/fashion_mnist/frozen_ln/metric" in changed
    stale = []
    for _, cells in quoting_pages():
        for folders, text in cells:
            if "vision-cpu" in folders:
                found = {k: v for f in folders for k, v in R.findings(f, copy).items()}
                stale += R.unbacked_numbers([text], found)
    assert stale, "no quoted vision number depends on FrozenLN's Fashion-MNIST accuracy"


def test_the_site_page_shows_the_committed_numbers():
    "The site's measurements page prints every grid's method table from the same files."
    from autonorm_explorer.web.guide import measured_page
    page = measured_page(ROOT, last_test=False)
    for name in GRIDS:
        metrics = {k: v for k, v in R.findings(name, RESULTS).items() if k.endswith("/metric")}
        assert metrics and all(v in page for v in metrics.values()), name
    study = R.findings("trainability", RESULTS)                     # the study: its statistics and every shape
    shown = [k for k in study if k.endswith(("/spearman_ci", "/gap_ci", "/erank", "/accuracy"))]
    assert len(shown) > 36 and all(study[k] in page for k in shown), [k for k in shown if study[k] not in page]


# ---------------------------------------------------------------- the trainability study

STUDY = ROOT / "nbs" / "experiments" / "trainability_vs_rank.ipynb"


def _defaults() -> dict:
    "The study notebook's parameters at their defaults, as Python values."
    import ast
    from autonorm_explorer.core.notebooks import notebook_parameters
    return {k: ast.literal_eval(v["default"]) for k, v in notebook_parameters(STUDY).items()}


def test_trainability_is_complete_at_the_notebooks_full_defaults():
    "Every network the notebook's defaults ask for (grid and learning-rate sweep) is in the file, and no other."
    import itertools
    d, pub = _defaults(), R.load_published("trainability")
    assert pub.provenance["kind"] == "trainability", pub.provenance["kind"]
    m = pub.tables["metrics"]
    assert (m["dataset"], m["width"], m["epochs"], m["depths"], m["seeds"]) == (
        d["dataset"], d["width"], d["epochs"], d["depths"], d["seeds"]), m
    assert m["train_size"] == d["train_subset"]
    want = {(p, float(b), L, br, s, float(d["lr"]), "grid")
            for p, b, L, br, s in itertools.product(d["placements"], d["betas"], d["depths"], d["branches"],
                                                    d["seeds"])}
    for c in d["lr_configs"]:
        p, b, L, br = c.split(":")
        want |= {(p, float(b), int(L), br, s, float(v), "lr") for v in d["lr_values"] for s in d["lr_seeds"]}
    res = pub.results
    have = list(zip(res.placement, res.beta.astype(float), res.depth, res.branch, res.seed, res.lr.astype(float),
                    res.sweep))
    assert len(have) == len(set(have)) and set(have) == want, (len(have), len(want))
    assert pub.provenance["networks"] == len(want) == 132


def test_trainability_statistics_are_the_files_own():
    "Oracles: scipy's Spearman ρ, pandas' means and the collapse threshold, recomputed from trainability.csv."
    from scipy import stats
    pub = R.load_published("trainability")
    m, res, d = pub.tables["metrics"], pub.results, _defaults()
    grid = res[res.sweep == "grid"]
    assert len(grid) == m["n_networks"]
    regime = np.where(res.init_jacobian_erank < d["collapse_threshold"], "collapsed", "plateau")
    assert (regime == res.regime).all()
    rho = stats.spearmanr(grid.init_jacobian_erank, grid.final_test_accuracy).statistic
    assert abs(rho - m["spearman"]) < 1e-12 and m["spearman_ci"][0] <= rho <= m["spearman_ci"][1]
    acc = grid.groupby("regime").final_test_accuracy.mean()
    assert abs((acc["plateau"] - acc["collapsed"]) - m["accuracy_gap"]) < 1e-12
    assert m["regime_counts"] == grid.regime.value_counts().to_dict()
    by = pub.tables["trainability_by_config"].set_index(["placement", "beta", "depth", "branch"])
    mine = grid.groupby(["placement", "beta", "depth", "branch"]).final_test_accuracy.mean()
    assert np.allclose(by.test_accuracy.loc[mine.index], mine, atol=1e-12) and (by.seeds == 3).all()


def test_a_changed_trainability_file_is_caught(tmp_path):
    "Negative control: one collapsed network's accuracy changed in a copy; lesson 6's quotes no longer match."
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    t = pd.read_csv(copy / "trainability" / "trainability.csv")
    row = t.index[(t.sweep == "grid") & (t.regime == "collapsed")][0]
    t.loc[row, "final_test_accuracy"] += 0.3
    t.to_csv(copy / "trainability" / "trainability.csv", index=False)
    stale = []
    for nb, cells in quoting_pages():
        for folders, text in cells:
            if "trainability" in folders:
                found = {k: v for f in folders for k, v in R.findings(f, copy).items()}
                stale += R.unbacked_numbers([text], found)
    assert stale, "no quoted trainability number depends on the collapsed networks' accuracy"


def test_real_size_profiles_are_the_tutorials_settings_and_reach_them():
    """The published real-size profiles ran at the tutorial's defaults, on the four models it quotes, and every
    estimated depth reached the requested accuracy (its 95% interval within rtol of the estimate)."""
    pub = R.load_published(RANK)
    p, params = pub.provenance, notebook_parameters(TUTORIAL)
    settings = {k: ast.literal_eval(params[k]["default"]) for k in ("depths", "rtol", "min_probes", "max_steps")}
    assert p["settings"] == settings, (p["settings"], settings)
    assert set(p["models"]) == {"gpt2", "bert", "gpt2-dyt", "vit"} and p["commit"] and p["command"], p
    res = pub.results
    for name, m in p["models"].items():
        g = res[res.model == name].set_index("depth")
        assert list(g.index) == list(range(m["blocks"] + 1)) and m["depths"] == settings["depths"], name
        est = g.loc[m["depths"]]
        assert est.jacobian_erank.between(0, 1).all() and np.isfinite(est.jacobian_erank_ci).all(), name
        assert (est.jacobian_erank_ci <= settings["rtol"] * est.jacobian_erank + 1e-12).all(), (name, est)
        assert (est.steps <= settings["max_steps"]).all() and (est.probes >= settings["min_probes"]).all(), name
        assert g.branch_skip_ratio_mlp.iloc[1:].gt(0).all(), name                 # never a silent NaN
    f, gpt2 = R.findings(RANK), res[res.model == "gpt2"].set_index("depth").jacobian_erank
    assert f[f"{RANK}/gpt2/loss_per_block/4-12"] == f"{(gpt2[4] - gpt2[12]) / 8:.3f}"      # rank lost per block
    assert f[f"{RANK}/gpt2/erank/12"] == f"{gpt2[12]:.3f} ± {res.jacobian_erank_ci[(res.model == 'gpt2') & (res.depth == 12)].item():.3f}"
    assert p["models"]["gpt2"]["tokens"] * p["models"]["gpt2"]["width"] == 98_304
    assert p["models"]["vit"]["tokens"] * p["models"]["vit"]["width"] == 151_296


def test_a_changed_rank_profile_is_caught(tmp_path):
    "Negative control: nudge GPT-2's erank at depth 12 in a copy; the tutorial's quotes no longer match."
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    prof = pd.read_csv(copy / RANK / "profiles.csv")
    prof.loc[(prof.model == "gpt2") & (prof.depth == 12), "jacobian_erank"] += 0.01
    prof.to_csv(copy / RANK / "profiles.csv", index=False)
    stale = []
    for folders, text in R.quoting_cells(TUTORIAL):
        found = {k: v for f in folders for k, v in R.findings(f, copy).items()}
        stale += R.unbacked_numbers([text], found)
    assert stale, "no quoted number depends on GPT-2's erank at depth 12"
