"""scripts/gpu_check.sh is valid bash and refuses clearly on a machine without CUDA (one line, exit 2); its grid
estimate prices the shipped paper grid from a step time (checked against a count done by hand)."""
import importlib.util, math, os, subprocess, sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gpu_check.sh"


def load_check():
    found = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
    mod = importlib.util.module_from_spec(found)
    found.loader.exec_module(mod)
    return mod


def test_script_parses():
    assert subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True).returncode == 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA: the refusal cannot be observed here")
def test_refuses_without_cuda(tmp_path):
    r = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "out")], capture_output=True, text=True,
                       env={**os.environ, "PYTHON": sys.executable}, timeout=120)
    lines = (r.stdout + r.stderr).strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, (r.returncode, lines)
    assert "no CUDA device" in lines[0] and not (tmp_path / "out").exists()


def test_paper_grid_estimate_counts_the_steps():
    est = load_check().paper_grid_estimate(0.02)
    # by hand: 7 methods × 5 seeds × 100 epochs × Σ ceil(train size / 64) over the 9 datasets
    per_epoch = [math.ceil(n / 64) for n in (60000, 60000, 73257, 50000, 50000, 38219, 67349, 16512, 614)]
    assert per_epoch == [938, 938, 1145, 782, 782, 598, 1053, 258, 10]
    assert est["runs"] == 315 and est["train_steps"] == 35 * 100 * 6504
    assert est["one_gpu_hours"] == pytest.approx(22_764_000 * 0.02 * 1.1 / 3600)
    assert est["eight_gpus_hours"] == pytest.approx(est["one_gpu_hours"] / 8)
    with pytest.raises(ValueError, match="step_s=0"):
        load_check().paper_grid_estimate(0)



def test_real_scale_comparison_agrees_with_itself_and_catches_a_shift():
    "The GPU step's comparison: the published CPU profile agrees with itself; shifted by 3 of its intervals, not."
    from autonorm_explorer.experiments.results import load_published
    mod = load_check()
    pub = load_published("rank-real-scale").results
    cpu = pub[pub.model == "gpt2"].set_index("depth")
    same = mod.compare_with_published(cpu, seconds=10.0)
    assert same["all_agree"] and set(same["depths"]) == {1, 4, 12}, same
    assert same["speedup"] == pytest.approx(same["cpu_seconds"] / 10.0, abs=0.05)
    shifted = cpu.assign(jacobian_erank=cpu.jacobian_erank + 3 * cpu.jacobian_erank_ci)
    assert not mod.compare_with_published(shifted, seconds=10.0)["all_agree"]
    assert mod.REAL_SCALE == load_published("rank-real-scale").provenance["settings"]
