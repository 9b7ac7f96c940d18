"""Bad inputs of the harness: the trainer (`train`), one experiment run (`experiment`), the sweep and its
command line (`sweep`, `autonorm-sweep`), and the report functions (`report`).

Each row calls a public entry point with one bad argument and says what the message must name; the walker
(`tests/bad_inputs.py`) fails a row that is accepted silently, that surfaces an internal error, or whose
message does not name the value and the allowed ones. The command line answers with exit status 2 and one
line on stderr (argparse's convention). Nothing here trains or runs a notebook: every error comes before.
"""
import atexit, contextlib, io, math, shutil, sys, tempfile
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).parent))
from bad_inputs import Bad, case_ids, check  # noqa: E402

from autonorm_explorer.experiments.train import (ArrayData, EarlyStopping, TrainConfig, evaluate, fit, predict,  # noqa: E402
                                     task_monitors)
from autonorm_explorer.experiments.runner import (ExperimentConfig, corruption_functions, experiment_config,  # noqa: E402
                                          run_experiment, subset_split)
from autonorm_explorer.experiments.sweep import collect, expand_grid, load_grid, main, run_sweep, sweep_status  # noqa: E402
from autonorm_explorer.experiments.report import (chance_level, claims_vs_ours, comparability, crossing_epochs,  # noqa: E402
                                      describe_runs, entropy_curves, freeze_rule_decisions, leftover_placeholders,
                                      load_gate_logs, metric_range, paired_vs_baseline, task_family)

# ---- fixtures: tiny data and model, a sweep folder with a fixture notebook (written once, never executed)
DATA = ArrayData(torch.zeros(8, 3), torch.zeros(8, dtype=torch.long))
EMPTY = ArrayData(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long))
MODEL = nn.Linear(3, 2)
CFG = TrainConfig(epochs=1, progress="off")
ROOT = Path(tempfile.mkdtemp(prefix="bad-inputs-harness-"))
atexit.register(shutil.rmtree, ROOT, True)   # also in an xdist worker that imported this module but ran none of it


def _fixture_sweep(root: Path) -> Path:
    "A fixture notebook and grid (TOML) in `root`, and a prepared-looking sweep folder `root/sweep`."
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("dataset = 'a'\nmethod = 'x'\nseed = 0\nlr = 0.1\nout_dir = '.'",
                                          metadata={"tags": ["parameters"]})]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "fixture.ipynb")
    head = 'name = "t"\nnotebook = "fixture.ipynb"\ndatasets = ["a", "b"]\nmethods = ["x"]\nseeds = [0]\n'
    (root / "grid.toml").write_text(head)
    (root / "typed.toml").write_text(head + '[parameters]\nlr = "fast"\n')
    (root / "dsp.toml").write_text(head + '[dataset_parameters.c]\nlr = 0.2\n')
    (root / "msp.toml").write_text(head + '[method_parameters.y]\nlr = 0.2\n')
    (root / "torn.toml").write_text('datasets = ["a"\n')
    (root / "a_file").write_text("")
    (root / "not_a_sweep").mkdir()
    (root / "sweep" / "runs").mkdir(parents=True)
    return root / "grid.toml"


GRID = _fixture_sweep(ROOT)
RESULTS = pd.DataFrame(dict(dataset="fashion_mnist", method=["frozen_ln", "autonorm_s"], seed=0,
                            task="image_classification", test_accuracy=[0.9, 0.91], train_size=60000,
                            test_size=10000, epochs=200))
GATES = pd.DataFrame(dict(dataset="d", method="autonorm", seed=0, epoch=[1, 2], site="s", layer=0, n=10,
                          w_dyt=0.5, entropy=[0.5, 0.2], entropy_tau=[0.3, 0.1]))


class CliError(SystemExit):
    "What the command line printed on stderr, and its exit status (a SystemExit, as the console script ends)."
    def __init__(self, status, text):
        super().__init__(f"exit {status}: {text.strip()}")


def cli(*argv: str):
    "Run `autonorm-sweep argv...`; a non-zero exit (returned or raised by argparse) becomes a CliError."
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(list(argv))
        except SystemExit as e:
            status = e.code
    if status != 0:
        raise CliError(status, err.getvalue())
    return status


def run(*args: str):
    return cli("run", str(GRID), "--out", str(ROOT / "out"), *args)


TRAIN = [
    # TrainConfig: unknown choices, wrong types, out of range; checked at construction
    Bad("TrainConfig", "unknown device", lambda: TrainConfig(device="cdua"), ("device='cdua'", "cpu", "cuda")),
    Bad("TrainConfig", "device of a wrong type", lambda: TrainConfig(device=0), ("device=0", "str")),
    Bad("TrainConfig", "misspelled monitor", lambda: TrainConfig(monitor="val_acc"), ("'val_acc'", "'val_accuracy'")),
    Bad("TrainConfig", "monitor of another task", lambda: TrainConfig(monitor="val_rmse"),
        ("'val_rmse'", "'val_accuracy'")),
    Bad("TrainConfig", "unknown task", lambda: TrainConfig(task="translation"), ("'translation'", "regression")),
    Bad("TrainConfig", "unknown progress mode", lambda: TrainConfig(progress="quiet"), ("'quiet'", "'log'")),
    Bad("TrainConfig", "zero epochs", lambda: TrainConfig(epochs=0), ("epochs=0", "[1, inf)")),
    Bad("TrainConfig", "epochs as a string", lambda: TrainConfig(epochs="3"), ("epochs='3'", "integer")),
    Bad("TrainConfig", "zero batch size", lambda: TrainConfig(batch_size=0), ("batch_size=0", "[1, inf)")),
    Bad("TrainConfig", "lr as a string", lambda: TrainConfig(lr="1e-3"), ("lr='1e-3'", "Real")),
    Bad("TrainConfig", "NaN lr", lambda: TrainConfig(lr=float("nan")), ("lr=nan", "finite")),
    Bad("TrainConfig", "negative lr", lambda: TrainConfig(lr=-1.0), ("lr=-1.0", "[0, inf)")),
    Bad("TrainConfig", "infinite grad clip", lambda: TrainConfig(grad_clip=math.inf), ("grad_clip=inf", "finite")),
    Bad("TrainConfig", "warm-up over all steps", lambda: TrainConfig(warmup_frac=1.0), ("warmup_frac=1.0", "[0, 1)")),
    Bad("TrainConfig", "label smoothing 1", lambda: TrainConfig(label_smoothing=1.0),
        ("label_smoothing=1.0", "[0, 1)")),
    Bad("TrainConfig", "negative patience", lambda: TrainConfig(patience=-1), ("patience=-1", "[0, inf)")),
    Bad("TrainConfig", "negative seed", lambda: TrainConfig(seed=-1), ("seed=-1", "[0, 2147483647]")),
    Bad("TrainConfig", "bf16 as 'no'", lambda: TrainConfig(bf16="no"), ("bf16='no'", "True, False")),
    Bad("task_monitors", "unknown task", lambda: task_monitors("video"), ("'video'", "regression")),
    # fit: wrong objects, empty splits, callbacks, target statistics
    Bad("fit", "config as a dict", lambda: fit(MODEL, DATA, None, dict(epochs=1)),
        ("config={'epochs': 1}", "TrainConfig")),
    Bad("fit", "config as a string", lambda: fit(MODEL, DATA, None, "fast"), ("config='fast'", "TrainConfig")),
    Bad("fit", "model None", lambda: fit(None, DATA, None, CFG), ("model=None", "Module")),
    Bad("fit", "model as a string", lambda: fit("vit", DATA, None, CFG), ("model='vit'", "Module")),
    Bad("fit", "train None", lambda: fit(MODEL, None, None, CFG), ("train=None", "ArrayData")),
    Bad("fit", "train as a bare tensor", lambda: fit(MODEL, torch.zeros(8, 3), None, CFG), ("train=", "ArrayData")),
    Bad("fit", "val as a string", lambda: fit(MODEL, DATA, "test", CFG), ("val='test'", "ArrayData", "None")),
    Bad("fit", "empty training set", lambda: fit(MODEL, EMPTY, None, CFG), ("train has no rows",)),
    Bad("fit", "empty validation set", lambda: fit(MODEL, DATA, EMPTY, CFG), ("val has no rows",)),
    Bad("fit", "a callback class, not an instance", lambda: fit(MODEL, DATA, None, CFG, callbacks=[EarlyStopping]),
        ("callbacks[0]=EarlyStopping", "instance")),
    Bad("fit", "a callback without hooks", lambda: fit(MODEL, DATA, None, CFG, callbacks=[object()]),
        ("callbacks[0]=", "on_epoch_end", "on_step_end")),
    Bad("fit", "callbacks as a string", lambda: fit(MODEL, DATA, None, CFG, callbacks="early"),
        ("callbacks='early'", "list")),
    Bad("fit", "prepare not callable", lambda: fit(MODEL, DATA, None, CFG, prepare=5), ("prepare=5", "function")),
    Bad("fit", "out_dir of a wrong type", lambda: fit(MODEL, DATA, None, CFG, out_dir=5), ("out_dir=5", "str")),
    Bad("fit", "resume as 'yes'", lambda: fit(MODEL, DATA, None, CFG, resume="yes"), ("resume='yes'", "True")),
    Bad("fit", "zero target std", lambda: fit(MODEL, DATA, None, CFG, target_std=0.0), ("target_std=0.0", "(0, inf)")),
    Bad("fit", "NaN target mean", lambda: fit(MODEL, DATA, None, CFG, target_mean=float("nan")),
        ("target_mean=nan", "finite")),
    Bad("fit", "val_* monitor without a validation split",
        lambda: fit(MODEL, DATA, None, CFG, out_dir=ROOT / "fit"), ("monitor='val_loss'", "train_*")),
    # EarlyStopping
    Bad("EarlyStopping", "zero patience", lambda: EarlyStopping(0), ("patience=0", "[1, inf)")),
    Bad("EarlyStopping", "patience as a string", lambda: EarlyStopping("3"), ("patience='3'", "integer")),
    Bad("EarlyStopping", "misspelled monitor", lambda: EarlyStopping(2, "val_acc"), ("'val_acc'", "'val_accuracy'")),
    Bad("EarlyStopping", "monitor None", lambda: EarlyStopping(2, None), ("monitor=None", "str")),
    Bad("EarlyStopping", "negative min_delta", lambda: EarlyStopping(2, min_delta=-0.1),
        ("min_delta=-0.1", "[0, inf)")),
    Bad("EarlyStopping", "NaN min_delta", lambda: EarlyStopping(2, min_delta=float("nan")), ("min_delta=nan",)),
    # ArrayData, predict, evaluate
    Bad("ArrayData", "targets as a list", lambda: ArrayData(torch.zeros(2, 3), [0, 1]), ("targets=[0, 1]", "Tensor")),
    Bad("ArrayData", "an input that is not a tensor", lambda: ArrayData("pixels", torch.zeros(2)),
        ("inputs[0]='pixels'", "Tensor")),
    Bad("ArrayData", "inputs and targets of different lengths", lambda: ArrayData(torch.zeros(3, 1), torch.zeros(2)),
        ("inputs[0] has 3 rows", "targets has 2")),
    Bad("predict", "empty data", lambda: predict(MODEL, EMPTY), ("data has no rows",)),
    Bad("predict", "model None", lambda: predict(None, DATA), ("model=None", "Module")),
    Bad("predict", "zero batch size", lambda: predict(MODEL, DATA, batch_size=0), ("batch_size=0", "[1, inf)")),
    Bad("evaluate", "unknown task", lambda: evaluate(MODEL, DATA, "video"), ("task='video'", "regression")),
]

EXPERIMENT = [
    Bad("ExperimentConfig", "unknown dataset", lambda: ExperimentConfig(dataset="cifar11"), ("'cifar11'", "'cifar10'")),
    Bad("ExperimentConfig", "unknown method", lambda: ExperimentConfig(method="autonorm-s"),
        ("'autonorm-s'", "'autonorm_s'")),
    Bad("ExperimentConfig", "unknown preset", lambda: ExperimentConfig(preset="huge"), ("'huge'", "'paper'")),
    Bad("ExperimentConfig", "unknown device", lambda: ExperimentConfig(device="cdua"), ("device='cdua'", "cuda")),
    Bad("ExperimentConfig", "unknown freeze entropy", lambda: ExperimentConfig(freeze_entropy="gumbel"),
        ("'gumbel'", "'logits'")),
    Bad("ExperimentConfig", "eps_h above ln 2", lambda: ExperimentConfig(eps_h=0.9), ("eps_h=0.9", "(0, 0.693147]")),
    Bad("ExperimentConfig", "eps_h as a string", lambda: ExperimentConfig(eps_h="0.1"), ("eps_h='0.1'", "Real")),
    Bad("ExperimentConfig", "zero tau", lambda: ExperimentConfig(tau=0.0), ("tau=0.0", "(0, inf)")),
    Bad("ExperimentConfig", "mix_prob above 1", lambda: ExperimentConfig(mix_prob=2.0), ("mix_prob=2.0", "[0, 1]")),
    Bad("ExperimentConfig", "augment as 'no'", lambda: ExperimentConfig(augment="no"), ("augment='no'", "True")),
    Bad("ExperimentConfig", "robustness as 1", lambda: ExperimentConfig(robustness=1), ("robustness=1", "True")),
    Bad("ExperimentConfig", "drop_noise as 'False'", lambda: ExperimentConfig(drop_noise="False"),
        ("drop_noise='False'", "True")),
    Bad("ExperimentConfig", "zero epochs", lambda: ExperimentConfig(epochs=0), ("epochs=0", "[1, inf)")),
    Bad("ExperimentConfig", "negative seed", lambda: ExperimentConfig(seed=-1), ("seed=-1", "[0, inf)")),
    Bad("ExperimentConfig", "severity 6", lambda: ExperimentConfig(severity=6), ("severity=6", "[1, 5]")),
    Bad("ExperimentConfig", "negative threads", lambda: ExperimentConfig(threads=-1), ("threads=-1", "[0, inf)")),
    Bad("ExperimentConfig", "depth as a float", lambda: ExperimentConfig(depth=1.5), ("depth=1.5", "integer")),
    Bad("ExperimentConfig", "out_dir None", lambda: ExperimentConfig(out_dir=None), ("out_dir=None", "str")),
    Bad("ExperimentConfig", "lr as a string", lambda: ExperimentConfig(lr="fast"), ("lr='fast'", "Real")),
    Bad("ExperimentConfig", "negative weight decay", lambda: ExperimentConfig(weight_decay=-1e-4),
        ("weight_decay=-0.0001", "[0, inf)")),
    Bad("experiment_config", "parameters as a list", lambda: experiment_config(["dataset", "digits"]),
        ("params=['dataset', 'digits']", "Mapping")),
    Bad("experiment_config", "misspelled parameter", lambda: experiment_config({"methd": "frozen_ln"}),
        ("'methd'", "'method'")),
    Bad("run_experiment", "a dataset name instead of a config", lambda: run_experiment("digits"),
        ("cfg='digits'", "ExperimentConfig")),
    Bad("subset_split", "negative size", lambda: subset_split(None, -1), ("n=-1", "[0, inf)")),
    Bad("corruption_functions", "severity 0", lambda: corruption_functions(0), ("severity=0", "[1, 5]")),
]

SWEEP = [
    # the command line: argparse-style exit status 2 and a line that names the value
    Bad("autonorm-sweep run", "--workers 0", lambda: run("--workers", "0"), ("exit 2", "--workers", "'0'", ">= 1")),
    Bad("autonorm-sweep run", "--workers -2", lambda: run("--workers", "-2"), ("exit 2", "'-2'", ">= 1")),
    Bad("autonorm-sweep run", "--workers not a number", lambda: run("--workers", "two"), ("exit 2", "'two'")),
    Bad("autonorm-sweep run", "--max-running 0", lambda: run("--max-running", "0"),
        ("exit 2", "--max-running", ">= 1")),
    Bad("autonorm-sweep run", "--timeout-min 0", lambda: run("--timeout-min", "0"), ("exit 2", "--timeout-min")),
    Bad("autonorm-sweep run", "--cpus-per-task 0", lambda: run("--cpus-per-task", "0"), ("exit 2", "--cpus-per-task")),
    Bad("autonorm-sweep run", "--gpus-per-task -1", lambda: run("--gpus-per-task", "-1"), ("exit 2", ">= 0")),
    Bad("autonorm-sweep run", "unknown executor", lambda: run("--executor", "slurm"), ("exit 2", "'slurm'", "'local'")),
    Bad("autonorm-sweep run", "--only matching no cell", lambda: run("--only", "digits-*"),
        ("exit 2", "only='digits-*' matches none", "a-x-s0")),
    Bad("autonorm-sweep run", "--set without '='", lambda: run("--set", "epochs"), ("exit 2", "'epochs'", "key=value")),
    Bad("autonorm-sweep run", "--set of a wrong type", lambda: run("--set", "lr=fast"),
        ("exit 2", "lr='fast' is a str", "float")),
    Bad("autonorm-sweep run", "--out inside a file", lambda: cli("run", str(GRID), "--out", str(ROOT / "a_file" / "s")),
        ("exit 2", "a_file", "cannot be written")),
    Bad("autonorm-sweep run", "unknown grid name", lambda: cli("run", "papr"), ("exit 2", "'papr'", "paper")),
    Bad("autonorm-sweep run", "truncated grid file", lambda: cli("run", str(ROOT / "torn.toml")),
        ("exit 2", "torn.toml is not valid TOML")),
    Bad("autonorm-sweep run", "a grid parameter of a wrong type", lambda: cli("run", str(ROOT / "typed.toml")),
        ("exit 2", "lr='fast' is a str", "float")),
    Bad("autonorm-sweep run", "dataset_parameters for a dataset not in the grid",
        lambda: cli("run", str(ROOT / "dsp.toml")), ("exit 2", "'c'", "'a', 'b'")),
    Bad("autonorm-sweep run", "method_parameters for a method not in the grid",
        lambda: cli("run", str(ROOT / "msp.toml")), ("exit 2", "'y'", "'x'")),
    Bad("autonorm-sweep status", "missing folder", lambda: cli("status", str(ROOT / "nowhere")),
        ("exit 2", "nowhere", "does not exist")),
    Bad("autonorm-sweep status", "a folder that is not a sweep", lambda: cli("status", str(ROOT / "not_a_sweep")),
        ("exit 2", "not_a_sweep", "not a sweep folder")),
    Bad("autonorm-sweep collect", "missing folder", lambda: cli("collect", str(ROOT / "nowhere")),
        ("exit 2", "nowhere", "does not exist")),
    Bad("autonorm-sweep collect", "unknown format", lambda: cli("collect", str(ROOT / "sweep"), "--format", "xlsx"),
        ("exit 2", "'xlsx'", "'csv'")),
    Bad("autonorm-sweep", "unknown command", lambda: cli("launch"), ("exit 2", "'launch'", "'run'")),
    # the same through the Python API
    Bad("run_sweep", "workers=0", lambda: run_sweep(GRID, ROOT / "out", workers=0), ("workers=0", "[1, inf)")),
    Bad("run_sweep", "unknown executor", lambda: run_sweep(GRID, ROOT / "out", executor="slurm"),
        ("'slurm'", "'submitit'")),
    Bad("run_sweep", "only matching no cell", lambda: run_sweep(GRID, ROOT / "out", only="z*"),
        ("only='z*'", "a-x-s0")),
    Bad("load_grid", "grid None", lambda: load_grid(None), ("grid=None", "str")),
    Bad("expand_grid", "a grid file name instead of a Grid", lambda: expand_grid(str(GRID), ROOT),
        ("grid=", "Grid", "load_grid")),
    Bad("collect", "missing folder", lambda: collect(ROOT / "nowhere"), ("nowhere", "does not exist")),
    Bad("collect", "unknown format", lambda: collect(ROOT / "sweep", fmt="xlsx"), ("'xlsx'", "'parquet'")),
    Bad("sweep_status", "missing folder", lambda: sweep_status(ROOT / "nowhere"), ("nowhere", "does not exist")),
]

REPORT = [
    Bad("load_gate_logs", "missing folder", lambda: load_gate_logs(ROOT / "nowhere"), ("nowhere", "does not exist")),
    Bad("load_gate_logs", "a folder that is not a sweep", lambda: load_gate_logs(ROOT / "not_a_sweep"),
        ("not a sweep folder",)),
    Bad("claims_vs_ours", "a path instead of the results", lambda: claims_vs_ours("runs/sweeps/x"),
        ("results='runs/sweeps/x'", "DataFrame")),
    Bad("claims_vs_ours", "no runs", lambda: claims_vs_ours(RESULTS.iloc[:0]), ("results has no runs",)),
    Bad("claims_vs_ours", "results without the run keys", lambda: claims_vs_ours(RESULTS.drop(columns="seed")),
        ("lacks the columns seed",)),
    Bad("claims_vs_ours", "alpha 0", lambda: claims_vs_ours(RESULTS, alpha=0.0), ("alpha=0.0", "(0, 1)")),
    Bad("claims_vs_ours", "claims without their columns", lambda: claims_vs_ours(RESULTS, claims=pd.DataFrame()),
        ("claims lacks the columns", "claimed")),
    Bad("paired_vs_baseline", "baseline None", lambda: paired_vs_baseline(RESULTS, None), ("baseline=None", "str")),
    Bad("paired_vs_baseline", "no runs", lambda: paired_vs_baseline(RESULTS.iloc[:0]), ("results has no runs",)),
    Bad("describe_runs", "unknown metric", lambda: describe_runs([0.9], "test_acc"), ("'test_acc'", "'test_accuracy'")),
    Bad("describe_runs", "no values", lambda: describe_runs([]), ("empty",)),
    Bad("describe_runs", "NaN value", lambda: describe_runs([float("nan")]), ("NaN",)),
    Bad("describe_runs", "negative digits", lambda: describe_runs([0.9], digits=-1), ("digits=-1", "[0, inf)")),
    Bad("metric_range", "unknown metric", lambda: metric_range("acc"), ("'acc'", "corruption_")),
    Bad("comparability", "NaN training size", lambda: comparability("mnist", float("nan"), 3),
        ("train_size=nan", "finite")),
    Bad("comparability", "epochs as a string", lambda: comparability("mnist", 60000, "200"), ("epochs='200'",)),
    Bad("chance_level", "zero classes", lambda: chance_level(0), ("num_classes=0", "[1, inf)")),
    Bad("task_family", "unknown task", lambda: task_family("video"), ("'video'", "'regression'")),
    Bad("entropy_curves", "gates None", lambda: entropy_curves(None), ("gates=None", "DataFrame")),
    Bad("entropy_curves", "gate log without w_dyt", lambda: entropy_curves(GATES.drop(columns="w_dyt")),
        ("gates lacks the columns w_dyt", "load_gate_logs")),
    Bad("crossing_epochs", "eps_h 0", lambda: crossing_epochs(GATES, 0.0), ("eps_h=0.0", "(0, 0.693147]")),
    Bad("crossing_epochs", "gate log without entropies", lambda: crossing_epochs(GATES[["dataset", "method"]], 0.1),
        ("lacks the columns seed, epoch, entropy",)),
    Bad("freeze_rule_decisions", "t_freezes as one number", lambda: freeze_rule_decisions(GATES, 3),
        ("t_freezes=3", "list")),
    Bad("freeze_rule_decisions", "unknown entropy column", lambda: freeze_rule_decisions(GATES, [1], column="H"),
        ("column='H'", "'entropy_tau'")),
    Bad("freeze_rule_decisions", "T beyond the log", lambda: freeze_rule_decisions(GATES, [5]),
        ("t_freeze=5", "last logged epoch 2")),
    Bad("freeze_rule_decisions", "gate log without sample counts", lambda: freeze_rule_decisions(
        GATES.drop(columns="n"), [1]), ("lacks the columns n",)),
    Bad("leftover_placeholders", "text None", lambda: leftover_placeholders(None), ("text=None", "str")),
]

CASES = TRAIN + EXPERIMENT + SWEEP + REPORT


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bad_input(case):
    check(case)


def test_collect_on_a_missing_folder_creates_nothing():
    with pytest.raises(CliError):
        cli("collect", str(ROOT / "never"))
    assert not (ROOT / "never").exists()


def test_good_inputs_still_work():
    "The checks refuse only what is wrong: the same entry points with good values."
    assert TrainConfig(device=torch.device("cpu"), monitor="val_accuracy").device == "cpu"
    assert EarlyStopping(2, "val_token_accuracy", min_delta=0.01).mode == "max"
    assert ExperimentConfig(dataset="digits", method="frozen_ln", depth=2).depth == 2
    assert [c.cell_id for c in expand_grid(load_grid(GRID), ROOT / "out")] == ["a-x-s0", "b-x-s0"]
    assert cli("status", str(ROOT / "sweep")) == 0
    assert len(claims_vs_ours(RESULTS)) == 2


def teardown_module():
    shutil.rmtree(ROOT, ignore_errors=True)
