"""The freeze-rule study's shortcut is exact: the decision it reads off one AutoNorm run's gate log is the decision real
AutoNorm-S runs take, and an AutoNorm-S run whose rule stayed inert is bit-identical to the AutoNorm run of its seed.
The study notebook runs headlessly at tiny size. Needs the offline `digits` data (scikit-learn)."""
import json
from pathlib import Path

import pandas as pd

from autonorm_explorer.experiments.runner import ExperimentConfig, run_experiment
from autonorm_explorer.experiments.report import freeze_rule_decisions
from autonorm_explorer.core.notebooks import run_notebook

ROOT = Path(__file__).resolve().parent.parent
TINY = dict(dataset="digits", epochs=2, depth=1, dim=16, heads=2, patch_size=2, train_subset=256, eval_subset=128,
            threads=1, augment=False, robustness=False, seed=3)


def test_decisions_read_off_an_autonorm_run_match_real_autonorm_s_runs(tmp_path):
    base = run_experiment(ExperimentConfig(method="autonorm", out_dir=str(tmp_path / "a"), **TINY), verbose=False)
    gates = pd.read_json(tmp_path / "a" / "gates.jsonl", lines=True).assign(dataset="digits", seed=3)
    h = [freeze_rule_decisions(gates, [t], eps_h=0.5).entropy.item() for t in (1, 2)]
    eps_h = (h[0] + h[1]) / 2                      # between the two epochs' entropies: one T fires, one does not
    assert h[0] != h[1]
    decided = freeze_rule_decisions(gates, [1, 2], eps_h=eps_h).set_index("t_freeze").fires
    assert decided.sum() == 1
    for t in (1, 2):
        m = run_experiment(ExperimentConfig(method="autonorm_s", t_freeze=t, eps_h=eps_h, out_dir=str(tmp_path / f"s{t}"),
                                            **TINY), verbose=False)
        assert (m["freeze_decision"] == "frozen") == bool(decided[t]), (t, m["freeze_note"])
        if not decided[t]:                         # inert: the same run as AutoNorm's, to the last bit
            assert m["freeze_note"].startswith("freeze rule inert")
            assert m["test_accuracy"] == base["test_accuracy"] and m["test_loss"] == base["test_loss"]
            assert (tmp_path / f"s{t}" / "gates.jsonl").read_text() == (tmp_path / "a" / "gates.jsonl").read_text()


def test_study_notebook_tiny(tmp_path):
    params = dict(datasets=["digits"], taus=[0.5, 2.0], t_freezes=[1, 2], seeds=[0], depth=1, dim=16, train_subset=256,
                  out_dir=str(tmp_path))
    run_notebook(ROOT / "nbs" / "experiments" / "freeze_rule_study.ipynb", tmp_path / "study.ipynb", params)
    study = pd.read_csv(tmp_path / "freeze_study.csv")
    assert len(study) == 2 * 2 * 2                 # 2 rules × 2 τ × 2 T
    assert study.fire_rate.between(0, 1).all() and (study.n_seeds == 1).all()
    assert (tmp_path / "freeze_study.png").exists() and "Freeze-rule study" in (tmp_path / "freeze_study.md").read_text()
    # a rerun skips the finished runs (nothing recomputed: the run folders keep their metrics files untouched)
    stamp = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*/metrics.json")}
    assert len(stamp) == 2
    run_notebook(ROOT / "nbs" / "experiments" / "freeze_rule_study.ipynb", tmp_path / "again.ipynb", params)
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("*/metrics.json")} == stamp
