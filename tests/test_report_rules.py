"""The reproduction report's rules on a synthetic sweep (folders written by hand, no training): n < 3 shows runs and
no interval, a far smaller budget is "not comparable" and gets no test, the freeze rule's inert runs are said in words,
sections appear only for the families present, and no template placeholder survives into report.md."""
import json
from pathlib import Path

import pandas as pd
import pytest

from autonorm_explorer.core.notebooks import run_notebook

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "nbs" / "experiments" / "report.ipynb"
INERT = "freeze rule inert: H(π) = 0.07 < ε_H = 0.1 at epoch 3; selectors keep training, so AutoNorm-S is AutoNorm here"


def write_cell(sweep: Path, dataset: str, method: str, seed: int, metrics: dict, gates: list[dict] | None = None):
    "One finished sweep cell as the sweep writes it: cell.json, metrics.json, gates.jsonl, DONE."
    cell_id = f"{dataset}-{method}-s{seed}"
    d = sweep / "runs" / cell_id
    d.mkdir(parents=True)
    (d / "cell.json").write_text(json.dumps(dict(cell_id=cell_id, dataset=dataset, method=method, seed=seed, tag="",
                                                 parameters={})))
    (d / "metrics.json").write_text(json.dumps(dict(dataset=dataset, method=method, seed=seed, **metrics)))
    if gates:
        (d / "gates.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gates))
    (d / "DONE").write_text("{}")


def gate_rows(w_deep: float, h0: float) -> list[dict]:
    "Two epochs × 4 blocks × 2 sites; the deep blocks end at `w_deep`, entropy halves each epoch."
    return [dict(epoch=e, site=f"encoder.blocks.{b}.{r}", layer=b, role=r, method="autonorm",
                 w_dyt=(w_deep if b >= 2 else 0.2) if e == 2 else 0.5, entropy=h0 / e, entropy_tau=h0 / (4 * e),
                 n=100, frozen=False)
            for e in (1, 2) for b in range(4) for r in ("norm1", "norm2")]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    sweep = tmp_path_factory.mktemp("synthetic")
    vision = dict(task="image_classification", epochs=6, train_size=12000, test_size=2000, num_classes=10)
    for seed, (ln, an) in enumerate([(0.90, 0.91), (0.92, 0.93)]):            # 2 seeds of Fashion-MNIST
        write_cell(sweep, "fashion_mnist", "frozen_ln", seed, dict(vision, test_accuracy=ln, rotation_accuracy=0.08))
        write_cell(sweep, "fashion_mnist", "autonorm_s", seed,
                   dict(vision, test_accuracy=an, rotation_accuracy=0.3, freeze_decision="kept_training",
                        freeze_note=INERT), gate_rows(0.3, 0.2))
        write_cell(sweep, "fashion_mnist", "autonorm", seed, dict(vision, test_accuracy=an, rotation_accuracy=0.3),
                   gate_rows(0.3, 0.2))
    text = dict(task="token_tagging", epochs=3, train_size=900, test_size=100)
    for seed in range(3):                                                       # 3 seeds of the WSJ sample
        write_cell(sweep, "wsj_pos_sample", "frozen_ln", seed, dict(text, test_token_accuracy=0.80 + 0.01 * seed))
        write_cell(sweep, "wsj_pos_sample", "autonorm", seed, dict(text, test_token_accuracy=0.82 + 0.01 * seed),
                   gate_rows(0.8, 0.6))
    out = tmp_path_factory.mktemp("report")
    run_notebook(REPORT, out / "report.ipynb", {"sweep_dir": str(sweep), "out_dir": str(out)})
    return out, (out / "report.md").read_text(), pd.read_csv(out / "report_table.csv")


def test_fewer_than_three_seeds_show_runs_not_an_interval(report):
    _, md, table = report
    row = table[(table.dataset == "fashion_mnist") & (table.method == "frozen_ln") & (table.metric == "test_accuracy")].iloc[0]
    assert row.ours == "91.00 (runs 90.00, 92.00; n = 2: interval not meaningful)"
    assert pd.isna(row.ours_ci_low) and "n = 2: interval not meaningful" in md
    wsj = table[(table.dataset == "wsj_pos_sample") & (table.method == "autonorm")].iloc[0]
    assert "95% CI" in wsj.ours and "n = 3" in wsj.ours


def test_a_far_smaller_budget_is_not_compared_with_the_claim(report):
    _, md, table = report
    row = table[(table.dataset == "fashion_mnist") & (table.method == "frozen_ln") & (table.metric == "test_accuracy")].iloc[0]
    assert row.claimed == 93.12 and pd.isna(row.p_value)
    assert row.verdict == "not comparable: 6 vs 200 epochs, 12000 vs 60000 training examples"
    assert "not comparable" in md and "93.12 (claimed)" in md


def test_rotation_at_chance_is_said_and_inert_freezes_are_explained(report):
    _, md, table = report
    rot = table[(table.method == "frozen_ln") & (table.metric == "rotation_accuracy")].iloc[0]
    assert rot.verdict == "at or below chance (10%)"
    assert INERT in md and "was inert in 2" in md


def test_sections_follow_the_families_present_and_no_placeholder_is_left(report):
    out, md, _ = report
    assert "### vision" in md and "### text" in md and "tabular" not in md
    assert "## Gates: text" in md and "## Gates: vision" in md
    assert (out / "entropy_curves_text.png").exists() and (out / "gate_maps.png").exists()
    assert "Energy Efficiency" not in md                                   # a tabular note, no tabular data
    import re
    assert not re.findall(r"(?<![A-Za-z0-9\\_^$])\{[A-Za-z_]\w*\}", md)
    nb = json.loads((out / "report.ipynb").read_text())
    printed = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert "{vision}" not in printed and "claimed (text)" in printed


def test_deep_half_preference_is_reported(report):
    _, md, _ = report
    assert "Deep half minus shallow half" in md
    assert "| wsj_pos_sample | autonorm | 3 |" in md                       # three seeds, deep 0.8 vs shallow 0.2
