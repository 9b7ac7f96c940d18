"""Bad inputs of the explorers (widget_core, widgets, gate_widgets) and of `rank_profile`, in kinds.

Every explorer's constructor, `from_config`, `from_query`, `apply`, `load_preset`; control values out of range,
NaN, of the wrong type or unknown; settings whose weights cannot fit; Export into a folder that cannot be written;
`rank_profile` / `rank_profile_steps` given a string, wrong weights, wrong sample counts, a size that cannot fit.
Explorers here compute inline (`background=False`) and small; the whole table runs in a few seconds."""
import json
import math
import sys
from functools import lru_cache
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from bad_inputs import Bad, case_ids, check  # noqa: E402

from autonorm_explorer.explore.gates import FreezeExplorer, GateExplorer  # noqa: E402
from autonorm_explorer.rank.propagation import rank_profile, rank_profile_steps  # noqa: E402
from autonorm_explorer.rank.resmlp import ResMLPConfig, sample_weights  # noqa: E402
from autonorm_explorer.explore.core import Explorer  # noqa: E402
from autonorm_explorer.explore.rank import PathExplorer, RankExplorer, ThresholdExplorer  # noqa: E402

SMALL = dict(RankExplorer=dict(width=16, depth=4), ThresholdExplorer=dict(width=16, trials=1),
             PathExplorer=dict(width=8, depth=4), GateExplorer=dict(samples=200),
             FreezeExplorer=dict(depth=1, dim=16, train_size=32, epochs=1, t_freeze=1))
CLASSES = dict(RankExplorer=RankExplorer, ThresholdExplorer=ThresholdExplorer, PathExplorer=PathExplorer,
               GateExplorer=GateExplorer, FreezeExplorer=FreezeExplorer)
UNWRITABLE = "/proc/autonorm-explorer-export"       # /proc refuses new folders, also for root


@lru_cache(maxsize=None)
def live(name: str) -> Explorer:
    "One small explorer per class, drawn once, shared by the rows that call its methods."
    ex = CLASSES[name](background=False, **SMALL[name])
    return ex


def shown(make):
    "Build the explorer; raise what its status line says if the computation failed there (what the user reads)."
    ex = make()
    try:
        if ex.error: raise ValueError(ex.error)
    finally: ex.close()


def drawn_gate() -> GateExplorer:
    ex = live("GateExplorer")
    assert ex.data is not None
    return ex


def export_unwritable(name: str):
    "Export of a drawn view into a folder that cannot be created; the status line must say so too."
    ex = drawn_gate() if name == "GateExplorer" else live(name)
    try: ex.export(UNWRITABLE)
    finally:
        if UNWRITABLE not in ex.status_html.value: raise AssertionError(f"status line: {ex.status_html.value!r}")


def freeze_drawn() -> FreezeExplorer:
    "A FreezeExplorer that shows a (tiny) finished run, so Export has something to write."
    ex = live("FreezeExplorer")
    if ex.data is None or not len(ex.data["history"]):
        ex.start()
        assert ex.wait(120), ex.error
    return ex


CFG = ResMLPConfig(width=16, depth=3)
CASES = []

# ---------------------------------------------------------------- every explorer: the shared entry points
for name, cls in CLASSES.items():
    key = cls.PARAMS[0].key
    CASES += [
        Bad(f"{name}()", "unknown setting", lambda cls=cls: cls(background=False, colour=3), ("'colour'", key)),
        Bad(f"{name}.from_config", "not JSON", lambda cls=cls: cls.from_config("{beta: 1"),
            ("not valid JSON", "to_config()")),
        Bad(f"{name}.from_config", "a list instead of an object", lambda cls=cls: cls.from_config("[1, 2]"),
            ("[1, 2]", "JSON object")),
        Bad(f"{name}.from_config", "another explorer's config",
            lambda cls=cls: cls.from_config(json.dumps(dict(explorer="NoSuchExplorer"))),
            ("'NoSuchExplorer'", repr(cls.__name__))),
        Bad(f"{name}.from_config", "unknown key", lambda cls=cls: cls.from_config(json.dumps(dict(colour=1))),
            ("'colour'", key)),
        Bad(f"{name}.from_query", "unknown preset", lambda cls=cls: cls.from_query("preset=nope"),
            ("'nope'",) + tuple(repr(p) for p in list(cls.PRESETS)[:1])),
        Bad(f"{name}.from_query", "unknown key", lambda cls=cls: cls.from_query("colour=red"), ("colour",)),
        Bad(f"{name}.apply", "unknown key", lambda name=name: live(name).apply(colour=1), ("'colour'", key)),
        Bad(f"{name}.load_preset", "unknown preset", lambda name=name: live(name).load_preset("nope"),
            ("'nope'",) + tuple(repr(p) for p in list(CLASSES[name].PRESETS)[:1])),
        Bad(f"{name}.load_preset", "preset given as a number", lambda name=name: live(name).load_preset(3), ("3",)),
    ]
CASES += [Bad("Explorer.from_query", "unknown explorer", lambda: Explorer.from_query("explorer=nope"),
              ("'nope'", "'rank'"))]

# ---------------------------------------------------------------- control values
CASES += [
    Bad("RankExplorer()", "β ≤ 0", lambda: RankExplorer(background=False, beta=0.0), ("beta=0.0", "[0.01, 10]")),
    Bad("RankExplorer()", "β = NaN", lambda: RankExplorer(background=False, beta=math.nan), ("beta=nan",)),
    Bad("RankExplorer()", "β = inf", lambda: RankExplorer(background=False, beta=math.inf), ("beta=inf",)),
    Bad("RankExplorer()", "β as text", lambda: RankExplorer(background=False, beta="1"), ("beta='1'", "wrong type")),
    Bad("RankExplorer()", "unknown placement", lambda: RankExplorer(background=False, placement="mid"),
        ("placement='mid'", "'pre'", "'post'")),
    Bad("RankExplorer()", "depth not an integer", lambda: RankExplorer(background=False, depth=2.5),
        ("depth=2.5", "integer")),
    Bad("RankExplorer()", "width beyond the slider", lambda: RankExplorer(background=False, width=1024),
        ("width=1024", "[8, 512]")),
    Bad("RankExplorer()", "projection as text 'no'", lambda: RankExplorer(background=False, projection="no"),
        ("projection='no'", "true or false")),
    Bad("RankExplorer()", "weights that cannot fit (status line)",
        lambda: shown(lambda: RankExplorer(background=False, width=512, depth=256, expansion=8.0)),
        ("width=512, depth=256, m/d=8", "8.0 GiB", "allowed")),
    Bad("RankExplorer.apply", "β < 0", lambda: live("RankExplorer").apply(beta=-1.0), ("beta=-1.0", "[0.01, 10]")),
    Bad("RankExplorer.apply", "seed negative", lambda: live("RankExplorer").apply(seed=-1), ("seed=-1",)),
    Bad("ThresholdExplorer()", "q ≤ 0", lambda: ThresholdExplorer(background=False, q=0.0), ("q=0.0", "[0.1, 10]")),
    Bad("ThresholdExplorer()", "unknown activation", lambda: ThresholdExplorer(background=False, activation="elu"),
        ("activation='elu'", "'relu'")),
    Bad("ThresholdExplorer()", "no trials", lambda: ThresholdExplorer(background=False, trials=0), ("trials=0",)),
    Bad("PathExplorer()", "width beyond the DP's range", lambda: PathExplorer(background=False, width=128),
        ("width=128", "[8, 64]")),
    Bad("PathExplorer()", "unknown method", lambda: PathExplorer(background=False, method="dp"),
        ("method='dp'", "'exact'", "'probe'")),
    Bad("GateExplorer()", "τ = 0", lambda: GateExplorer(background=False, tau=0.0), ("tau=0.0", "[0.05, 5]")),
    Bad("GateExplorer()", "τ < 0", lambda: GateExplorer(background=False, tau=-0.5), ("tau=-0.5",)),
    Bad("GateExplorer()", "τ = NaN", lambda: GateExplorer(background=False, tau=math.nan), ("tau=nan",)),
    Bad("GateExplorer()", "gap = inf", lambda: GateExplorer(background=False, gap=math.inf), ("gap=inf",)),
    Bad("GateExplorer()", "unknown gate mode", lambda: GateExplorer(background=False, mode="medium"),
        ("mode='medium'", "'soft'", "'hard'")),
    Bad("GateExplorer.apply", "τ = 0", lambda: live("GateExplorer").apply(tau=0.0), ("tau=0.0", "[0.05, 5]")),
    Bad("FreezeExplorer()", "ε_H = 0", lambda: FreezeExplorer(background=False, eps_h=0.0), ("eps_h=0.0", "0.693")),
    Bad("FreezeExplorer()", "ε_H above ln 2", lambda: FreezeExplorer(background=False, eps_h=0.8),
        ("eps_h=0.8", "0.693")),
    Bad("FreezeExplorer()", "ε_H = NaN", lambda: FreezeExplorer(background=False, eps_h=math.nan), ("eps_h=nan",)),
    Bad("FreezeExplorer()", "T_freeze beyond epochs", lambda: FreezeExplorer(background=False, t_freeze=9, epochs=6),
        ("t_freeze=9 is beyond epochs=6", "[1, 6]")),
    Bad("FreezeExplorer()", "unknown dataset", lambda: FreezeExplorer(background=False, dataset="cifar11"),
        ("dataset='cifar11'", "'digits'")),
    Bad("FreezeExplorer()", "unknown method", lambda: FreezeExplorer(background=False, method="adanorm"),
        ("method='adanorm'", "'autonorm_s'")),
    Bad("FreezeExplorer()", "τ ≤ 0", lambda: FreezeExplorer(background=False, tau=0.0), ("tau=0.0",)),
    Bad("FreezeExplorer.apply", "T_freeze beyond epochs", lambda: live("FreezeExplorer").apply(t_freeze=5),
        ("t_freeze=5 is beyond epochs=1", "[1, 1]")),
]

# ---------------------------------------------------------------- Export into a folder that cannot be written
for name in ("RankExplorer", "ThresholdExplorer", "PathExplorer", "GateExplorer"):
    CASES.append(Bad(f"{name}.export", "unwritable folder", lambda name=name: export_unwritable(name),
                     (UNWRITABLE, "allowed: a folder you can write to")))
CASES.append(Bad("FreezeExplorer.export", "unwritable folder",
                 lambda: (freeze_drawn(), export_unwritable("FreezeExplorer")),
                 (UNWRITABLE, "allowed: a folder you can write to")))

# ---------------------------------------------------------------- rank_profile
CASES += [
    Bad("rank_profile", "config as a string", lambda: rank_profile("width=16"), ("'width=16'", "ResMLPConfig")),
    Bad("rank_profile", "config is None", lambda: rank_profile(None), ("None", "ResMLPConfig")),
    Bad("rank_profile", "weights as a tensor", lambda: rank_profile(CFG, weights=torch.zeros(3)),
        ("weights=", "Tensor", "ResMLPWeights")),
    Bad("rank_profile", "weights of another depth", lambda: rank_profile(CFG, weights=sample_weights(
        ResMLPConfig(width=16, depth=2))), ("depth=2", "depth=3")),
    Bad("rank_profile", "n_samples as text", lambda: rank_profile(CFG, n_samples="128"), ("n_samples='128'",)),
    Bad("rank_profile", "n_samples fractional", lambda: rank_profile(CFG, n_samples=1.5), ("n_samples=1.5",)),
    Bad("rank_profile", "n_samples None", lambda: rank_profile(CFG, n_samples=None), ("n_samples=None",)),
    Bad("rank_profile", "n_samples = 0", lambda: rank_profile(CFG, n_samples=0), ("n_samples=0",)),
    Bad("rank_profile", "more Jacobian inputs than samples", lambda: rank_profile(CFG, n_samples=4,
        n_jacobian_inputs=5), ("n_jacobian_inputs=5", "[0, 4]")),
    Bad("rank_profile", "n_samples that cannot fit", lambda: rank_profile(CFG, n_samples=10**9),
        ("n_samples=1000000000", "GiB", "allowed")),
    Bad("rank_profile", "a width that cannot fit", lambda: rank_profile(ResMLPConfig(width=20000, depth=64)),
        ("width=20000", "GiB", "allowed")),
    Bad("rank_profile", "representation as text", lambda: rank_profile(CFG, representation="no"),
        ("representation='no'", "True, False")),
    Bad("rank_profile", "unknown device", lambda: rank_profile(CFG, device="gpu0"), ("device='gpu0'",)),
    Bad("rank_profile_steps", "unknown Jacobian spectrum", lambda: rank_profile_steps(CFG, jacobian_spectrum="qr"),
        ("jacobian_spectrum='qr'", "'svd'", "'gram'")),
    Bad("rank_profile_steps", "config as a dict", lambda: rank_profile_steps(dict(width=16)),
        ("ResMLPConfig",)),
]


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bad_input(case):
    check(case)


def test_good_inputs_still_work():
    "The explorers the table shares draw, and `rank_profile` runs, with good inputs."
    for name in CLASSES:
        if name != "FreezeExplorer": assert live(name).data is not None and live(name).error is None, name
    assert len(rank_profile(CFG, n_samples=8)) == 4


def teardown_module():
    for name in CLASSES:
        if live.cache_info().currsize: live(name).close()
