"""The sweep's Slurm path on a real Slurm (Debian's slurm-wlm, one node: this machine), not submitit's local executor.

`scripts/system_deps.sh` installs slurm-wlm and munge where it can (as root); `tests/slurm_cluster.py` starts a
private cluster in a temporary folder. Without the programs the tests skip on a laptop and fail under CI=true.

What is checked: the grid goes out as ONE job array whose tasks really run under Slurm (each cell records the
array's job id from its environment); `--max-running` caps how many run at once (the array's `%k`, squeue polled
while it runs, and the cells' own start/end times never overlap more than k); a sweep whose submitter is killed
and whose array is cancelled midway resumes: finished cells are not run again, the others run in a new array,
each cell once; a node (slurmd) killed and restarted mid-array loses no cell; `--no-wait` returns at once and
`status`/`collect` follow the array; a failing cell names its task's stdout/stderr files. Every finished sweep's
table equals what an uninterrupted one gives (each cell's score is a closed form of its parameters).
"""
import json, os, signal, subprocess, sys, time
from pathlib import Path

import pandas as pd
import pytest

from autonorm_explorer.experiments.sweep import DONE
from slurm_cluster import LocalSlurm, missing_programs
from test_harness_sweep import _fixture

BIN = Path(sys.executable).parent
MISSING = missing_programs()
if MISSING and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI=true but Slurm is not installed (missing {MISSING}); scripts/system_deps.sh installs it")
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"no Slurm here (missing {MISSING}): apt-get install slurm-wlm munge")


def _grid(folder: Path, sleep: float) -> Path:
    "The sweep tests' fixture notebook (it records when it ran and under which Slurm task) and its 4-cell grid."
    return _fixture(folder, sleep, name="slurm")


def _command(grid: Path, out: Path, max_running: int, *extra: str) -> list[str]:
    return [str(BIN / "autonorm-sweep"), "run", str(grid), "--out", str(out), "--executor", "submitit",
            "--cluster", "slurm", "--max-running", str(max_running), "--gpus-per-task", "0", "--cpus-per-task", "1",
            "--timeout-min", "10", "--kernel", "python3", *extra]


def _check_table(out: Path) -> pd.DataFrame:
    "results.csv has each of the 4 cells once, with the score an uninterrupted sweep gives."
    df = pd.read_csv(out / "results.csv")
    assert sorted(df.cell_id) == sorted(f"{d}-x-s{s}" for d in ("a", "bb") for s in (0, 1)), df.cell_id
    assert (df.score == 100 * df.seed + df.dataset.str.len()).all(), df[["cell_id", "score"]]
    return df


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


def _run_polling(slurm, cmd: list[str], timeout_s: float = 600) -> tuple[subprocess.CompletedProcess, list[int]]:
    "Run `cmd`, polling squeue's running count every 0.2 s until it ends."
    p = subprocess.Popen(cmd, env=slurm.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    counts, t0 = [], time.time()
    while p.poll() is None:
        assert time.time() - t0 < timeout_s, "the sweep did not finish\n" + slurm.logs()
        counts.append(slurm.running())
        time.sleep(0.2)
    return subprocess.CompletedProcess(cmd, p.returncode, p.stdout.read(), ""), counts


def test_job_array_with_max_running(slurm, tmp_path):
    grid, out = _grid(tmp_path, sleep=1.0), tmp_path / "sweep"
    r, running = _run_polling(slurm, _command(grid, out, max_running=1))
    assert r.returncode == 0, r.stdout + slurm.logs()
    assert max(running) == 1, running                                      # squeue: one task at a time, and some
    done, metrics = _done(out), _metrics(out)
    assert sorted(done) == sorted(f"{d}-x-s{s}" for d in ("a", "bb") for s in (0, 1))
    job_ids = {info["slurm_job_id"] for info in done.values()}
    assert len(job_ids) == 1 and None not in job_ids, job_ids               # one array, run under Slurm
    assert sorted(m["task"] for m in metrics.values()) == ["0", "1", "2", "3"]
    script = next((out / "submitit").glob("*submission.sh")).read_text()
    assert "#SBATCH --array=0-3%1" in script, script                        # the cap, as Slurm was told it
    assert max_overlap([(m["start"], m["end"]) for m in metrics.values()]) == 1   # and as the cells ran
    _check_table(out)


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
    _check_table(out)


def test_node_restarted_mid_array(slurm, tmp_path):
    grid, out = _grid(tmp_path, sleep=2.0), tmp_path / "sweep"
    cmd = _command(grid, out, max_running=1)
    p = subprocess.Popen(cmd, env=slurm.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t0 = time.time()
    while not _done(out):
        assert p.poll() is None and time.time() - t0 < 300, "no cell done before the restart\n" + slurm.logs()
        time.sleep(0.2)
    slurm.restart_node()                                   # mid-array: one cell running, two pending
    try:
        rc = p.wait(timeout=300)
    except subprocess.TimeoutExpired:                      # a task lost with the node: stop waiting, resume
        p.kill()
        rc = p.wait()
    print(f"node restarted mid-array: the running sweep ended with exit status {rc}")
    if rc != 0:
        r = subprocess.run(cmd, env=slurm.env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr + slurm.logs()
    assert len(_done(out)) == 4
    _check_table(out)


def test_no_wait_then_status_and_collect(slurm, tmp_path):
    grid, out = _grid(tmp_path, sleep=1.0), tmp_path / "sweep"
    t0 = time.time()
    r = subprocess.run(_command(grid, out, 2, "--no-wait"), env=slurm.env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "submitted 4 cells to slurm" in r.stdout, r.stdout
    assert len(_done(out)) < 4, "--no-wait waited for the whole array"     # 4 cells of >= 1 s, 2 at a time
    status = [str(BIN / "autonorm-sweep"), "status", str(out)]
    while len(_done(out)) < 4:
        assert time.time() - t0 < 300, subprocess.run(status, capture_output=True, text=True).stdout + slurm.logs()
        time.sleep(0.5)
    st = subprocess.run(status, capture_output=True, text=True, timeout=60)
    assert st.returncode == 0 and st.stdout.count(" done") >= 4, st.stdout
    c = subprocess.run([str(BIN / "autonorm-sweep"), "collect", str(out)], capture_output=True, text=True, timeout=60)
    assert c.returncode == 0 and "4 finished cells" in c.stdout, c.stdout + c.stderr
    _check_table(out)


def test_failing_cell_names_its_task_output(slurm, tmp_path):
    grid, out = _grid(tmp_path, sleep=0.0), tmp_path / "sweep"
    r = subprocess.run(_command(grid, out, 1, "--only", "a-x-s0", "--set", "fail=True"), env=slurm.env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith("failed: a-x-s0"))
    assert "this cell was asked to fail" in line, line
    paths = [w.rstrip(",;)") for w in line.split() if "/submitit/" in w]
    assert len(paths) == 2 and all(Path(p).is_file() for p in paths), line   # the task's stdout and stderr
    assert (out / "runs" / "a-x-s0" / "FAILED").is_file() or "error in full" in line
