"""The fuzz table of issue 23: bad inputs over the public entry points, each classified by what a user sees.

Every row is one bad input (`Fuzz`). `classify` runs it and answers one of:

- **clear**: a `ValueError`, `TypeError`, `FileExistsError` (or `FileNotFoundError`/`PermissionError` for a
  path) (a command line's one-line `error:` and
  exit status 2 counts too) whose message holds every string in `names` (the bad value, what is allowed);
  for an entry point that answers by printing (`check`), a printed answer that names them in at most
  `PRINT_LIMIT` characters;
- **unclear**: it fails, but with another exception or a message that does not name the bad value;
- **accepted**: nothing is refused; also a row that got as far as starting a kernel, a cell process or
  Voilà (`Launched`): the package let the bad input through to where the user pays for it;
- **data-loss**: a file the row's `guard` watches changed, whatever else happened.

Nothing here executes a notebook or starts a process: papermill's `execute_notebook`, the sweep's
executors and `os.execv` are replaced by stand-ins that record the launch (papermill's stand-in first
writes the output notebook, as papermill does, so output = input shows as data loss).

`python tests/fuzz_cases.py [--markdown FILE]` prints the counts per entry point.
Every row, autonormify's and block_rank_profile's included, must be clear (`tests/test_fuzz.py`).
"""
from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import nbformat

# FileNotFoundError and PermissionError count as clear too: they are the plain answer to a path that is
# missing or cannot be written, provided the message names the path (the `names` check still applies).
CLEAR = (ValueError, TypeError, FileExistsError, FileNotFoundError, PermissionError)
KINDS = ("clear", "unclear", "accepted", "data-loss")
PRINT_LIMIT = 400          # a printed answer longer than this echoes too much of what the learner typed


class Launched(Exception):
    "A stand-in for papermill, a cell process or Voilà was reached: the bad input was not stopped."


class CliError(ValueError):
    "A console command exited non-zero: its stderr (what the user reads) is the message."


@dataclass
class Fuzz:
    entry: str
    what: str
    call: Callable[[], Any]
    names: tuple[str, ...] = ()
    guard: Callable[[], Any] | None = None      # snapshot of what must not change (file bytes, folder listing)
    prints: bool = False                         # the entry point answers by printing (course.checking.check)

    def __str__(self):
        return f"{self.entry}: {self.what}"


# ------------------------------------------------------------------ stand-ins for what would start processes
@contextlib.contextmanager
def no_launch():
    "Replace papermill's execute_notebook, the sweep executors and os.execv by recorders that raise `Launched`."
    import papermill
    from autonorm_explorer.experiments import sweep
    saved = (papermill.execute_notebook, sweep.run_local, sweep.run_submitit, os.execv)

    def fake_pm(input_path, output_path, **kw):
        nb = nbformat.read(str(input_path), as_version=4)      # papermill writes the output notebook first
        nb.metadata["papermill"] = {"stand_in": True}
        Path(output_path).write_text(nbformat.writes(nb))
        raise Launched(f"papermill started on {input_path}")

    def fake_exec(*a, **k): raise Launched("the sweep started its cell processes")
    def fake_execv(*a): raise Launched(f"exec {a[0]}")
    papermill.execute_notebook, sweep.run_local, sweep.run_submitit, os.execv = fake_pm, fake_exec, fake_exec, fake_execv
    try:
        yield
    finally:
        papermill.execute_notebook, sweep.run_local, sweep.run_submitit, os.execv = saved


def classify(case: Fuzz) -> tuple[str, str]:
    "Run one row; return (kind, what was seen)."
    before = case.guard() if case.guard else None
    out = io.StringIO()
    kind, seen = None, ""
    with no_launch(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            result = case.call()
        except Launched as e:
            kind, seen = "accepted", f"launched: {e}"
        except CLEAR as e:
            text = str(e)
            ok = all(s in text for s in case.names)
            kind, seen = ("clear" if ok else "unclear"), f"{type(e).__name__}: {text[:300]}"
        except (Exception, SystemExit) as e:
            kind, seen = "unclear", f"{type(e).__name__}: {str(e)[:300]}"
        else:
            kind, seen = "accepted", f"returned {str(result)[:120]!r}"
    if case.prints and kind == "accepted":
        text = out.getvalue()
        ok = all(s in text for s in case.names) and len(text) <= PRINT_LIMIT
        kind, seen = ("clear" if ok else "unclear"), f"printed {len(text)} chars: {text[:200]!r}"
    if case.guard and case.guard() != before:
        kind, seen = "data-loss", f"guarded files changed ({seen})"
    return kind, seen


# ------------------------------------------------------------------ fixtures (a fresh temporary folder)
ROOT = Path(tempfile.mkdtemp(prefix="autonorm-fuzz-"))
# removed when the process ends (under pytest-xdist every worker imports this module, and only one runs its rows)
atexit.register(lambda: (os.path.isdir(ROOT / "read-only") and os.chmod(ROOT / "read-only", 0o755),
                         shutil.rmtree(ROOT, ignore_errors=True)))


def _notebook(path: Path, params: str = "lr = 0.1\nepochs: int = 2\nflag = True\nname = 'a'\nout_dir = '.'"):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(params, metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("assert epochs >= 1")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


NB = _notebook(ROOT / "user.ipynb")
NB_LINK = ROOT / "user-link.ipynb"
NB_LINK.symlink_to(NB)
NB_HARD = ROOT / "user-hard.ipynb"
os.link(NB, NB_HARD)
NB_BYTES = lambda: NB.read_bytes()                        # noqa: E731
OUT = ROOT / "out.ipynb"


def tree(folder: Path) -> Callable[[], dict]:
    "A guard: every file under `folder` with its bytes (a changed, added or removed file shows)."
    def snap():
        return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
                for p in sorted(folder.rglob("*"))} if folder.exists() else None
    return snap


def outside(folder: Path, name: str) -> Callable[[], bool]:
    "A guard: whether anything called `name` appeared in `folder` (a write outside the sweeps folder)."
    return lambda: sorted(str(p) for p in folder.rglob(name + "*"))


def grid(name: str, body: str, notebook: Path | None = None) -> Path:
    "A grid file over the fixture notebook (or the shipped experiment notebook)."
    d = ROOT / "grids"
    d.mkdir(exist_ok=True)
    p = d / f"{name}.toml"
    nbline = f'notebook = "{notebook or EXP_NB}"\n'
    p.write_text(nbline + body)
    return p


def _exp_nb() -> Path:
    from autonorm_explorer.core.resources import shipped_path
    return shipped_path("notebooks", "experiments", "autonorm_experiment.ipynb")


EXP_NB = _exp_nb()
BASE = 'datasets = ["digits"]\nmethods = ["autonorm"]\nseeds = [0]\n'


def cli(main_name: str):
    def go(*argv):
        import importlib
        mod, fn = main_name.rsplit(".", 1)
        main = getattr(importlib.import_module(mod), fn)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                status = main(list(argv))
            except SystemExit as e:
                status = e.code
        if status not in (0, None):
            raise CliError(f"exit {status}: {err.getvalue().strip()}")
        return status
    return go


sweep_cli = cli("autonorm_explorer.experiments.sweep.main")   # autonorm-sweep


def run_grid(path: Path, *more):
    out = ROOT / "sweeps" / path.stem
    return sweep_cli("run", str(path), "--out", str(out), *more)


app = cli("autonorm_explorer.web.app.app_main")
explorer_cli = cli("autonorm_explorer.core.cli.explorer_main")


def run_nb(*a, **k):
    "run_notebook as the sweep and the demo call it (autonorm_explorer.experiments registers the experiment's ranges)."
    import autonorm_explorer.experiments.runner  # noqa: F401
    from autonorm_explorer.core.notebooks import run_notebook
    return run_notebook(*a, **k)


def freezer(**k):
    from autonorm_explorer.norms.schedule import GateFreezer
    return GateFreezer(**k)


def freezer_epochs(epochs):
    "A GateFreezer fed the epoch numbers `epochs` in order on a tiny AutoNorm model."
    import torch
    from autonorm_explorer.norms.autonorm import AutoNorm
    from autonorm_explorer.norms.schedule import GateFreezer
    torch.manual_seed(0)
    m = torch.nn.Sequential(AutoNorm(4))
    f = GateFreezer(t_freeze=100)
    for e in epochs:
        m.train()
        m(torch.randn(3, 4))
        f.on_epoch_end(epoch=e, model=m)
    return f


def logger(**k):
    from autonorm_explorer.norms.gates import GateLogger
    return GateLogger(**k)


def logger_load(sd):
    logger().load_state_dict(sd)


def logger_epoch(path):
    import torch
    from autonorm_explorer.norms.autonorm import AutoNorm
    torch.manual_seed(0)
    lg = logger(path=path)
    m = torch.nn.Sequential(AutoNorm(4))
    m.train()
    m(torch.randn(3, 4))
    lg.on_epoch_end(epoch=1, model=m)


_EX = {}


def explorer():
    "One small rank explorer, computed inline, shared by the link rows."
    if "rank" not in _EX:
        from autonorm_explorer.explore.rank import RankExplorer
        _EX["rank"] = RankExplorer(background=False, width=16, depth=4)
    return _EX["rank"]


def from_query(qs, cls="Explorer"):
    from autonorm_explorer.explore import core, rank, gates  # noqa: F401  (subclasses register on import)
    klass = {"Explorer": core.Explorer, "RankExplorer": rank.RankExplorer, "GateExplorer": gates.GateExplorer}[cls]
    return klass.from_query(qs, background=False)


def set_base(base):
    explorer().set_link_base(base)
    return explorer().link()


def new_base(base):
    from autonorm_explorer.explore.rank import RankExplorer
    ex = RankExplorer(background=False, width=16, depth=4, link_base=base)
    try:
        return ex.link()
    finally:
        ex.close()


def grade(exercise_id, answer, **k):
    os.environ["AUTONORM_EXPLORER_PROGRESS"] = "off"
    from autonorm_explorer.course.checking import check, load_exercises
    load_exercises()
    return check(exercise_id, answer, **k)


def exp_config(**k):
    from autonorm_explorer.experiments.runner import ExperimentConfig
    return ExperimentConfig(**k)


def load(name, **k):
    from autonorm_explorer.data.loading import load_dataset
    return load_dataset(name, **{"root": str(ROOT / "data"), "download": False, **k})


def split(*a, **k):
    from autonorm_explorer.data.loading import seeded_split
    return seeded_split(*a, **k)


def resmlp(**k):
    from autonorm_explorer.rank.resmlp import ResMLPConfig
    return ResMLPConfig(**k)


def profile(*a, **k):
    from autonorm_explorer.rank.propagation import rank_profile
    from autonorm_explorer.rank.resmlp import ResMLPConfig
    return rank_profile(ResMLPConfig(width=8, depth=2), *a, **k)


def nify(**k):
    import torch.nn as nn
    from autonorm_explorer.norms.convert import autonormify
    m = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4))
    return autonormify(m, **k)


def brp(inputs, **k):
    import torch.nn as nn
    from autonorm_explorer.rank.blocks import block_rank_profile

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.f = nn.Linear(4, 4)

        def forward(self, x): return x + self.f(x)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block(), Block()])

        def forward(self, x):
            for b in self.blocks: x = b(x)
            return x
    return block_rank_profile(M(), inputs, **k)


def status(out):
    return sweep_cli("status", str(out))


def collect_cli(out, *more):
    return sweep_cli("collect", str(out), *more)


def _sweep_folder(name: str) -> Path:
    d = ROOT / "made" / name
    (d / "runs").mkdir(parents=True, exist_ok=True)
    return d


USER_FOLDER = ROOT / "user-folder"
USER_FOLDER.mkdir()
(USER_FOLDER / "thesis.tex").write_text("my thesis")
RO_FOLDER = ROOT / "read-only"
RO_FOLDER.mkdir()
(RO_FOLDER / "keep.txt").write_text("keep")
LINK_FOLDER = ROOT / "link-to-user-folder"
LINK_FOLDER.symlink_to(USER_FOLDER)
A_FILE = ROOT / "a-file.txt"
A_FILE.write_text("a user's file")


USER_DATA = ROOT / "user-data"
USER_DATA.mkdir()
(USER_DATA / "data.csv").write_text("my,measurements\n1,2\n")
REPO_NBS = Path(__file__).resolve().parents[1] / "nbs"


def demo(*argv):
    argv = argv if "--nbs" in argv else ("--nbs", str(REPO_NBS), *argv)
    return cli("autonorm_explorer.experiments.demo.demo_main")(*argv, "--no-experiments")


def _ro():
    os.chmod(RO_FOLDER, 0o555)


_ro()


# ------------------------------------------------------------------ the table
def _cases() -> list[Fuzz]:
    import torch
    C: list[Fuzz] = []
    add = lambda *a, **k: C.append(Fuzz(*a, **k))        # noqa: E731

    # run_notebook: output = input in every spelling, parameters against the parameters cell
    E = "run_notebook"
    add(E, "output path = input path", lambda: run_nb(NB, NB), (str(NB.name), "input"), guard=NB_BYTES)
    add(E, "output = input via a symlink", lambda: run_nb(NB, NB_LINK), ("input",), guard=NB_BYTES)
    add(E, "input via a symlink, output = its target", lambda: run_nb(NB_LINK, NB), ("input",), guard=NB_BYTES)
    add(E, "output = input via a hard link", lambda: run_nb(NB, NB_HARD), ("input",), guard=NB_BYTES)
    add(E, "output = input via a relative path with ..",
        lambda: run_nb(NB, ROOT / "grids" / ".." / NB.name), ("input",), guard=NB_BYTES)
    add(E, "output = input as a str", lambda: run_nb(str(NB), str(NB)), ("input",), guard=NB_BYTES)
    add(E, "output is an existing folder", lambda: run_nb(NB, USER_FOLDER), (str(USER_FOLDER),), guard=tree(USER_FOLDER))
    add(E, "output is None", lambda: run_nb(NB, None), ("out_path", "None"))
    add(E, "output is an int", lambda: run_nb(NB, 5), ("out_path", "5"))
    add(E, "output not .ipynb", lambda: run_nb(NB, ROOT / "out.txt"), ("out.txt", ".ipynb"))
    add(E, "input missing", lambda: run_nb(ROOT / "nope.ipynb", OUT), ("nope.ipynb",))
    add(E, "input is a folder", lambda: run_nb(ROOT, OUT), (str(ROOT), "folder"))
    add(E, "parameters a string", lambda: run_nb(NB, OUT, "epochs=1"), ("parameters", "dict"))
    add(E, "unknown parameter", lambda: run_nb(NB, OUT, {"lerning_rate": 1}), ("lerning_rate", "lr"))
    add(E, "int parameter 1.5", lambda: run_nb(NB, OUT, {"epochs": 1.5}), ("epochs", "1.5", "int"))
    add(E, "int parameter True", lambda: run_nb(NB, OUT, {"epochs": True}), ("epochs", "True", "int"))
    add(E, "int parameter as text", lambda: run_nb(NB, OUT, {"epochs": "3"}), ("epochs", "'3'", "int"))
    add(E, "float parameter as text", lambda: run_nb(NB, OUT, {"lr": "fast"}), ("lr", "'fast'", "float"))
    add(E, "bool parameter 'no'", lambda: run_nb(NB, OUT, {"flag": "no"}), ("flag", "'no'", "bool"))
    add(E, "bool parameter 0", lambda: run_nb(NB, OUT, {"flag": 0}), ("flag", "0", "bool"))
    add(E, "str parameter an int", lambda: run_nb(NB, OUT, {"name": 3}), ("name", "3", "str"))
    add(E, "experiment notebook epochs -1", lambda: run_nb(EXP_NB, OUT, {"epochs": -1}), ("epochs", "-1"))
    add(E, "experiment notebook unknown dataset", lambda: run_nb(EXP_NB, OUT, {"dataset": "imagenet"}),
        ("dataset", "imagenet", "digits"))
    add(E, "experiment notebook eps_h > ln 2", lambda: run_nb(EXP_NB, OUT, {"eps_h": 0.9}), ("eps_h", "0.9"))
    add(E, "experiment notebook freeze_entropy 'logit'",
        lambda: run_nb(EXP_NB, OUT, {"freeze_entropy": "logit"}), ("freeze_entropy", "logit", "logits"))
    add(E, "timeout negative", lambda: run_nb(NB, OUT, timeout=-1), ("timeout", "-1"))
    add(E, "timeout a string", lambda: run_nb(NB, OUT, timeout="10"), ("timeout", "'10'"))
    add(E, "kernel unknown", lambda: run_nb(NB, OUT, kernel_name="no-such-kernel"), ("no-such-kernel",))
    add(E, "log_output 'yes'", lambda: run_nb(NB, OUT, log_output="yes"), ("log_output", "'yes'"))
    add(E, "cwd a file", lambda: run_nb(NB, OUT, cwd=A_FILE), ("cwd", str(A_FILE)))

    # autonorm-sweep run and grid files
    E = "autonorm-sweep run"
    sweeps = ROOT / "sweeps"
    add(E, "grid name ../../x", lambda: run_grid(grid("escape", 'name = "../../escaped"\n' + BASE)),
        ("name", "../../escaped"), guard=outside(ROOT, "escaped"))
    add(E, "grid name absolute", lambda: sweep_cli("run", str(grid("absname", f'name = "{ROOT}/abs-x"\n' + BASE))),
        ("name",), guard=outside(ROOT, "abs-x"))
    add(E, "grid name empty", lambda: sweep_cli("run", str(grid("emptyname", 'name = ""\n' + BASE))), ("name", "''"))
    add(E, "grid name a number", lambda: run_grid(grid("numname", 'name = 5\n' + BASE)), ("name", "5"))
    add(E, "unknown dataset", lambda: run_grid(grid("ds", 'datasets = ["imagenet"]\nmethods = ["autonorm"]\nseeds=[0]\n')),
        ("imagenet", "digits"))
    add(E, "unknown method", lambda: run_grid(grid("m", 'datasets = ["digits"]\nmethods = ["batchnorm"]\nseeds=[0]\n')),
        ("batchnorm", "autonorm"))
    add(E, "epochs -1", lambda: run_grid(grid("ep", BASE + "[parameters]\nepochs = -1\n")), ("epochs", "-1"))
    add(E, "epochs 0", lambda: run_grid(grid("ep0", BASE + "[parameters]\nepochs = 0\n")), ("epochs", "0"))
    add(E, "freeze_entropy logit", lambda: run_grid(grid("fe", BASE + '[parameters]\nfreeze_entropy = "logit"\n')),
        ("freeze_entropy", "logit", "logits"))
    add(E, "eps_h 2", lambda: run_grid(grid("eps", BASE + "[parameters]\neps_h = 2.0\n")), ("eps_h", "2"))
    add(E, "tau 0", lambda: run_grid(grid("tau", BASE + "[parameters]\ntau = 0.0\n")), ("tau", "0"))
    add(E, "severity 9", lambda: run_grid(grid("sev", BASE + "[parameters]\nseverity = 9\n")), ("severity", "9"))
    add(E, "mix_prob 1.5", lambda: run_grid(grid("mix", BASE + "[parameters]\nmix_prob = 1.5\n")), ("mix_prob", "1.5"))
    add(E, "preset unknown", lambda: run_grid(grid("pre", BASE + '[parameters]\npreset = "huge"\n')), ("preset", "huge"))
    add(E, "device unknown", lambda: run_grid(grid("dev", BASE + '[parameters]\ndevice = "tpu"\n')), ("device", "tpu"))
    add(E, "bool parameter as string", lambda: run_grid(grid("bs", BASE + '[parameters]\naugment = "no"\n')),
        ("augment", "no"))
    add(E, "int parameter 1.5", lambda: run_grid(grid("i15", BASE + "[parameters]\nepochs = 1.5\n")), ("epochs", "1.5"))
    add(E, "[parameters] dataset (ignored today)", lambda: run_grid(grid("pd", BASE + '[parameters]\ndataset = "mnist"\n')),
        ("dataset",))
    add(E, "[parameters] method", lambda: run_grid(grid("pm", BASE + '[parameters]\nmethod = "film"\n')), ("method",))
    add(E, "[parameters] seed", lambda: run_grid(grid("ps", BASE + '[parameters]\nseed = 3\n')), ("seed",))
    add(E, "[parameters] out_dir", lambda: run_grid(grid("po", BASE + '[parameters]\nout_dir = "/tmp/x"\n')), ("out_dir",))
    add(E, "[[overrides]] seed (ignored today)", lambda: run_grid(grid("os", BASE + "[[overrides]]\nseed = 5\n")),
        ("seed",))
    add(E, "[[overrides]] dataset", lambda: run_grid(grid("od", BASE + '[[overrides]]\ndataset = "mnist"\n')), ("dataset",))
    add(E, "[[overrides]] unknown parameter", lambda: run_grid(grid("ou", BASE + '[[overrides]]\nlerning_rate = 1\n')),
        ("lerning_rate",))
    add(E, "[[overrides]] epochs -2", lambda: run_grid(grid("oe", BASE + '[[overrides]]\ntag = "a"\nepochs = -2\n')),
        ("epochs", "-2"))
    add(E, "override tag with a slash", lambda: run_grid(grid("ot", BASE + '[[overrides]]\ntag = "../../t"\nepochs = 2\n')),
        ("tag",), guard=outside(ROOT, "t-"))
    add(E, "dataset_parameters epochs -1",
        lambda: run_grid(grid("dpe", BASE + "[dataset_parameters.digits]\nepochs = -1\n")), ("epochs", "-1"))
    add(E, "method_parameters tau -1",
        lambda: run_grid(grid("mpe", BASE + "[method_parameters.autonorm]\ntau = -1.0\n")), ("tau", "-1"))
    add(E, "two problems in two cells reported at once",
        lambda: run_grid(grid("two", 'datasets = ["imagenet", "digits"]\nmethods = ["autonorm"]\nseeds=[0]\n'
                                     '[dataset_parameters.digits]\nepochs = -1\n')),
        ("has 2 problem(s)", "dataset='imagenet'", "epochs=-1"))
    add(E, "seed negative", lambda: run_grid(grid("sn", 'datasets = ["digits"]\nmethods = ["autonorm"]\nseeds=[-1]\n')),
        ("-1",))
    add(E, "seeds a string", lambda: run_grid(grid("ss", 'datasets = ["digits"]\nmethods = ["autonorm"]\nseeds="0"\n')),
        ("seeds",))
    add(E, "unknown top-level key", lambda: run_grid(grid("uk", BASE + 'epoch = 3\n')), ("epoch",))
    add(E, "--kernel missing", lambda: run_grid(grid("k", BASE), "--kernel", "no-such-kernel"), ("no-such-kernel",))
    add(E, "--gpus banana", lambda: run_grid(grid("g", BASE), "--gpus", "banana"), ("banana",))
    add(E, "--gpus ,,", lambda: run_grid(grid("g2", BASE), "--gpus", ",,"), ("--gpus",))
    add(E, "--gpus -1", lambda: run_grid(grid("g3", BASE), "--gpus", "-1"), ("-1",))
    add(E, "--set unknown", lambda: run_grid(grid("su", BASE), "--set", "lerning_rate=1"), ("lerning_rate",))
    add(E, "--set epochs=-1", lambda: run_grid(grid("se", BASE), "--set", "epochs=-1"), ("epochs", "-1"))
    add(E, "--set no =", lambda: run_grid(grid("sq", BASE), "--set", "epochs"), ("epochs", "key=value"))
    add(E, "--set seed", lambda: run_grid(grid("ssd", BASE), "--set", "seed=4"), ("seed",))
    add(E, "--workers 0", lambda: run_grid(grid("w", BASE), "--workers", "0"), ("0",))
    add(E, "--only matches nothing", lambda: run_grid(grid("on", BASE), "--only", "zzz*"), ("zzz",))
    add(E, "--out is a user's non-empty folder", lambda: sweep_cli("run", str(grid("uf", BASE)), "--out", str(USER_FOLDER)),
        (str(USER_FOLDER),), guard=tree(USER_FOLDER))
    add(E, "--out is a symlink to a user's folder",
        lambda: sweep_cli("run", str(grid("lf", BASE)), "--out", str(LINK_FOLDER)), ("link",), guard=tree(USER_FOLDER))
    add(E, "--out is read-only", lambda: sweep_cli("run", str(grid("ro", BASE)), "--out", str(RO_FOLDER)),
        (str(RO_FOLDER),), guard=tree(RO_FOLDER))
    add(E, "--out is a file", lambda: sweep_cli("run", str(grid("af", BASE)), "--out", str(A_FILE)),
        (str(A_FILE),), guard=lambda: A_FILE.read_bytes())
    add(E, "grid file missing", lambda: sweep_cli("run", str(ROOT / "none.toml")), ("none.toml",))
    add(E, "grid file torn TOML", lambda: sweep_cli("run", str(grid("torn", 'datasets = ["a"\n'))), ("torn.toml",))
    add(E, "grid file .json", lambda: sweep_cli("run", str(A_FILE)), (".toml",))
    add(E, "grid notebook missing", lambda: run_grid(grid("nm", BASE, ROOT / "missing.ipynb")), ("missing.ipynb",))
    add(E, "fixture notebook int param 1.5",
        lambda: run_grid(grid("fx", 'datasets=["a"]\nmethods=["x"]\nseeds=[0]\n[parameters]\nepochs = 1.5\n',
                              _notebook(ROOT / "fx.ipynb", "dataset = 'a'\nmethod = 'x'\nseed = 0\nepochs: int = 2\n"
                                        "out_dir = '.'"))), ("epochs", "1.5"))

    E = "autonorm-sweep status/collect"
    add(E, "status of a missing folder", lambda: status(ROOT / "no-such-sweep"), ("no-such-sweep",))
    add(E, "status of a file", lambda: status(A_FILE), (str(A_FILE),))
    add(E, "status of a user folder (no grid.json)", lambda: status(USER_FOLDER), (str(USER_FOLDER),))
    add(E, "collect of a missing folder", lambda: collect_cli(ROOT / "no-such-sweep"), ("no-such-sweep",))
    add(E, "collect into a user folder", lambda: collect_cli(USER_FOLDER), (str(USER_FOLDER),), guard=tree(USER_FOLDER))
    add(E, "collect --format xlsx", lambda: collect_cli(_sweep_folder("c1"), "--format", "xlsx"), ("xlsx",))
    add(E, "collect of a read-only sweep", lambda: collect_cli(RO_FOLDER), (str(RO_FOLDER),), guard=tree(RO_FOLDER))
    add(E, "status with no argument", lambda: sweep_cli("status"), ("out",))

    # GateFreezer / GateLogger
    E = "GateFreezer"
    add(E, "eps_h as text", lambda: freezer(eps_h="0.1"), ("eps_h", "'0.1'"))
    add(E, "eps_h as bytes", lambda: freezer(eps_h=b"0.1"), ("eps_h",))
    add(E, "eps_h True", lambda: freezer(eps_h=True), ("eps_h", "True"))
    add(E, "eps_h nan", lambda: freezer(eps_h=float("nan")), ("eps_h", "nan"))
    add(E, "eps_h 0", lambda: freezer(eps_h=0), ("eps_h", "0"))
    add(E, "t_freeze 1.5", lambda: freezer(t_freeze=1.5), ("t_freeze", "1.5"))
    add(E, "t_freeze True", lambda: freezer(t_freeze=True), ("t_freeze", "True"))
    add(E, "t_freeze 0", lambda: freezer(t_freeze=0), ("t_freeze", "0"))
    add(E, "drop_noise 'no'", lambda: freezer(drop_noise="no"), ("drop_noise", "'no'"))
    add(E, "freeze_entropy 'logit'", lambda: freezer(freeze_entropy="logit"), ("freeze_entropy", "logit", "logits"))
    add(E, "epochs going backwards", lambda: freezer_epochs([1, 2, 1]), ("epoch", "1", "2"))
    add(E, "epoch repeated", lambda: freezer_epochs([1, 1]), ("epoch", "1"))
    add(E, "epoch 0", lambda: freezer_epochs([0]), ("epoch", "0"))
    add(E, "epoch 2.5", lambda: freezer_epochs([2.5]), ("epoch", "2.5"))

    E = "GateLogger"
    add(E, "path is a folder", lambda: logger(path=USER_FOLDER), (str(USER_FOLDER), "folder"))
    add(E, "path is a symlink to a user file", lambda: logger(path=NB_LINK), (str(NB_LINK),), guard=NB_BYTES)
    add(E, "path is an existing user notebook (load_state_dict rewrites it)",
        lambda: logger(path=NB).load_state_dict({"steps": [], "epochs": []}), (str(NB),), guard=NB_BYTES)
    add(E, "path in a read-only folder", lambda: logger_epoch(RO_FOLDER / "g.jsonl"), (str(RO_FOLDER),),
        guard=tree(RO_FOLDER))
    add(E, "path an int", lambda: logger(path=5), ("path", "5"))
    add(E, "every 0", lambda: logger(every=0), ("every", "0"))
    add(E, "every 1.5", lambda: logger(every=1.5), ("every", "1.5"))
    add(E, "every True", lambda: logger(every=True), ("every", "True"))
    add(E, "load_state_dict steps an int", lambda: logger_load({"steps": 5, "epochs": []}), ("steps", "5"))
    add(E, "load_state_dict only steps", lambda: logger_load({"steps": 5}), ("epochs",))
    add(E, "load_state_dict rows not dicts", lambda: logger_load({"steps": [1, 2], "epochs": []}), ("steps",))
    add(E, "load_state_dict epochs a string", lambda: logger_load({"steps": [], "epochs": "abc"}), ("epochs", "abc"))
    add(E, "load_state_dict a list", lambda: logger_load([1, 2]), ("state",))

    # explorers' URL state
    E = "Explorer.from_query"
    add(E, "None", lambda: from_query(None), ("None",))
    add(E, "an int", lambda: from_query(5), ("5",))
    add(E, "double ?", lambda: from_query("explorer=rank?beta=2"), ("?",))
    add(E, "double ? in a full URL", lambda: from_query("http://h/app?explorer=rank?beta=2"), ("?",))
    add(E, "unknown explorer", lambda: from_query("explorer=nope"), ("nope", "rank"))
    add(E, "no explorer key", lambda: from_query("beta=2"), ("explorer",))
    add(E, "unknown key", lambda: from_query("explorer=rank&gamma=1"), ("gamma",))
    add(E, "beta a word", lambda: from_query("explorer=rank&beta=big"), ("beta", "big"))
    add(E, "beta nan", lambda: from_query("explorer=rank&beta=nan"), ("beta", "nan"))
    add(E, "repeated key", lambda: from_query("explorer=rank&beta=1&beta=2"), ("beta",))
    add(E, "RankExplorer given explorer=gate", lambda: from_query("explorer=gate", "RankExplorer"), ("gate", "rank"))
    add(E, "RankExplorer None", lambda: from_query(None, "RankExplorer"), ("None",))
    add(E, "preset unknown", lambda: from_query("explorer=rank&preset=zzz"), ("zzz",))
    add(E, "bytes", lambda: from_query(b"explorer=rank"), ("explorer=rank",))

    E = "Explorer link_base"
    add(E, "javascript: URL", lambda: set_base("javascript:alert(1)"), ("javascript:alert(1)", "http"))
    add(E, "JavaScript: mixed case", lambda: set_base("JavaScript:alert(1)"), ("JavaScript", "http"))
    add(E, "data: URL", lambda: set_base("data:text/html,hi"), ("data:text/html,hi", "http"))
    add(E, "file: URL", lambda: set_base("file:///etc/passwd"), ("file:///etc/passwd", "http"))
    add(E, "leading space javascript", lambda: set_base(" javascript:alert(1)"), ("javascript", "http"))
    add(E, "vbscript:", lambda: set_base("vbscript:x"), ("vbscript:x",))
    add(E, "a quote breaking the attribute", lambda: set_base('http://h/"><script>'), ('"',))
    add(E, "constructor javascript:", lambda: new_base("javascript:alert(1)"), ("javascript:alert(1)", "http"))
    add(E, "an int", lambda: set_base(5), ("link_base", "5"))
    add(E, "protocol-relative //evil", lambda: set_base("//evil.example/x"), ("//evil.example/x",))

    # course.checking.check
    E = "check"
    add(E, "10**400", lambda: grade("L1.1", 10**400), ("too large", "401 digits"), prints=True)
    add(E, "-10**400", lambda: grade("L1.1", -10**400), ("too large",), prints=True)
    add(E, "a 1 MB string", lambda: grade("L1.1", "x" * 2**20), ("str",), prints=True)
    add(E, "a 1 MB list", lambda: grade("L1.1", [1] * 2**18), ("list",), prints=True)
    add(E, "unknown exercise", lambda: grade("L99.9", 1), ("L99.9",))
    add(E, "exercise id an int", lambda: grade(11, 1), ("11",))
    add(E, "solution 'yes'", lambda: grade("L1.1", 1.8, solution="yes"), ("solution", "'yes'"))
    add(E, "nan", lambda: grade("L1.1", float("nan")), ("nan",), prints=True)
    add(E, "a deep recursive list", lambda: grade("L1.1", _deep()), ("list",), prints=True)

    # autonorm-explorer notebooks DEST
    E = "autonorm-explorer notebooks"
    add(E, "empty DEST", lambda: explorer_cli("notebooks", ""), ("''",), guard=lambda: sorted(os.listdir(".")))
    add(E, "DEST a file", lambda: explorer_cli("notebooks", str(A_FILE)), (str(A_FILE),), guard=lambda: A_FILE.read_bytes())
    add(E, "DEST a symlink to a user folder", lambda: explorer_cli("notebooks", str(LINK_FOLDER)), ("link",),
        guard=tree(USER_FOLDER))
    add(E, "DEST a user's non-empty folder", lambda: explorer_cli("notebooks", str(USER_FOLDER)), (str(USER_FOLDER),),
        guard=tree(USER_FOLDER))
    add(E, "DEST read-only", lambda: explorer_cli("notebooks", str(RO_FOLDER)), (str(RO_FOLDER),), guard=tree(RO_FOLDER))
    add(E, "DEST whitespace", lambda: explorer_cli("notebooks", "   "), ("'   '",))
    add(E, "no DEST", lambda: explorer_cli("notebooks"), ("DIR",))
    add(E, "unknown subcommand", lambda: explorer_cli("notebook", "x"), ("notebook",))

    # autonorm-app
    E = "autonorm-app"
    add(E, "--notebook README.md", lambda: app("--notebook", str(A_FILE)), (str(A_FILE), ".ipynb"))
    add(E, "--notebook missing", lambda: app("--notebook", str(ROOT / "none.ipynb")), ("none.ipynb",))
    add(E, "--notebook a folder", lambda: app("--notebook", str(ROOT)), (str(ROOT),))
    add(E, "--ip not an address", lambda: app("--ip", "not an address"), ("not an address",))
    add(E, "--ip empty", lambda: app("--ip", ""), ("--ip",))
    add(E, "--ip 999.1.1.1", lambda: app("--ip", "999.1.1.1"), ("999.1.1.1",))
    add(E, "--port 0", lambda: app("--port", "0"), ("port=0",))
    add(E, "--port 70000", lambda: app("--port", "70000"), ("70000",))
    add(E, "--port -5", lambda: app("--port", "-5"), ("-5",))
    add(E, "--port banana", lambda: app("--port", "banana"), ("banana",))
    add(E, "--cull-idle -1", lambda: app("--cull-idle", "-1"), ("cull_idle=-1",))
    add(E, "--cull-idle 0", lambda: app("--cull-idle", "0"), ("cull_idle=0",))

    # writers of folders: the demo's --out, an explorer's export
    E = "autonorm-demo"
    add(E, "--out a user's non-empty folder", lambda: demo("--out", str(USER_FOLDER)), (str(USER_FOLDER),),
        guard=tree(USER_FOLDER))
    add(E, "--out a symlink to a user's folder", lambda: demo("--out", str(LINK_FOLDER)), ("link",),
        guard=tree(USER_FOLDER))
    add(E, "--out a file", lambda: demo("--out", str(A_FILE)), (str(A_FILE),), guard=lambda: A_FILE.read_bytes())
    add(E, "--out read-only", lambda: demo("--out", str(RO_FOLDER)), (str(RO_FOLDER),), guard=tree(RO_FOLDER))
    add(E, "--nbs missing", lambda: demo("--nbs", str(ROOT / "no-nbs"), "--out", str(ROOT / "demo-new")), ("no-nbs",))
    add(E, "--kernel missing", lambda: demo("--kernel", "no-such-kernel", "--out", str(ROOT / "demo-k")),
        ("no-such-kernel",))
    E = "Explorer.export"
    add(E, "into a user folder holding data.csv", lambda: explorer().export(USER_DATA), (str(USER_DATA),),
        guard=tree(USER_DATA))
    add(E, "into a symlink to a user folder", lambda: explorer().export(LINK_FOLDER), ("link",), guard=tree(USER_FOLDER))
    add(E, "into a file", lambda: explorer().export(A_FILE), (str(A_FILE),), guard=lambda: A_FILE.read_bytes())
    add(E, "folder an int", lambda: explorer().export(5), ("5",))

    # ExperimentConfig
    E = "ExperimentConfig"
    add(E, "epochs 1.5", lambda: exp_config(epochs=1.5), ("epochs", "1.5"))
    add(E, "epochs True", lambda: exp_config(epochs=True), ("epochs", "True"))
    add(E, "seed '0'", lambda: exp_config(seed="0"), ("seed", "'0'"))
    add(E, "augment 'no'", lambda: exp_config(augment="no"), ("augment", "'no'"))
    add(E, "robustness 1", lambda: exp_config(robustness=1), ("robustness", "1"))
    add(E, "lr '1e-3'", lambda: exp_config(lr="1e-3"), ("lr", "'1e-3'"))
    add(E, "lr -1", lambda: exp_config(lr=-1.0), ("lr", "-1"))
    add(E, "lr nan", lambda: exp_config(lr=float("nan")), ("lr", "nan"))
    add(E, "warmup_frac 2", lambda: exp_config(warmup_frac=2.0), ("warmup_frac", "2"))
    add(E, "dataset unknown", lambda: exp_config(dataset="imagenet"), ("imagenet", "digits"))
    add(E, "method unknown", lambda: exp_config(method="batchnorm"), ("batchnorm", "autonorm"))
    add(E, "device 'tpu'", lambda: exp_config(device="tpu"), ("tpu",))
    add(E, "out_dir None", lambda: exp_config(out_dir=None), ("out_dir", "None"))
    add(E, "tau inf", lambda: exp_config(tau=float("inf")), ("tau", "inf"))
    add(E, "severity 0", lambda: exp_config(severity=0), ("severity", "0"))

    # data loaders
    E = "data loaders"
    add(E, "load_dataset unknown", lambda: load("imagenet"), ("imagenet", "digits"))
    add(E, "load_dataset split 'val'", lambda: load("digits", split="val"), ("val", "valid"))
    add(E, "load_dataset download 'no'", lambda: load("digits", download="no"), ("download", "'no'"))
    add(E, "load_dataset split_seed 1.5", lambda: load("digits", split_seed=1.5), ("split_seed", "1.5"))
    add(E, "load_dataset split_seed True", lambda: load("digits", split_seed=True), ("split_seed", "True"))
    add(E, "load_dataset valid_fraction 1", lambda: load("digits", valid_fraction=1.0), ("valid_fraction", "1"))
    add(E, "load_dataset valid_fraction '0.1'", lambda: load("digits", valid_fraction="0.1"), ("valid_fraction",))
    add(E, "load_dataset unknown option", lambda: load("digits", max_len=3), ("max_len",))
    add(E, "load_dataset root an int", lambda: _load_root(5), ("root", "5"))
    add(E, "seeded_split n -1", lambda: split(-1), ("n", "-1"))
    add(E, "seeded_split n 2.5", lambda: split(2.5), ("n", "2.5"))
    add(E, "seeded_split fractions summing to 1", lambda: split(10, 0.5, 0.5), ("1",))
    add(E, "seeded_split seed True", lambda: split(10, seed=True), ("seed", "True"))
    add(E, "seeded_split valid_fraction 'a'", lambda: split(10, "a"), ("valid_fraction", "'a'"))

    # rank_profile / ResMLPConfig
    E = "ResMLPConfig"
    add(E, "width 1.5", lambda: resmlp(width=1.5), ("width", "1.5"))
    add(E, "width True", lambda: resmlp(width=True), ("width", "True"))
    add(E, "depth '4'", lambda: resmlp(depth="4"), ("depth", "'4'"))
    add(E, "projection 'no'", lambda: resmlp(projection="no"), ("projection", "'no'"))
    add(E, "beta inf", lambda: resmlp(beta=float("inf")), ("beta", "inf"))
    add(E, "placement 'Pre'", lambda: resmlp(placement="Pre"), ("Pre", "pre"))
    add(E, "activation 'elu'", lambda: resmlp(activation="elu"), ("elu", "relu"))
    add(E, "expansion 0", lambda: resmlp(expansion=0), ("expansion", "0"))
    add(E, "eps -1", lambda: resmlp(eps=-1.0), ("eps", "-1"))
    add(E, "seed 2**64", lambda: resmlp(seed=2**64), ("seed",))
    add(E, "width 10**6 (memory)", lambda: resmlp(width=10**6, depth=10**3), ("width",))
    E = "rank_profile"
    add(E, "n_samples 1.5", lambda: profile(1.5), ("n_samples", "1.5"))
    add(E, "n_samples True", lambda: profile(True), ("n_samples", "True"))
    add(E, "n_samples 0", lambda: profile(0), ("n_samples", "0"))
    add(E, "n_jacobian_inputs > n", lambda: profile(4, 5), ("n_jacobian_inputs", "5"))
    add(E, "representation 'no'", lambda: profile(representation="no"), ("representation", "'no'"))
    add(E, "centered 1", lambda: profile(centered=1), ("centered", "1"))
    add(E, "seed -1", lambda: profile(seed=-1), ("seed", "-1"))
    add(E, "device 'tpu'", lambda: profile(device="tpu"), ("tpu",))

    # autonormify / block_rank_profile (fixed after the first table: bools, ints and finite inputs)
    E = "autonormify"
    add(E, "causal 'no'", lambda: nify(causal="no"), ("causal", "'no'"))
    add(E, "copy_affine 'no'", lambda: nify(copy_affine="no"), ("copy_affine", "'no'"))
    add(E, "batch_dim 1.5", lambda: nify(batch_dim=1.5), ("batch_dim", "1.5"))
    add(E, "batch_dim True", lambda: nify(batch_dim=True), ("batch_dim", "True"))
    add(E, "method unknown", lambda: nify(method="batchnorm"), ("batchnorm",))
    add(E, "targets holds a number", lambda: nify(targets=("layernorm", 3)), ("targets", "3"))
    E = "block_rank_profile"
    add(E, "NaN inputs", lambda: brp(torch.full((3, 4), float("nan"))), ("NaN",))
    add(E, "inf inputs", lambda: brp(torch.full((3, 4), float("inf"))), ("inf",))
    add(E, "jacobian 'no'", lambda: brp(torch.zeros(3, 4), jacobian="no"), ("jacobian", "'no'"))
    add(E, "chunk_size 1.5", lambda: brp(torch.zeros(3, 4), chunk_size=1.5), ("chunk_size", "1.5"))
    add(E, "jacobian_samples True", lambda: brp(torch.zeros(3, 4), jacobian_samples=True), ("jacobian_samples",))
    return C


def _deep():
    x = []
    for _ in range(2000): x = [x]
    return x


def _load_root(root):
    from autonorm_explorer.data.loading import load_dataset
    return load_dataset("digits", root=root, download=False)


CASES = _cases()


def run_table(cases=CASES) -> list[tuple[Fuzz, str, str]]:
    cwd = os.getcwd()
    work = ROOT / "cwd"
    work.mkdir(exist_ok=True)
    os.chdir(work)                     # rows that would write into "." write here, watched by their guard
    try:
        return [(c, *classify(c)) for c in cases]
    finally:
        os.chdir(cwd)


def counts(results) -> dict[str, Counter]:
    per = defaultdict(Counter)
    for c, kind, _ in results:
        per[c.entry][kind] += 1
    return per


def markdown(results, title: str) -> str:
    per = counts(results)
    lines = [f"# {title}", "", f"{len(results)} cases; kinds as `tests/fuzz_cases.py` classifies them.", "",
             "| entry point | " + " | ".join(KINDS) + " | cases |", "|---" * (len(KINDS) + 2) + "|"]
    total = Counter()
    for entry in sorted(per):
        total.update(per[entry])
        lines.append(f"| {entry} | " + " | ".join(str(per[entry][k]) for k in KINDS) + f" | {sum(per[entry].values())} |")
    lines.append("| **all** | " + " | ".join(str(total[k]) for k in KINDS) + f" | {sum(total.values())} |")
    lines += ["", "## Rows that are not clear", ""]
    lines += [f"- {c} → **{kind}**: {seen}".replace("\n", " ") for c, kind, seen in results if kind != "clear"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown", default=None)
    ap.add_argument("--title", default="Fuzz table")
    a = ap.parse_args()
    res = run_table()
    text = markdown(res, a.title)
    if a.markdown:
        Path(a.markdown).write_text(text)
    print(text.split("## Rows")[0])
    os.chmod(RO_FOLDER, 0o755)
    shutil.rmtree(ROOT, ignore_errors=True)
