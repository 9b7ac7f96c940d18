"""Sweeps: a 2-worker local sweep killed with SIGKILL midway and resumed ends with every result exactly once;
the submitit path runs with submitit's local executor.

The notebook is a fixture written here (it sleeps, then writes metrics.json from its parameters); the code
under test is `autonorm_explorer.experiments.sweep` and its console script `autonorm-sweep`.
"""
import json, os, signal, subprocess, sys, time
from pathlib import Path

import nbformat
import pandas as pd

from autonorm_explorer.experiments.sweep import run_sweep, sweep_status, DONE

BIN = Path(sys.executable).parent


def _fixture(folder: Path, sleep: float, name: str = "kill") -> Path:
    """A notebook that sleeps, then writes metrics.json (a score that is a closed form of its parameters, when it
    ran, and its Slurm array task if any; `fail=True` makes it raise), and a 4-cell grid of it. The Slurm tests
    use it too."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"dataset = 'a'\nmethod = 'x'\nseed = 0\nsleep = {sleep}\nfail = False\n"
                                          "out_dir = '.'", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(
                    "import json, os, time, pathlib\nstart = time.time()\ntime.sleep(sleep)\n"
                    "assert not fail, 'this cell was asked to fail'\n"
                    "pathlib.Path(out_dir, 'metrics.json').write_text(json.dumps(dict(score=100 * seed + len(dataset),"
                    " start=start, end=time.time(), task=os.environ.get('SLURM_ARRAY_TASK_ID'))))")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "fixture.ipynb")
    (folder / "grid.toml").write_text(f'name = "{name}"\nnotebook = "fixture.ipynb"\ndatasets = ["a", "bb"]\n'
                                      'methods = ["x"]\nseeds = [0, 1]\n')
    return folder / "grid.toml"


def _attempts(out: Path, cell: str) -> int:
    return (out / "logs" / f"{cell}.log").read_text().count("=== attempt")


def test_local_sweep_killed_and_resumed(tmp_path):
    grid = _fixture(tmp_path, sleep=0.5); out = tmp_path / "sweep"
    cmd = [str(BIN / "autonorm-sweep"), "run", str(grid), "--out", str(out), "--workers", "2", "--kernel", "python3"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    t0 = time.time()
    while len(list(out.glob("runs/*/" + DONE))) < 2:
        assert p.poll() is None, "the sweep finished before it could be killed:\n" + p.stdout.read()
        assert time.time() - t0 < 240, "fewer than 2 cells done after 240 s"
        time.sleep(0.1)
    os.killpg(p.pid, signal.SIGKILL); p.wait(timeout=30)
    time.sleep(2.0)                                           # orphaned kernels notice their dead parent and exit
    done_before = {d.parent.name: d.read_text() for d in out.glob("runs/*/" + DONE)}
    assert 2 <= len(done_before) < 4, done_before
    assert not (out / "results.csv").exists()                 # killed before collecting

    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(done_before)} already done, {4 - len(done_before)} to run" in r.stdout, r.stdout

    df = pd.read_csv(out / "results.csv")
    assert sorted(df.cell_id) == sorted(f"{d}-x-s{s}" for d in ("a", "bb") for s in (0, 1))   # each exactly once
    assert df.cell_id.is_unique and len(df) == 4
    assert (df.score == 100 * df.seed + df.dataset.str.len()).all()
    for cell, stamp in done_before.items():                   # finished cells were not run again
        assert (out / "runs" / cell / DONE).read_text() == stamp
        assert _attempts(out, cell) == 1
    assert sum(_attempts(out, c) for c in df.cell_id) >= 4
    assert (sweep_status(out).status == "done").all()


def test_submitit_local_executor(tmp_path):
    import submitit  # noqa: F401  (dev extra: a missing install must fail, not skip)
    grid = _fixture(tmp_path, sleep=0.0)
    df = run_sweep(grid, tmp_path / "sw", executor="submitit", cluster="local", kernel_name="python3",
                   only="a-x-s0", timeout_min=5, verbose=False)
    assert sorted(df.cell_id) == ["a-x-s0"]
    jobs = json.loads((tmp_path / "sw" / "submitit" / "jobs.json").read_text())
    assert len(jobs) == 1 and all(j["job_id"] for j in jobs)
    # a second submission finds nothing left to do
    df2 = run_sweep(grid, tmp_path / "sw", executor="submitit", cluster="local", kernel_name="python3",
                    only="a-x-s0", verbose=False)
    assert len(df2) == 1


def test_sweep_cli_help_and_bad_grid(tmp_path):
    out = subprocess.run([str(BIN / "autonorm-sweep"), "run", "--help"], capture_output=True, text=True, check=True).stdout
    assert "--workers" in out and "--executor" in out and "fmnist-cpu" in " ".join(out.split()).replace("- ", "-")
    (tmp_path / "g.yaml").write_text("datasets: [a]\nmethods: [x]\nseeds: [0]\nepochs: 3\n")
    r = subprocess.run([str(BIN / "autonorm-sweep"), "run", str(tmp_path / "g.yaml")], capture_output=True, text=True)
    assert r.returncode == 2 and "key in grid file g.yaml='epochs' is not allowed" in r.stderr


def test_every_shipped_grid_expands_to_valid_experiments(tmp_path):
    "A wrong-typed or misspelled parameter in a shipped grid fails here, not inside each cell's log."
    from autonorm_explorer.experiments.runner import experiment_config
    from autonorm_explorer.experiments.sweep import expand_grid, load_grid, shipped_grids_dir
    names = sorted(p.stem for p in shipped_grids_dir().glob("*.toml"))
    assert {"nlp-cpu", "vision-cpu", "paper", "cpu-small"} <= set(names)
    sizes = {}
    for name in names:
        cells = expand_grid(load_grid(name), tmp_path / name)
        for c in cells:
            experiment_config(c.parameters)
        sizes[name] = len(cells)
    assert sizes["nlp-cpu"] == 2 * 5 * 5 and sizes["vision-cpu"] == 2 * 5 * 5 and sizes["paper"] == 315
