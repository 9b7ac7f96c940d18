"The AutoNorm digits tutorial runs headlessly through the project runner (papermill) with its parameters."
from pathlib import Path

import pandas as pd
import pytest

from autonorm_explorer.core.notebooks import notebook_parameters, run_notebook

NB = Path(__file__).resolve().parents[1] / "nbs" / "tutorials" / "autonorm_digits.ipynb"


def test_parameters_cell_declares_out_dir_and_freeze_rule():
    params = notebook_parameters(NB)
    assert {"out_dir", "epochs", "t_freeze", "eps_h", "tau", "seed"} <= set(params)


def test_unknown_parameter_is_refused(tmp_path):
    with pytest.raises(ValueError, match="t_frezee"):
        run_notebook(NB, tmp_path / "out.ipynb", {"t_frezee": 2})


@pytest.mark.slow
def test_runs_with_papermill_and_writes_its_outputs(tmp_path):
    out = tmp_path / "digits"
    run_notebook(NB, tmp_path / "executed.ipynb", {"out_dir": str(out), "epochs": 2, "t_freeze": 1, "min_val_acc": 0.0})   # smoke run
    for name in ("gate_log.csv", "history.csv", "grad_variance.csv", "final.csv", "entropy.png", "w_dyt_heatmap.png", "grad_variance.png"):
        assert (out / name).stat().st_size > 0, name
    gates = pd.read_csv(out / "gate_log.csv")
    assert set(gates.method) == {"AutoNorm", "AutoNorm-S"}
    assert len(gates) == 2 * 2 * 4 * 2                      # methods x epochs x blocks x sites per block
    assert gates.entropy.between(0, 0.6932).all()
