"""The experiment templates run headlessly through papermill at tiny size and write their outputs; an unknown
parameter stops them (even when papermill itself is called directly, which only warns); the report notebook
turns a tiny sweep into the claims-vs-ours table. Needs the offline `digits` data (scikit-learn)."""
import ast, json, os, sys
from dataclasses import fields
from pathlib import Path

import pandas as pd
import papermill as pm
import pytest

from autonorm_explorer.experiments.runner import ExperimentConfig
from autonorm_explorer.core.notebooks import notebook_parameters, run_notebook
from autonorm_explorer.experiments.sweep import run_sweep

ROOT = Path(__file__).resolve().parent.parent
EXP = ROOT / "nbs" / "experiments"
TINY = dict(epochs=2, depth=1, dim=16, heads=2, patch_size=2, train_subset=256, eval_subset=128, threads=1, t_freeze=1)


def test_notebook_defaults_match_the_config():
    declared = notebook_parameters(EXP / "autonorm_experiment.ipynb")
    defaults = {f.name: f.default for f in fields(ExperimentConfig)}
    assert set(declared) == set(defaults)
    for k, v in declared.items(): assert ast.literal_eval(v["default"]) == defaults[k], k
    assert all(v["help"] for v in declared.values())                  # every parameter is annotated


def test_unknown_parameter_fails_inside_the_notebook(tmp_path):
    with pytest.raises(pm.PapermillExecutionError, match="experiment parameter='epoks' is not allowed"):
        pm.execute_notebook(str(EXP / "autonorm_experiment.ipynb"), str(tmp_path / "o.ipynb"), kernel_name="python3",
                            parameters={"epoks": 2, "out_dir": str(tmp_path)}, progress_bar=False)


@pytest.fixture(scope="module")
def tiny_sweep(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    (d / "grid.toml").write_text(f'name = "tiny"\nnotebook = "{EXP / "autonorm_experiment.ipynb"}"\n'
                                 'datasets = ["digits"]\nmethods = ["frozen_ln", "autonorm_s"]\nseeds = [0, 1]\n[parameters]\n'
                                 + "".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY.items()) + "eps_h = 0.01\n")
    df = run_sweep(d / "grid.toml", d / "out", workers=2, verbose=False)
    return d / "out", df


def test_experiment_notebook_writes_its_outputs(tiny_sweep):
    out, df = tiny_sweep
    assert sorted(df.cell_id) == ["digits-autonorm_s-s0", "digits-autonorm_s-s1", "digits-frozen_ln-s0", "digits-frozen_ln-s1"]
    for cell in df.cell_id:
        run = out / "runs" / cell
        for f in ("metrics.json", "curves.png", "notebook.ipynb", "resume/metrics.jsonl", "DONE"): assert (run / f).exists(), (cell, f)
        m = json.loads((run / "metrics.json").read_text())
        assert 0 <= m["test_accuracy"] <= 1 and m["train_size"] == 256 and m["epochs_run"] == 2
    auto = out / "runs" / "digits-autonorm_s-s0"
    assert (auto / "gates.png").exists() and (auto / "gates.jsonl").exists()
    assert json.loads((auto / "metrics.json").read_text())["freeze_decision"] == "frozen"
    assert (df.param_method if "param_method" in df else df.method).notna().all() and df.duration_s.notna().all()


def test_report_notebook_on_a_tiny_sweep(tiny_sweep, tmp_path):
    out, _ = tiny_sweep
    run_notebook(EXP / "report.ipynb", tmp_path / "report.ipynb", {"sweep_dir": str(out), "out_dir": str(tmp_path)})
    table = pd.read_csv(tmp_path / "report_table.csv")
    assert set(table.method) == {"frozen_ln", "autonorm_s"} and (table.n_seeds == 2).all()
    md = (tmp_path / "report.md").read_text()
    assert "## Claimed vs ours" in md and "digits" in md and (tmp_path / "entropy_curves_vision.png").exists()


def test_report_reads_a_published_copy_as_the_sweep_itself(tiny_sweep, tmp_path):
    "The report of a published folder (what results/ holds) is the report of the sweep it was published from."
    from autonorm_explorer.experiments.results import publish_sweep
    out, _ = tiny_sweep
    publish_sweep(out, tmp_path / "published", command="autonorm-sweep run tiny")
    for name, src in (("sweep", out), ("published", tmp_path / "published")):
        run_notebook(EXP / "report.ipynb", tmp_path / f"{name}.ipynb", {"sweep_dir": str(src), "out_dir": str(tmp_path / name)})
    a, b = (pd.read_csv(tmp_path / n / "report_table.csv") for n in ("sweep", "published"))
    pd.testing.assert_frame_equal(a, b)
    text = lambda n: (tmp_path / n / "report.md").read_text().replace(str(out.resolve()), "").replace(
        str((tmp_path / "published").resolve()), "")
    assert text("sweep") == text("published")
    assert "## Paired t-tests" in text("published") or "freeze rule" in text("published")


def test_trainability_notebook_tiny(tmp_path):
    params = dict(dataset="digits", placements=["pre", "post"], betas=[1.0], depths=[2], branches=["two"], seeds=[0],
                  epochs=1, lr_configs=["post:1.0:2:two"], lr_values=[1e-3], lr_seeds=[0], n_boot=100, workers=1,
                  out_dir=str(tmp_path))
    run_notebook(EXP / "trainability_vs_rank.ipynb", tmp_path / "t.ipynb", params)
    res = pd.read_csv(tmp_path / "trainability.csv")
    assert len(res) == 3 and sorted(res.sweep) == ["grid", "grid", "lr"]
    for col in ("init_jacobian_erank", "init_jacobian_erank_synthetic"): assert res[col].between(0, 1).all(), col
    assert (tmp_path / "trainability_scatter.png").exists() and (tmp_path / "lr_sensitivity.csv").exists()
    m = json.loads((tmp_path / "metrics.json").read_text())
    assert m["n_networks"] == 2 and m["verdict"] and m["test_size"] == 180
    # a rerun resumes: every network is already in results.jsonl, none is trained (or logged) again
    run_notebook(EXP / "trainability_vs_rank.ipynb", tmp_path / "t2.ipynb", params)
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 3
    with pytest.raises(Exception, match="parameter of trainability_vs_rank='widht' is not allowed"):
        pm.execute_notebook(str(EXP / "trainability_vs_rank.ipynb"), str(tmp_path / "bad.ipynb"), kernel_name="python3",
                            parameters={"widht": 8}, progress_bar=False)
    with pytest.raises(Exception, match="placement:beta:depth:branch"):
        pm.execute_notebook(str(EXP / "trainability_vs_rank.ipynb"), str(tmp_path / "bad2.ipynb"), kernel_name="python3",
                            parameters={"lr_configs": ["post:1.0"], "out_dir": str(tmp_path / "bad2")}, progress_bar=False)
