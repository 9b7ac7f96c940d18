"""The sweep's Slurm path on a real Slurm (Debian's slurm-wlm, one node: this machine), not submitit's local executor.

`scripts/system_deps.sh` installs slurm-wlm and munge where it can (as root); `tests/slurm_cluster.py` starts a
private cluster in a temporary folder. Without the programs the tests skip on a laptop and fail under CI=true.

What is checked: the grid goes out as ONE job array whose tasks really run under Slurm (each cell records the
array's job id from its environment), `--max-running` caps how many run at once (the array's `%k`, and the
cells' own start/end times never overlap more than k), and a sweep whose submitter is killed and whose array is
cancelled midway resumes: finished cells are not run again, the others run in a new array, each cell once.
"""
import json, os, signal, subprocess, sys, time
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from autonorm_explorer.experiments.sweep import DONE
from slurm_cluster import LocalSlurm, missing_programs

BIN = Path(sys.executable).parent
MISSING = missing_programs()
if MISSING and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI=true but Slurm is not installed (missing {MISSING}); scripts/system_deps.sh installs it")
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"no Slurm here (missing {MISSING}): apt-get install slurm-wlm munge")


def _grid(folder: Path, sleep: float) -> Path:
    "A notebook that records when it ran and under which Slurm task, and a 4-cell grid of it."
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"dataset = 'a'\nmethod = 'x'\nseed = 0\nsleep = {sleep}\nout_dir = '.'",
                                          metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(
                    "import json, os, time, pathlib\nstart = time.time()\ntime.sleep(sleep)\n"
                    "pathlib.Path(out_dir, 'metrics.json').write_text(json.dumps(dict(score=100 * seed + len(dataset),"
                    " start=start, end=time.time(), task=os.environ.get('SLURM_ARRAY_TASK_ID'))))")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "fixture.ipynb")
    (folder / "grid.toml").write_text('name = "slurm"\nnotebook = "fixture.ipynb"\ndatasets = ["a", "bb"]\n'
                                      'methods = ["x"]\nseeds = [0, 1]\n')
    return folder / "grid.toml"


def _command(grid: Path, out: Path, max_running: int) -> list[str]:
    return [str(BIN / "autonorm-sweep"), "run", str(grid), "--out", str(out), "--executor", "submitit",
            "--cluster", "slurm", "--max-running", str(max_running), "--gpus-per-task", "0", "--cpus-per-task", "1",
            "--timeout-min", "10", "--kernel", "python3"]


def max_overlap(intervals: list[tuple[float, float]]) -> int:
    "The largest number of intervals (start, end) that are open at one instant."
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals], key=lambda t: (t[0], t[1]))
    now = best = 0
    for _, step in events:
        now += step
        best = max(best, now)
    return best


def test_max_overlap_counts_concurrent_intervals():
    assert max_overlap([(0, 1), (1, 2), (2, 3)]) == 1            # touching, not overlapping
    assert max_overlap([(0, 2), (1, 3), (1.5, 4), (5, 6)]) == 3
    assert max_overlap([]) == 0


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    with LocalSlurm(tmp_path_factory.mktemp("slurm")) as cluster:
        yield cluster


def _done(out: Path) -> dict:
    return {p.parent.name: json.loads(p.read_text()) for p in out.glob("runs/*/" + DONE)}


def _metrics(out: Path) -> dict:
    return {p.parent.name: json.loads(p.read_text()) for p in out.glob("runs/*/metrics.json")}


def test_job_array_with_max_running(slurm, tmp_path):
    grid, out = _grid(tmp_path, sleep=1.0), tmp_path / "sweep"
    r = subprocess.run(_command(grid, out, max_running=1), env=slurm.env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr + slurm.logs()
    done, metrics = _done(out), _metrics(out)
    assert sorted(done) == sorted(f"{d}-x-s{s}" for d in ("a", "bb") for s in (0, 1))
    job_ids = {info["slurm_job_id"] for info in done.values()}
    assert len(job_ids) == 1 and None not in job_ids, job_ids               # one array, run under Slurm
    assert sorted(m["task"] for m in metrics.values()) == ["0", "1", "2", "3"]
    script = next((out / "submitit").glob("*submission.sh")).read_text()
    assert "#SBATCH --array=0-3%1" in script, script                        # the cap, as Slurm was told it
    assert max_overlap([(m["start"], m["end"]) for m in metrics.values()]) == 1   # and as it ran
    df = pd.read_csv(out / "results.csv")
    assert (df.score == 100 * df.seed + df.dataset.str.len()).all() and len(df) == 4


def test_killed_and_cancelled_sweep_resumes(slurm, tmp_path):
    grid, out = _grid(tmp_path, sleep=2.0), tmp_path / "sweep"
    cmd = _command(grid, out, max_running=1)
    p = subprocess.Popen(cmd, env=slurm.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    t0 = time.time()
    while not _done(out):
        assert p.poll() is None, "the sweep ended before it could be killed:\n" + p.stdout.read() + slurm.logs()
        assert time.time() - t0 < 300, "no cell done after 300 s\n" + slurm.logs()
        time.sleep(0.2)
    os.killpg(p.pid, signal.SIGKILL)                       # the submitter dies...
    p.wait(timeout=30)
    first = _done(out)
    array = next(iter(first.values()))["slurm_job_id"]
    slurm.client("scancel", array)                         # ...and the allocation is lost
    t0 = time.time()
    while slurm.client("squeue", "-h", "-j", array, check=False).stdout.strip():
        assert time.time() - t0 < 60, "the cancelled array is still queued"
        time.sleep(0.5)
    first = _done(out)
    assert 1 <= len(first) < 4, first

    r = subprocess.run(cmd, env=slurm.env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr + slurm.logs()
    assert f"{len(first)} already done, {4 - len(first)} to run" in r.stdout, r.stdout
    done = _done(out)
    assert len(done) == 4
    for cell, info in first.items():                       # finished cells kept, not run again
        assert done[cell] == info
    resumed = {done[c]["slurm_job_id"] for c in done if c not in first}
    assert len(resumed) == 1 and array not in resumed, (array, resumed)   # the rest: one new array
    df = pd.read_csv(out / "results.csv")
    assert df.cell_id.is_unique and len(df) == 4
