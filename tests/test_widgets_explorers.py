"""Headless tests of the explorers: drive the controls by setting `.value`, as the front end would, and check
that the plotted data moves the way the paper says (oracle: the rank tools called directly, and the claims
of the claims table (TR-n) as inequalities). Small widths keep the whole file to a few seconds."""
import json, threading, time

import numpy as np
import pandas as pd
import pytest

from autonorm_explorer.explore.rank import RankExplorer, ThresholdExplorer, PathExplorer, rank_summary, RANK_PRESET_BASE
from autonorm_explorer.rank.propagation import rank_profile

SMALL = dict(width=32)


def drawn(ex, key):
    return np.asarray(ex.current[key].get_ydata(), float)


@pytest.fixture(scope="module")
def rank():
    ex = RankExplorer(**SMALL, depth=64)
    assert ex.wait(120), ex.error
    return ex


def test_rank_plots_what_rank_profile_computes(rank):
    rank.apply(**RANK_PRESET_BASE, **SMALL); assert rank.wait(120)
    ref = rank_profile(*rank.profile_args(rank.settings), seed=0)
    np.testing.assert_allclose(drawn(rank, "jacobian"), ref.jacobian_erank, rtol=0, atol=1e-6)  # Gram route vs SVD
    # the explorer's samples go through the blocks in float32 (spectra in float64): erank/d to 1e-6, ρ to 1e-5
    np.testing.assert_allclose(drawn(rank, "representation"), ref.representation_erank, rtol=0, atol=1e-6)
    np.testing.assert_allclose(drawn(rank, "ratio"), ref.branch_skip_ratio[1:], rtol=1e-5)


def test_post_norm_collapses_below_pre_norm_at_depth_64(rank):
    rank.apply(**RANK_PRESET_BASE, **SMALL); assert rank.wait(120)
    rank.controls["placement"].value = "pre"; assert rank.wait(120)
    pre = drawn(rank, "jacobian")[-1]
    rank.controls["placement"].value = "post"; assert rank.wait(120)
    post = drawn(rank, "jacobian")[-1]
    assert len(drawn(rank, "jacobian")) == 65
    assert post < 0.5 * pre, (pre, post)
    assert f"{post:.3f}" in rank.readout_html.value


def test_two_matrices_shrink_the_mean_spike(rank):
    rank.apply(**RANK_PRESET_BASE, **SMALL); assert rank.wait(120)
    rank.controls["branch"].value = "single"; assert rank.wait(120)
    single = drawn(rank, "spike")
    rank.controls["branch"].value = "two"; assert rank.wait(120)
    two = drawn(rank, "spike")
    assert two[-1] < 0.5 * single[-1], (single[-1], two[-1])
    # single matrix + ReLU: linear growth (spike(64)/spike(16) ≈ 4), two matrices grow slower
    assert 3.0 < single[64] / single[16] < 5.0 and two[64] / two[16] < 3.0


def test_weights_are_reused_when_only_beta_alpha_placement_norm_projection_activation_change(rank):
    rank.apply(**RANK_PRESET_BASE, **SMALL); assert rank.wait(120)
    n = rank.weight_samples
    for key, value in [("beta", 0.3), ("alpha", 1.5), ("placement", "output"), ("norm", "rmsnorm"),
                       ("projection", False), ("activation", "tanh")]:
        rank.controls[key].value = value; assert rank.wait(120), rank.error
    assert rank.weight_samples == n
    rank.controls["seed"].value = 1; assert rank.wait(120)
    assert rank.weight_samples == n + 1


@pytest.mark.parametrize("cls", [RankExplorer, ThresholdExplorer, PathExplorer])
def test_presets_load(cls):
    ex = cls(**({"width": 32} if cls is not PathExplorer else {"width": 16, "depth": 12}))
    assert ex.wait(300), ex.error
    assert len(ex.PRESETS) >= (6 if cls is RankExplorer else 3)
    for name, (sentence, settings) in ex.PRESETS.items():
        ex.preset_box.value = name                      # as the drop-down does
        assert ex.wait(300), (name, ex.error)
        assert ex.error is None, (name, ex.error)
        assert all(ex.settings[k] == v for k, v in settings.items()), name
        assert sentence in ex.preset_note.value and sentence.endswith(".")
    if cls is RankExplorer:
        assert {"Post-Norm collapse", "Pre-Norm plateau", "Single-matrix mean spike", "Two-matrix fix",
                "Narrow branch m/d = 1", "Ensemble regime (small β)"} <= set(ex.PRESETS)


@pytest.mark.parametrize("cls,changes", [(RankExplorer, dict(beta=0.25, placement="post", width=32, depth=8)),
                                         (ThresholdExplorer, dict(expansion=2.5, activation="gelu", width=32, trials=3)),
                                         (PathExplorer, dict(beta=0.5, depth=6, width=8, placement="output"))])
def test_from_config_round_trips_the_view(cls, changes):
    ex = cls(**changes); assert ex.wait(300), ex.error
    ex.hold(); ex.apply(seed=3); assert ex.wait(300)
    text = ex.to_config()
    again = cls.from_config(text); assert again.wait(300), again.error
    assert again.to_config() == text and again.settings == ex.settings
    for key in ex.LINES:
        np.testing.assert_allclose(drawn(again, key), drawn(ex, key), rtol=0, atol=1e-12)
        np.testing.assert_allclose(again.held[0]["artists"][list(ex.LINES).index(key)].get_ydata(),
                                      ex.held[0]["artists"][list(ex.LINES).index(key)].get_ydata())
    assert json.loads(text)["explorer"] == cls.__name__


@pytest.mark.parametrize("text,needles", [
    ('{"width": 1024}', ["width=1024", "[8, 512]"]),
    ('{"depth": 0}', ["depth=0", "an integer in [1, 256]"]),
    ('{"depth": 12.5}', ["depth=12.5", "integer"]),
    ('{"beta": "1"}', ["beta='1'", "a number in [0.01, 10]"]),
    ('{"beta": 1e9}', ["beta=1000000000.0", "[0.01, 10]"]),
    ('{"placement": "sandwich"}', ["placement='sandwich'", "'none', 'pre', 'post', 'output'"]),
    ('{"projection": 0}', ["projection=0", "true or false"]),
    ('{"colour": "red"}', ["config key='colour'", "'beta'"]),
    ('{"explorer": "PathExplorer"}', ["explorer='PathExplorer'", "'RankExplorer'"]),
    ('{"held": [{"alpha": 99}]}', ["alpha=99", "[0.25, 4]"]),
    ('not json', ["not valid JSON"]),
])
def test_bad_config_names_key_value_and_allowed(text, needles):
    with pytest.raises(ValueError) as e:
        RankExplorer.from_config(text)
    for needle in needles: assert needle in str(e.value), (needle, str(e.value))


def test_stale_results_are_never_drawn_over_newer_ones():
    "A slow request followed by a fast one: the slow result is dropped, the newest is drawn, in order."
    class Slow(RankExplorer):
        def compute(self, s):
            if s["beta"] > 2: time.sleep(0.5)
            return super().compute(s)
    ex = Slow(width=16, depth=8); assert ex.wait(120)
    drawn_log = []
    orig = ex.live.render
    ex.live.render = lambda: (drawn_log.append(ex.data_settings["beta"]), orig())[1]
    ex.controls["beta"].value = 5.0                 # slow
    time.sleep(0.1)
    assert "computing" in ex.status_html.value      # the UI says so while the worker is busy
    ex.controls["beta"].value = 0.5                 # fast, newer
    assert ex.wait(120)
    assert drawn_log == [0.5], drawn_log
    assert ex.stale_dropped >= 1 and ex.drawn_generation == ex.generation
    ref = rank_profile(*ex.profile_args(ex.settings), seed=0)
    np.testing.assert_allclose(drawn(ex, "jacobian"), ref.jacobian_erank, atol=1e-6)  # Gram route vs SVD


def test_controls_do_not_block_while_computing():
    "Setting a control returns at once: the computation runs on the worker thread."
    ex = RankExplorer(width=64, depth=64); assert ex.wait(120)
    t0 = time.perf_counter(); ex.controls["placement"].value = "post"; dt = time.perf_counter() - t0
    assert ex.wait(120)
    assert dt < 0.5 * ex.last_timing["compute_ms"] / 1e3 + 0.05, (dt, ex.last_timing)


def test_export_writes_png_csv_json_and_says_where(tmp_path, capsys):
    ex = RankExplorer(width=16, depth=8); assert ex.wait(120)
    ex.hold(); ex.controls["placement"].value = "post"; assert ex.wait(120)
    out = ex.export(tmp_path / "share")
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith("."))  # the marker of owned_folder == ["config.json", "data.csv", "figure.png"]
    assert (out / "figure.png").read_bytes()[:4] == b"\x89PNG"
    tab = pd.read_csv(out / "data.csv")
    assert set(tab.curve) == {"current", "held 1"} and len(tab) == 2 * 9
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["placement"] == "post" and cfg["held"][0]["placement"] == "pre"
    again = RankExplorer.from_config(cfg); assert again.wait(120)
    np.testing.assert_array_equal(drawn(again, "jacobian"), tab[tab.curve == "current"].jacobian_erank.to_numpy())
    assert str(out) in capsys.readouterr().out and str(out) in ex.status_html.value


@pytest.mark.parametrize("cls,changes,expected", [
    (RankExplorer, dict(placement="post", beta=0.5, width=16, depth=8),
     "explorer=rank&beta=0.5&placement=post&depth=8&width=16"),
    (ThresholdExplorer, dict(activation="gelu", q=0.3, width=16, trials=2),
     "explorer=threshold&activation=gelu&q=0.3&width=16&trials=2"),
    (PathExplorer, dict(beta=1 / 3, depth=6, width=8, method="probe", seed=7),
     "explorer=path&beta=0.3333333333333333&depth=6&width=8&method=probe&seed=7"),
])
def test_to_query_from_query_round_trip(cls, changes, expected):
    "The link query names the explorer and the changed settings; reading it back gives the same view, bit for bit."
    ex = cls(**changes); assert ex.wait(300), ex.error
    assert ex.to_query() == expected
    again = cls.from_query(ex.to_query()); assert again.wait(300), again.error
    assert again.settings == ex.settings and again.to_query() == expected
    for key in ex.LINES:
        np.testing.assert_array_equal(drawn(again, key), drawn(ex, key))
    from autonorm_explorer.explore.core import Explorer
    assert type(Explorer.from_query("https://example.org/x?" + expected, background=False)) is cls
    assert f"href='?{expected.replace('&', '&amp;')}'" in ex.link_html.value
    ex.set_link_base("https://example.org/app")
    assert ex.link() == "https://example.org/app?" + expected
    for e in (ex, again): e.close()


def test_from_query_preset_and_overrides():
    ex = RankExplorer.from_query("explorer=rank&preset=Post-Norm%20collapse&width=16&depth=8", background=False)
    assert ex.settings["placement"] == "post" and (ex.settings["width"], ex.settings["depth"]) == (16, 8)
    assert "Post-Norm collapse" in ex.preset_note.value
    ex.close()


@pytest.mark.parametrize("qs,needles", [
    ("explorer=rank&width=1024", ["width='1024' in the link", "an integer in [8, 512]"]),
    ("explorer=rank&depth=12.5", ["depth='12.5'", "an integer in [1, 256]"]),
    ("explorer=rank&beta=big", ["beta='big'", "a number in [0.01, 10]"]),
    ("explorer=rank&beta=nan", ["beta='nan'", "a number in [0.01, 10]"]),
    ("explorer=rank&placement=sandwich", ["placement='sandwich'", "'none', 'pre', 'post', 'output'"]),
    ("explorer=rank&projection=yes", ["projection='yes'", "true or false"]),
    ("explorer=rank&colour=red", ["link key='colour'", "'beta'", "'preset'"]),
    ("explorer=path", ["explorer='path'", "'rank'"]),
    ("explorer=rank&beta=1&beta=2", ["link key='beta' appears 2 times"]),
    ("explorer=rank&preset=Nope", ["preset='Nope'", "'Post-Norm collapse'"]),
])
def test_bad_query_names_key_value_and_allowed(qs, needles):
    with pytest.raises(ValueError) as e:
        RankExplorer.from_query(qs)
    for needle in needles: assert needle in str(e.value), (needle, str(e.value))


def test_explorer_from_query_dispatch_names_the_known_explorers():
    from autonorm_explorer.explore.core import Explorer
    with pytest.raises(ValueError) as e:
        Explorer.from_query("explorer=ranks")
    assert "explorer='ranks'" in str(e.value) and "'rank'" in str(e.value) and "'threshold'" in str(e.value)
