"Rank tools: the contracts other modules code against, the tutorial's papermill parameters, the nbdev-clean tag fix."
import inspect, json, subprocess, sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from autonorm_explorer.rank.resmlp import ResMLPConfig, sample_weights
from autonorm_explorer.rank.propagation import rank_profile
from autonorm_explorer.rank.paths import path_orders
from autonorm_explorer.rank.branch import branch_rank_sweep
from autonorm_explorer.rank import spectra

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "nbs" / "tutorials" / "rank_claims.ipynb"


def test_contract_signatures():
    assert list(inspect.signature(rank_profile).parameters)[:6] == ["cfg", "n_samples", "n_jacobian_inputs", "seed",
                                                                    "device", "weights"]
    assert inspect.signature(rank_profile).parameters["n_samples"].default == 128
    assert list(inspect.signature(path_orders).parameters)[:3] == ["cfg", "method", "seed"]
    p = inspect.signature(branch_rank_sweep).parameters
    assert [(k, p[k].default) for k in ("width", "activation", "trials", "seed", "q")] == [
        ("width", 128), ("activation", "relu"), ("trials", 20), ("seed", 0), ("q", 1.0)]
    for name in ("erank", "survival_rate", "mp_threshold", "mp_edges", "mp_density"):
        assert callable(getattr(spectra, name))
    fields = set(ResMLPConfig.__dataclass_fields__)
    assert {"width", "depth", "beta", "alpha", "placement", "branch", "expansion", "activation", "norm", "projection",
            "seed"} <= fields


def test_rank_profile_columns_and_weight_reuse():
    cfg = ResMLPConfig(width=16, depth=6)
    w = sample_weights(cfg)
    for placement in ("pre", "post"):
        c = replace(cfg, placement=placement, beta=0.5)
        a, b = rank_profile(c, n_samples=8, weights=w), rank_profile(c, n_samples=8)
        assert a.equals(b)                          # weights=None samples exactly the shared weights
    assert {"depth", "jacobian_erank", "representation_erank", "representation_erank_centered", "mean_spike",
            "branch_skip_ratio", "stream_norm"} <= set(a.columns)
    assert list(a.depth) == list(range(7))


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_cuda_request_without_cuda_is_a_clear_error():
    with pytest.raises(ValueError, match="CUDA is not available"):
        rank_profile(ResMLPConfig(width=8, depth=2), device="cuda")


def test_tutorial_declares_papermill_parameters():
    from autonorm_explorer.core.notebooks import notebook_parameters
    params = notebook_parameters(TUTORIAL)
    assert {"out_dir", "width", "depth", "n_seeds", "device"} <= set(params)
    cells = json.loads(TUTORIAL.read_text())["cells"]
    assert any("parameters" in c.get("metadata", {}).get("tags", []) for c in cells)


def test_benchmark_help_runs():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_rank_profile.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "FLOP floor" in out and "150 ms" in out
