"""A wheel built from this checkout works outside it.

The wheel is built from a copy of the checkout's files in a temporary folder (never into the repository) and
installed into a fresh virtual environment that is not the project's. That environment sees the project
venv's pinned packages through a folder of links that leaves out autonorm_explorer itself (its editable
install), and pip installs the wheel with `--no-index`: every dependency the wheel declares must already be
there at a version it accepts, so nothing is downloaded and a dependency missing from `pyproject.toml` shows
up as an import error below. Then, from a folder that is not the checkout, with the installed console
scripts: a one-cell grid with `autonorm-sweep`, a dataset's manifest entry, a tutorial with papermill, and
`autonorm-explorer notebooks DIR`. Last, an editable install of the same copy (what `make setup` does) finds
the same files through the links of `autonorm_explorer/shipped`.
"""
import json, os, shutil, subprocess, sys, sysconfig, zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def checkout_files() -> list[str]:
    "The files of the working tree that git tracks or would track (what a clean clone has, plus new files)."
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                         check=True).stdout
    return [f for f in out.decode().split("\0") if f]


def copy_checkout(dest: Path) -> Path:
    "Copy the checkout's files into `dest`, symlinks as symlinks (the shipped folder is made of them)."
    for rel in checkout_files():
        src, dst = ROOT / rel, dest / rel
        if not src.is_symlink() and not src.exists():
            continue                                   # deleted in the working tree, not yet committed
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
    return dest


def project_packages(farm: Path) -> Path:
    "A folder of links to the project venv's packages, autonorm_explorer (its editable install) and .pth files left out."
    farm.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.startswith(("autonorm_explorer", "__editable__")) or entry.suffix == ".pth":
            continue
        (farm / entry.name).symlink_to(entry)
    return farm


def fresh_venv(venv: Path, farm: Path) -> Path:
    "A fresh venv (no pip of its own) whose sys.path also holds `farm`; return its python."
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "project_packages.pth").write_text(f"{farm}\n")
    return py


def pip_install(py: Path, *args, cwd: Path):
    "pip (the project venv's) installing into the venv of `py`, offline: dependencies must already be there."
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-index",
                        "--no-build-isolation", *map(str, args)], capture_output=True, text=True, cwd=cwd,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def clean_env(venv: Path) -> dict:
    "The environment of a user of the installed package: its venv first on PATH, nothing pointing at the checkout."
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "JUPYTER_PATH", "JUPYTER_DATA_DIR", "AUTONORM_DATA")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    "Build the wheel, install it in a fresh venv; return what the tests need."
    work = tmp_path_factory.mktemp("wheel")
    src = copy_checkout(work / "src")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                    "-w", str(work / "dist"), str(src)], check=True, capture_output=True, cwd=work)
    wheel, = (work / "dist").glob("autonorm_explorer-*.whl")
    farm = project_packages(work / "project_packages")
    py = fresh_venv(work / "venv", farm)
    pip_install(py, wheel, cwd=work)
    env = clean_env(work / "venv")
    subprocess.run([str(py), "-m", "ipykernel", "install", "--sys-prefix", "--name", "autonorm-explorer"],
                   check=True, capture_output=True, env=env, cwd=work)
    user = work / "user"                                 # where the user works: not the checkout, no data/ folder
    user.mkdir()
    return dict(work=work, src=src, farm=farm, wheel=wheel, py=py, bin=work / "venv" / "bin", env=env, cwd=user)


def run(installed, *cmd, check=True, **kw):
    "Run a command of the installed venv from the user's folder."
    kw = {"env": installed["env"], "cwd": installed["cwd"], **kw}
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if check:
        assert r.returncode == 0, f"{cmd} exited {r.returncode}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def test_wheel_ships_the_manifest_and_the_notebooks(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    shipped = {n.removeprefix("autonorm_explorer/shipped/notebooks/") for n in names
               if n.startswith("autonorm_explorer/shipped/notebooks/")}
    assert "autonorm_explorer/shipped/manifest.json" in names
    want = {"experiments/autonorm_experiment.ipynb", "experiments/report.ipynb", "experiments/grids/paper.toml",
            "experiments/grids/cpu-small.toml", "tutorials/rank_claims.ipynb", "course/01_effective_rank.ipynb",
            "explorers.ipynb", "app.ipynb"}
    assert want <= shipped, want - shipped
    # exactly what resources.shipped_notebooks lists in the checkout (pyproject's patterns and NOTEBOOK_GLOBS agree)
    from autonorm_explorer.core.resources import shipped_notebooks
    assert shipped == {p.as_posix() for p in shipped_notebooks()}
    assert not any(".ipynb_checkpoints" in n or n.endswith(".notest") for n in names)


def test_wheel_ships_the_published_results(installed):
    "The committed results/ folder ships: a reader of the installed wheel, offline, reads the numbers the course quotes."
    from autonorm_explorer.core.resources import RESULTS_GLOBS
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    prefix = "autonorm_explorer/shipped/results/"
    shipped = {n.removeprefix(prefix) for n in names if n.startswith(prefix)}
    checkout = {p.relative_to(ROOT / "results").as_posix() for g in RESULTS_GLOBS for p in (ROOT / "results").glob(g)}
    assert "README.md" in checkout and any(n.endswith("/provenance.json") for n in checkout)
    assert shipped == checkout, shipped ^ checkout
    code = ("from autonorm_explorer.experiments.results import published_names, load_published\n"
            "names = published_names()\nprint(names)\n"
            "print(sum(len(load_published(n).results) for n in names))")
    out = run(installed, installed["py"], "-c", code).stdout.split("\n")
    from autonorm_explorer.experiments.results import published_names, load_published
    assert out[0] == str(published_names()), out
    assert int(out[1]) == sum(len(load_published(n).results) for n in published_names())


def test_imports_the_installed_wheel_not_the_checkout(installed):
    out = run(installed, installed["py"], "-c", "import autonorm_explorer as a; print(a.__file__)").stdout.strip()
    assert out.startswith(str(installed["work"] / "venv")), out
    kernel = json.loads((installed["work"] / "venv" / "share" / "jupyter" / "kernels" / "autonorm-explorer"
                         / "kernel.json").read_text())
    assert Path(kernel["argv"][0]).parent == installed["bin"]


def test_manifest_entry_from_the_package(installed):
    code = ("from autonorm_explorer.data.sources import manifest_entry, load_manifest\n"
            "print(manifest_entry('cifar10', 'cifar-10-binary.tar.gz')['size'])")
    assert run(installed, installed["py"], "-c", code).stdout.split() == ["170052171"]


def test_a_tiny_grid_with_autonorm_sweep(installed):
    grid = installed["cwd"] / "tiny.toml"   # no `notebook` key: the shipped experiment template
    grid.write_text('name = "tiny"\ndatasets = ["digits"]\nmethods = ["frozen_ln"]\nseeds = [0]\n\n[parameters]\n'
                    'epochs = 1\ndepth = 1\ndim = 16\nheads = 2\npatch_size = 4\ntrain_subset = 128\n'
                    'eval_subset = 64\naugment = false\nrobustness = false\nthreads = 1\n')
    run(installed, installed["bin"] / "autonorm-sweep", "run", grid, "--out", "sweep", "--workers", "1",
        "--kernel", "autonorm-explorer", timeout=240)
    rows = (installed["cwd"] / "sweep" / "results.csv").read_text().splitlines()
    assert len(rows) == 2 and "digits" in rows[1] and "frozen_ln" in rows[1], rows
    paper = run(installed, installed["py"], "-c",
                "from autonorm_explorer.experiments.sweep import load_grid; print(load_grid('paper').notebook)").stdout.strip()
    assert paper.startswith(str(installed["work"] / "venv")) and paper.endswith("autonorm_experiment.ipynb"), paper


def test_a_tutorial_with_papermill(installed):
    nb = run(installed, installed["py"], "-c", "from autonorm_explorer.core.resources import shipped_path; "
             "print(shipped_path('notebooks', 'tutorials', 'rank_of_real_transformers.ipynb'))").stdout.strip()
    env = {**installed["env"], "IN_TEST": "1"}          # the tutorial's own small sizes
    run(installed, installed["py"], "-m", "papermill", nb, "out.ipynb", "-k", "autonorm-explorer",
        "--engine", "autonorm",                         # the engine the wheel registers
        "-p", "text", "False", "-p", "out_dir", "tutorial", env=env, timeout=240)
    assert any((installed["cwd"] / "tutorial").iterdir())


def test_copy_the_notebooks(installed):
    exe = installed["bin"] / "autonorm-explorer"
    out = run(installed, exe, "notebooks", "mine").stdout
    assert "copied" in out and "mine" in out
    assert (installed["cwd"] / "mine" / "experiments" / "grids" / "paper.toml").is_file()
    again = run(installed, exe, "notebooks", "mine", check=False)
    assert again.returncode == 2 and "--force" in again.stderr
    run(installed, exe, "notebooks", "mine", "--force")


def test_editable_install_finds_the_same_files(installed):
    "`pip install -e .` (what make setup does) reads the shipped files through the links, from the checkout."
    work, src = installed["work"], installed["src"]
    py = fresh_venv(work / "editable_venv", installed["farm"])
    pip_install(py, "-e", src, cwd=work)
    code = ("from autonorm_explorer.core.resources import shipped_path, shipped_notebooks\n"
            "print(shipped_path('manifest.json').resolve())\nprint(len(shipped_notebooks()))\n"
            "print(shipped_path('notebooks', 'experiments', 'grids', 'paper.toml').resolve())")
    manifest, count, grid = run(installed, py, "-c", code).stdout.split()
    assert manifest == str((src / "data" / "manifest.json").resolve())
    assert grid == str((src / "nbs" / "experiments" / "grids" / "paper.toml").resolve())
    wheel_notebooks = [n for n in zipfile.ZipFile(installed["wheel"]).namelist() if "/shipped/notebooks/" in n]
    assert int(count) == len(wheel_notebooks)
