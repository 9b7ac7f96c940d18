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
    # tags: papermill's `parameters` and the course's cell tags; jupyter: collapsed solution cells
    assert cfg["allowed_cell_metadata_keys"] == ["tags", "jupyter"]
    assert set(cfg["tst_flags"].split()) >= {"notest", "slow", "gpu"}


def test_console_scripts_start_and_name_themselves():
    """Every `[project.scripts]` entry imports, answers `--help` with its own name as `prog`, and exits 0.
    Read from pyproject.toml, not from the installed metadata, so a renamed entry point fails here at once
    (tests/test_wheel_install.py runs the installed scripts)."""
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    code = ("import contextlib, importlib, io, json, sys\n"
            "out = {}\n"
            "for name, target in json.loads(sys.argv[1]).items():\n"
            "    mod, fn = target.split(':')\n"
            "    buf = io.StringIO()\n"
            "    with contextlib.redirect_stdout(buf):\n"
            "        try: getattr(importlib.import_module(mod), fn)(['--help'])\n"
            "        except SystemExit as e: out[name] = [e.code, buf.getvalue()]\n"
            "print(json.dumps(out))")
    import json
    r = subprocess.run([sys.executable, "-c", code, json.dumps(scripts)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    helped = json.loads(r.stdout.splitlines()[-1])
    assert sorted(helped) == sorted(scripts)
    for name, (code_, text) in helped.items():
        assert code_ == 0 and text.startswith(f"usage: {name}"), (name, code_, text[:200])
    assert "runs/demo" in helped["autonorm-demo"][1]


def test_nbdev_clean_keeps_tags_and_collapsed_solutions(tmp_path):
    """nbdev-clean with the project's config must keep `tags` (else papermill silently runs defaults, and the
    course's predict/exercise/solution cells cannot be found) and `jupyter` (a solution stays collapsed)."""
    import json, shutil, nbformat
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "nbs").mkdir()
    nb = nbformat.v4.new_notebook()
    hidden = {"source_hidden": True, "outputs_hidden": True}
    nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"], "collapsed": True}),
                nbformat.v4.new_code_cell("y = 2", metadata={"tags": ["solution"], "jupyter": hidden,
                                                             "scrolled": True})]
    nbformat.write(nb, tmp_path / "nbs" / "p.ipynb")
    exe = Path(sys.executable).with_name("nbdev-clean")
    subprocess.run([str(exe), "--fname", str(tmp_path / "nbs" / "p.ipynb")], cwd=tmp_path, check=True, capture_output=True)
    cells = json.loads((tmp_path / "nbs" / "p.ipynb").read_text())["cells"]
    assert cells[0]["metadata"] == {"tags": ["parameters"]}     # tags kept, other cell metadata removed
    assert cells[1]["metadata"] == {"tags": ["solution"], "jupyter": hidden}


def test_committed_notebooks_carry_no_outputs():
    "Executed copies live under runs/; the sources in nbs/ stay small and diffable."
    import nbformat
    with_outputs = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "nbs").rglob("*.ipynb"))
                    if ".ipynb_checkpoints" not in p.parts
                    and any(c.get("outputs") for c in nbformat.read(p, 4).cells if c.cell_type == "code")]
    assert not with_outputs, f"notebooks committed with outputs (clear them): {with_outputs}"


def test_generated_modules_compile_without_warnings():
    "nbdev copies module descriptions into __init__'s docstring: LaTeX backslashes there become invalid escapes."
    import warnings
    for path in sorted((ROOT / "autonorm_explorer").rglob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
