"Smoke tests: the package imports, its version is consistent, and its console scripts start."
import importlib.metadata, re, subprocess, sys
from pathlib import Path

import autonorm_explorer

ROOT = Path(__file__).resolve().parents[1]


def test_version_matches_installed_metadata():
    assert re.fullmatch(r"\d+\.\d+\.\d+", autonorm_explorer.__version__)
    assert importlib.metadata.version("autonorm_explorer") == autonorm_explorer.__version__


def test_no_settings_ini_nbdev3_reads_pyproject():
    # nbdev 3 refuses a bare settings.ini; the configuration lives in pyproject.toml
    assert not (ROOT / "settings.ini").exists()
    import tomllib
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["nbdev"]
    assert cfg["allowed_cell_metadata_keys"] == ["tags"]   # keeps papermill's `parameters` tag
    assert set(cfg["tst_flags"].split()) >= {"notest", "slow", "gpu"}


def test_demo_cli_help():
    exe = Path(sys.executable).with_name("autonorm-demo")
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=True).stdout
    assert "runs/demo" in out
