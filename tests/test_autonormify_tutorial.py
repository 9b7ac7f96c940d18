"The autonormify tutorial declares its papermill parameters and refuses unknown ones."

from pathlib import Path

import pytest

from autonorm_explorer.core.notebooks import notebook_parameters, run_notebook

NB = Path(__file__).resolve().parents[1] / "nbs" / "tutorials" / "autonormify_any_model.ipynb"


def test_parameters_cell_declares_sizes_and_out_dir():
    assert {"out_dir", "epochs", "n_train", "dim", "depth", "batch_size", "lr", "seed"} <= set(
        notebook_parameters(NB)
    )


def test_unknown_parameter_is_refused(tmp_path):
    with pytest.raises(ValueError, match="n_trian"):
        run_notebook(NB, tmp_path / "out.ipynb", {"n_trian": 10})
