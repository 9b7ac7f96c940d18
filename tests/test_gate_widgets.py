"""Headless tests of GateExplorer and FreezeExplorer.

Drive every control by setting `.value` as the front end does; check what is drawn against closed
forms (the binary Concrete law, quadrature of the gradient's moments) and PyTorch's own
`F.gumbel_softmax`; check the freeze rule's story against the entropies drawn; check that runs can
be stopped, restarted, cancelled and closed without a thread left behind, also when Python exits.
FreezeExplorer runs are tiny (one block of width 16 on 64-128 digits) to keep the file short."""
import json, math, subprocess, sys, textwrap, threading, time, warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F
from scipy import integrate, stats
from scipy.special import expit, logit

from autonorm_explorer.explore.gates import (GateExplorer, FreezeExplorer, SWEEP_TAUS, HIST_BINS,
                                            gap_for_entropy, FREEZE_METHODS)
from autonorm_explorer.norms.gates import w_dyt_table

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(depth=1, dim=16, train_size=64, epochs=2, t_freeze=1)


def _expit(z): return float(expit(z))


def _logistic_pdf(l): return _expit(l) * (1 - _expit(l))


def _entropy(p): return 0.0 if p in (0.0, 1.0) else -(p * math.log(p) + (1 - p) * math.log(1 - p))


def _moments(gap, tau):
    "E[ĝ] and E[ĝ²] of ĝ = ∂σ((Δ+L)/τ)/∂Δ, L ~ Logistic(0, 1), by quadrature (not the package)."
    g = lambda l: _expit((gap + l) / tau) * (1 - _expit((gap + l) / tau)) / tau
    kw = dict(points=[-gap], limit=400)
    m1 = integrate.quad(lambda l: g(l) * _logistic_pdf(l), -60, 60, **kw)[0]
    m2 = integrate.quad(lambda l: g(l) ** 2 * _logistic_pdf(l), -60, 60, **kw)[0]
    return m1, m2


def drawn(ex, key):
    line = ex.current[key]
    return np.asarray(line.get_ydata(), float), np.asarray(line.get_xdata(), float)


# ---------------------------------------------------------------- GateExplorer

@pytest.fixture(scope="module")
def gate():
    ex = GateExplorer(samples=20_000)
    assert ex.wait(60), ex.error
    yield ex
    ex.close()


def test_histogram_follows_the_exact_law_and_torch_gumbel_softmax(gate):
    gate.apply(gap=1.3, tau=0.4, mode="soft", seed=2); assert gate.wait(60)
    relaxed = gate.data["scatter"]["relaxed"]
    assert len(relaxed) == 300
    # oracle 1: the closed-form CDF σ(τ·logit(x) − Δ), through a KS test of the drawn samples' law
    n = 20_000
    torch.manual_seed(0)
    logits = torch.tensor([[1.3, 0.0]], dtype=torch.float64).expand(n, 2)
    ref = F.gumbel_softmax(logits, tau=0.4)[:, 0].numpy()
    cdf = lambda x: expit(0.4 * logit(x) - 1.3)
    assert stats.kstest(ref, cdf).pvalue > 1e-3  # the closed form is torch's law ...
    edges = HIST_BINS
    hist, _ = drawn(gate, "hist")
    exact, centers = drawn(gate, "exact")
    np.testing.assert_allclose(exact, np.diff(cdf(edges)) / np.diff(edges), rtol=1e-9)
    torch_hist = np.histogram(ref, bins=edges, density=True)[0]
    ours = gate.data["hist"]
    # ... and the drawn histogram agrees with torch's within sampling noise (binomial sd per bin)
    sd = np.sqrt(np.maximum(torch_hist, 0.05) * 0.025 / n) / 0.025
    assert np.all(np.abs(ours - torch_hist) < 6 * np.sqrt(2) * sd)


def test_hard_gate_picks_dyt_with_probability_pi_and_backpropagates_the_relaxed_sample(gate):
    gate.apply(gap=0.8, tau=0.3, mode="hard", seed=1); assert gate.wait(60)
    fwd, x = drawn(gate, "forward")
    back, _ = drawn(gate, "backward")
    assert set(np.round(fwd, 9)) == {0.0, 1.0}
    np.testing.assert_array_equal(fwd > 0.5, x > 0.5)
    np.testing.assert_allclose(back, x * (1 - x) / 0.3, rtol=1e-9, atol=1e-12)
    pi = _expit(0.8)
    share = gate.data["hard_share"]
    assert abs(share - pi) < 5 * math.sqrt(pi * (1 - pi) / 20_000), (share, pi)
    # oracle: torch's straight-through gate has the same forward law and the same backward formula
    logits = torch.tensor([[0.8, 0.0]], dtype=torch.float64).repeat(20_000, 1).requires_grad_(True)
    torch.manual_seed(1)
    w = F.gumbel_softmax(logits, tau=0.3, hard=True)
    (g,) = torch.autograd.grad(w[:, 0].sum(), logits)
    assert abs(float(w[:, 0].detach().mean()) - share) < 5 * math.sqrt(2 * pi * (1 - pi) / 20_000)
    m1, m2 = _moments(0.8, 0.3)
    assert abs(float(g[:, 0].mean()) - m1) < 0.03 * m1
    assert abs(gate.data["grad_mean"] - m1) < 0.03 * m1


def test_entropy_panel_h_pi_against_the_gate_applied_at_tau(gate):
    gap = gap_for_entropy(0.1)
    gate.apply(gap=gap, tau=0.5, mode="soft"); assert gate.wait(60)
    pi = _expit(gap)
    # π 0.98, applied 0.9996
    assert abs(pi - 0.98) < 0.005 and abs(_expit(gap / 0.5) - 0.9996) < 5e-5
    assert abs(gate.h_pi_line.get_ydata()[0] - 0.1) < 1e-9
    h_app, taus = drawn(gate, "applied_entropy")
    np.testing.assert_allclose(taus, SWEEP_TAUS)
    expected = [_entropy(_expit(gap / t)) for t in taus]
    np.testing.assert_allclose(h_app, expected, rtol=1e-9, atol=1e-15)
    assert "0.9996" in gate.readout_html.value and "0.100</b> nats" in gate.readout_html.value
    i = int(np.argmin(abs(taus - 0.5)))
    assert h_app[i] < 0.1 / 20                                # the applied gate is far more certain


def test_gradient_variance_rises_as_tau_falls_as_quadrature_says(gate):
    gate.apply(gap=0.0, tau=0.5, mode="soft", seed=0); assert gate.wait(60)
    var, taus = drawn(gate, "grad_var")
    mean, _ = drawn(gate, "grad_mean")
    for t, v, m in zip(taus, var, mean):
        m1, m2 = _moments(0.0, t)
        assert abs(m - m1) < 0.05 * m1 + 1e-4, (t, m, m1)
        assert abs(v - (m2 - m1 ** 2)) < 0.12 * (m2 - m1 ** 2) + 1e-6, (t, v, m2 - m1 ** 2)
    low = taus <= 1.0
    assert np.all(np.diff(var[low]) < 0)                      # falls as τ rises = rises as τ falls
    assert abs(taus[0] * var[0] - 1 / 24) < 0.1 / 24 + taus[0] / 16      # E[ĝ²] → 1/(24τ) at Δ = 0
    pi = 0.5
    assert np.allclose(gate.exact_grad.get_ydata(), pi * (1 - pi))


def test_every_gate_control_moves_the_figure(gate):
    gate.apply(gap=1.0, tau=0.5, mode="soft", samples=4000, seed=0); assert gate.wait(60)
    base = {k: drawn(gate, k)[0].copy() for k in gate.current}
    moves = {"gap": 2.0, "tau": 0.2, "mode": "hard", "samples": 3000, "seed": 7}
    changed = {"gap": "exact", "tau": "exact", "mode": "forward", "samples": "hist", "seed": "hist"}
    for key, value in moves.items():
        gate.controls[key].value = value; assert gate.wait(60), gate.error
        now = drawn(gate, changed[key])[0]
        before = base[changed[key]]
        assert now.shape != before.shape or not np.allclose(now, before), key
        assert json.loads(gate.to_config())[key] == value
        gate.controls[key].value = gate.params[key].default; assert gate.wait(60)
    # back to the start: same picture
    np.testing.assert_allclose(drawn(gate, "hist")[0], base["hist"])


def test_gate_presets_say_what_to_look_at_and_apply():
    ex = GateExplorer(samples=2000)
    try:
        assert len(ex.PRESETS) >= 4
        for name, (sentence, settings) in ex.PRESETS.items():
            ex.preset_box.value = name; assert ex.wait(60), ex.error
            assert ex.error is None and all(ex.settings[k] == v for k, v in settings.items()), name
            assert sentence in ex.preset_note.value and sentence.endswith(".")
    finally: ex.close()


@pytest.mark.parametrize("kw, needles", [
    (dict(tau=0.0), ["tau=0.0", "[0.05, 5]"]), (dict(tau=-1.0), ["tau=-1.0"]),
    (dict(tau=float("nan")), ["tau=nan"]),
    (dict(gap=20.0), ["gap=20.0", "[-8, 8]"]), (dict(samples=0), ["samples=0"]),
    (dict(mode="medium"), ["mode='medium'", "'soft', 'hard'"])])
def test_gate_bad_inputs_name_value_and_allowed(gate, kw, needles):
    for make in (lambda: GateExplorer(background=False, **kw), lambda: gate.apply(**kw),
                 lambda: GateExplorer.from_config(json.dumps(kw))):
        with pytest.raises(ValueError) as e: make()
        assert all(n in str(e.value) for n in needles), str(e.value)
    gate.config_text.value = json.dumps(dict(explorer="GateExplorer", **kw))
    gate.load_button.click()  # the UI path: shown in the status line
    assert "error" in gate.status_html.value and needles[0] in gate.status_html.value


def test_gate_config_round_trip_hold_and_export(gate, tmp_path):
    gate.apply(gap=1.5, tau=0.3, mode="hard", seed=3, samples=4000); assert gate.wait(60)
    gate.hold(); gate.apply(tau=1.0); assert gate.wait(60)
    ex2 = GateExplorer.from_config(gate.to_config())
    try:
        assert ex2.wait(60) and ex2.settings == gate.settings and len(ex2.held) == 1
        np.testing.assert_allclose(drawn(ex2, "grad_var")[0], drawn(gate, "grad_var")[0])
    finally: ex2.close()
    out = gate.export(tmp_path / "g")
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith("."))  # the marker of owned_folder == ["config.json", "data.csv", "figure.png"]
    tab = pd.read_csv(out / "data.csv")
    assert set(tab.curve) == {"current", "held 1"} and set(tab.panel) == {"histogram", "tau_sweep"}
    gate.clear_held(); gate.apply(samples=20_000); assert gate.wait(60)


def test_gate_stale_results_are_never_drawn():
    ex = GateExplorer(samples=50_000)
    try:
        assert ex.wait(60)
        renders = []
        ex.readout_html.observe(lambda ch: renders.append(dict(ex.data_settings)), names="value")
        ex.controls["tau"].value = 0.1
        time.sleep(0.05)  # the worker is inside that computation
        for tau in (0.2, 0.3, 0.4, 2.0): ex.controls["tau"].value = tau
        assert ex.wait(60)
        assert renders[-1]["tau"] == 2.0 and ex.data_settings["tau"] == 2.0
        assert ex.stale_dropped >= 1 and len(renders) < 5
        assert abs(ex.eval_line.get_xdata()[0] - _expit(1.0 / 2.0)) < 1e-12
    finally: ex.close()


# ---------------------------------------------------------------- FreezeExplorer

def _run(**kw):
    ex = FreezeExplorer(**{**TINY, **kw})
    ex.start(); assert ex.wait(120), ex.error
    assert ex.error is None, ex.error
    return ex


def test_freeze_fires_and_the_story_matches_the_drawn_entropy():
    ex = _run(eps_h=0.01, epochs=3, t_freeze=2)
    try:
        d = ex.data
        h, epochs = drawn(ex, "entropy")
        assert list(epochs) == [1, 2, 3] and d["decision"] == "frozen" and d["frozen_epoch"] == 2
        shown = ex.readout_html.value
        assert h[1] >= 0.01 and f"H = {h[1]:.3f}" in shown and "freeze fired" in shown
        assert list(d["history"].frozen) == [False, True, True]
        assert ex.freeze_lines[0].get_xdata()[0] == 2.5 and ex.tf_lines[0].get_xdata()[0] == 2
        # the heat map is the gate logger's per-site table, future epochs blank
        table = w_dyt_table(d["gates"], by="site").reindex(columns=[1, 2, 3]).to_numpy(float)
        np.testing.assert_array_equal(np.asarray(ex.heat.get_array(), float), table)
        assert table.shape == (2, 3) and np.all((table > 0) & (table < 1))
        acc, _ = drawn(ex, "val_acc")
        np.testing.assert_allclose(acc, d["history"].val_accuracy)
    finally: ex.close()


def test_no_freeze_when_entropy_is_already_below_eps_h_then_autonorm_s_equals_autonorm():
    s, a = _run(eps_h=math.log(2)), _run(method="autonorm", eps_h=math.log(2))
    try:
        assert s.data["decision"] == "kept_training" and s.data["frozen_epoch"] is None
        why_not = "entropy already below ε_H at T_freeze: AutoNorm-S = AutoNorm here"
        assert why_not in s.readout_html.value
        assert "would have kept training" in a.readout_html.value
        timeless = lambda ex: ex.data["history"].drop(columns="time_s")
        pd.testing.assert_frame_equal(timeless(s), timeless(a))
        pd.testing.assert_frame_equal(s.data["gates"], a.data["gates"])
    finally: s.close(); a.close()


def test_random_selector_and_frozen_ln_baselines():
    r, f = _run(method="random", train_size=128), _run(method="frozen_ln")
    try:
        g = r.data["gates"]
        assert abs(g.w_dyt.mean() - 0.5) < 0.05
        assert abs(g.entropy.mean() - 0.5) < 0.03                        # E[H(U)] = 1/2 nat
        assert "nothing to freeze" in r.readout_html.value
        h, _ = drawn(f, "entropy")
        assert np.all(np.isnan(h)) and len(f.data["gates"]) == 0
        assert "no gate" in f.heat_note.get_text()
        assert np.isfinite(drawn(f, "val_acc")[0]).all()
    finally: r.close(); f.close()


def test_every_freeze_control_changes_the_run():
    ex = _run(epochs=1, t_freeze=1)
    try:
        base = ex.data["history"].iloc[-1]
        moves = dict(tau=0.2, epochs=2, method="autonorm", t_freeze=2, eps_h=0.6, seed=3,
                     dataset="mnist5k", train_size=96, depth=2, dim=32)
        for key, value in moves.items():
            ex.apply(**{key: value}); ex.start(); assert ex.wait(120), (key, ex.error)
            assert ex.error is None and ex.data_settings[key] == value, key
            last = ex.data["history"].iloc[-1]
            if key in ("t_freeze", "eps_h"):       # same training; only the rule's reading changes
                shown = ex.readout_html.value
                assert f"ε_H = {value:g}" in shown or f"T_freeze = {value}" in shown
            else: assert last.train_loss != base.train_loss, key
            base = last
        assert len(ex.data["gates"].site.unique()) == 4  # depth 2: two gated sites per block
    finally: ex.close()


def test_controls_while_idle_do_not_train_start_is_needed():
    ex = FreezeExplorer(**TINY)
    try:
        assert ex.data is None and "press <b>Start</b>" in ex.status_html.value
        ex.controls["seed"].value = 5; ex.controls["tau"].value = 0.3
        time.sleep(0.3)
        assert ex.runs_started == 0 and not ex.running and ex.data is None
    finally: ex.close()


def test_progress_stop_restart_and_cancel_never_draw_an_outdated_run():
    ex = FreezeExplorer(**{**TINY, "epochs": 50, "t_freeze": 1})
    statuses, drawn_runs = [], []
    ex.status_html.observe(lambda ch: statuses.append(ch["new"]), names="value")
    def on_draw(change): drawn_runs.append((dict(ex.data_settings), len(ex.data["history"])))
    ex.readout_html.observe(on_draw, names="value")
    try:
        t0 = time.perf_counter()
        ex.start()
        assert time.perf_counter() - t0 < 0.5                          # never blocks the kernel
        deadline = time.monotonic() + 60
        while len(drawn_runs) < 2 and time.monotonic() < deadline: time.sleep(0.05)
        assert [n for _, n in drawn_runs[:2]] == [1, 2]                # drawn epoch by epoch
        assert any("training… epoch" in s and "step" in s for s in statuses)
        n_before = len(drawn_runs)
        ex.controls["seed"].value = 9  # restart while training: cancels the old run
        deadline = time.monotonic() + 60
        while (not any(s["seed"] == 9 for s, _ in drawn_runs[n_before:])
               and time.monotonic() < deadline): time.sleep(0.05)
        after = drawn_runs[n_before:]
        # an epoch the old run was already drawing when the control moved may land first (at most one);
        # from the new run's first draw on, nothing of the old run is drawn again
        first_new = next(i for i, (s, _) in enumerate(after) if s["seed"] == 9)
        assert first_new <= 1 and all(s["seed"] == 9 for s, _ in after[first_new:]), after
        assert after[first_new][1] == 1, after
        t0 = time.perf_counter(); ex.stop(); assert time.perf_counter() - t0 < 0.5
        assert ex.wait(30), "Stop did not end the run within one step"
        assert ex.data["state"] == "stopped" and len(ex.data["history"]) < 50 and not ex.running
        assert "stopped" in ex.readout_html.value and ex.runs_started == 2
        ex.controls["seed"].value = 10  # idle again: nothing restarts
        time.sleep(0.3)
        assert ex.runs_started == 2 and "press <b>Start</b>" in ex.status_html.value
        ex.start()  # restart after a stop: a fresh run
        deadline = time.monotonic() + 60
        while (ex.data_settings["seed"] != 10) and time.monotonic() < deadline: time.sleep(0.05)
        assert ex.data_settings["seed"] == 10 and len(ex.data["history"]) == 1
        worker = ex._worker
        t0 = time.perf_counter(); ex.close()
        assert not worker.is_alive() and time.perf_counter() - t0 < 10  # close() joins the thread
    finally: ex.close()


def test_hold_export_and_config_round_trip(tmp_path):
    ex = _run(eps_h=0.01)
    try:
        ex.hold()
        ex.apply(seed=4); ex.start(); assert ex.wait(120)
        assert len(ex.held) == 1 and len(ex.held[0]["artists"]) == 3
        out = ex.export(tmp_path / "f")
        files = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
        assert files == ["config.json", "data.csv", "figure.png", "gates.csv"]
        gates = pd.read_csv(out / "gates.csv")
        assert list(gates.columns)[:3] == ["epoch", "site", "layer"] and len(gates) == 4
        np.testing.assert_allclose(gates.w_dyt, ex.data["gates"].w_dyt)
        data = pd.read_csv(out / "data.csv")
        assert set(data.curve) == {"current", "held 1"} and "train_accuracy" in data
        cfg = json.loads((out / "config.json").read_text())
        assert cfg["seed"] == 4 and cfg["held"][0]["seed"] == 0
        assert cfg["explorer"] == "FreezeExplorer"
        ex2 = FreezeExplorer.from_config(ex.to_config())  # held runs are retrained, identically
        try:
            val_loss = lambda e: e.held[0]["data"]["history"].val_loss
            np.testing.assert_allclose(val_loss(ex2), val_loss(ex))
            assert ex2.settings == ex.settings
        finally: ex2.close()
    finally: ex.close()


def test_export_during_a_run_does_not_wait(tmp_path):
    ex = FreezeExplorer(**{**TINY, "epochs": 50})
    try:
        with pytest.raises(ValueError, match="nothing drawn yet"): ex.export(tmp_path / "none")
        ex.start()
        deadline = time.monotonic() + 60
        while ex.data is None and time.monotonic() < deadline: time.sleep(0.05)
        t0 = time.perf_counter(); out = ex.export(tmp_path / "mid")
        assert time.perf_counter() - t0 < 2 and (out / "gates.csv").exists()
        assert "running" in ex.status_html.value
    finally: ex.close()


@pytest.mark.parametrize("kw, needles", [
    (dict(tau=0.0), ["tau=0.0", "[0.05, 5]"]), (dict(tau=float("nan")), ["tau=nan"]),
    (dict(eps_h=0.0), ["eps_h=0.0", "0.693147"]), (dict(eps_h=0.8), ["eps_h=0.8", "0.693147"]),
    (dict(eps_h=float("nan")), ["eps_h=nan"]),
    (dict(t_freeze=9, epochs=6), ["t_freeze=9 is beyond epochs=6", "[1, 6]"]),
    (dict(dataset="cifar10"), ["dataset='cifar10'", "'digits', 'mnist5k', 'fashion_mnist'"]),
    (dict(method="adanorm"), ["method='adanorm'", "'autonorm_s'"])])
def test_freeze_bad_inputs_name_value_and_allowed(kw, needles):
    ex = FreezeExplorer(**TINY)
    try:
        for make in (lambda: FreezeExplorer(**kw), lambda: ex.apply(**kw),
                     lambda: FreezeExplorer.from_config(json.dumps(kw))):
            with pytest.raises(ValueError) as e: make()
            assert all(n in str(e.value) for n in needles), str(e.value)
        ex.config_text.value = json.dumps(dict(explorer="FreezeExplorer", **kw))
        ex.load_button.click()  # the UI path: shown in the status line
        shown = ex.status_html.value
        assert "error" in shown and needles[0] in shown, shown
    finally: ex.close()


def test_t_freeze_beyond_epochs_from_the_sliders_shows_in_the_status_line():
    ex = FreezeExplorer(**TINY)
    try:
        ex.controls["t_freeze"].value = 7                          # both sliders are valid alone
        assert "t_freeze=7 is beyond epochs=2" in ex.status_html.value
        with pytest.raises(ValueError, match="t_freeze=7 is beyond epochs=2"): ex.start()
        ex.start_button.click()
        assert "error" in ex.status_html.value and ex.runs_started == 0
    finally: ex.close()


def test_freeze_presets_say_what_to_look_at():
    ex = FreezeExplorer(**TINY)
    try:
        assert len(ex.PRESETS) >= 4
        assert {s["method"] for _, s in ex.PRESETS.values()} == set(FREEZE_METHODS)
        for name, (sentence, settings) in ex.PRESETS.items():
            ex.preset_box.value = name
            assert all(ex.settings[k] == v for k, v in settings.items()), name
            assert sentence in ex.preset_note.value and sentence.endswith(".")
            assert ex.runs_started == 0
    finally: ex.close()


def test_explorers_drawing_from_several_threads_never_break_a_draw():
    "Workers redraw while the kernel thread builds explorers: FreeType must never be entered twice."
    gates = [GateExplorer(samples=200) for _ in range(2)]
    errors, stop = [], threading.Event()
    def drag(ex, k):
        i = 0
        while not stop.is_set():
            ex.controls["tau"].value = 0.1 + 0.05 * ((i + k) % 20)
            i += 1
            assert ex.wait(60)
            if ex.error: errors.append(ex.error)
    threads = [threading.Thread(target=drag, args=(ex, k)) for k, ex in enumerate(gates)]
    try:
        for t in threads: t.start()
        with warnings.catch_warnings():
            warnings.simplefilter("error")                   # a garbled layout warns "Tight layout"
            for epochs in range(10, 20): FreezeExplorer(epochs=epochs).close()
    finally:
        stop.set()
        for t in threads: t.join(60)
        for ex in gates: ex.close()
    assert not errors, errors[:3]


# ---------------------------------------------------------------- clean exit

PROBE = """
import atexit, sys, threading, time
def probe():   # registered first, so it runs after the package's own exit hook
    alive = [t.name for t in threading.enumerate() if t.name.endswith("-worker") and t.is_alive()]
    print("workers alive at exit:", len(alive), alive, flush=True)
atexit.register(probe)
from autonorm_explorer.explore.gates import GateExplorer, FreezeExplorer
fx = FreezeExplorer(depth=1, dim=16, train_size=64, epochs=50, t_freeze=1, autostart=True)
gx = GateExplorer()
deadline = time.monotonic() + 60
while fx.data is None and time.monotonic() < deadline: time.sleep(0.05)
assert fx.running, "the run should still be training when the script ends"
for tau in (0.1, 0.2, 0.3): gx.controls["tau"].value = tau     # the gate worker is busy too
{ending}
"""


@pytest.mark.parametrize("ending, code",
                         [("pass", 0), ("sys.exit(3)", 3), ("raise RuntimeError('boom')", 1)])
def test_interpreter_exits_with_its_own_status_while_explorers_work(ending, code, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(PROBE.format(ending=ending)))
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert p.returncode == code, (p.returncode, p.stderr[-2000:])
    assert "terminate called" not in p.stderr, p.stderr[-2000:]
    assert "Fatal Python error" not in p.stderr, p.stderr[-2000:]
    assert "workers alive at exit: 0" in p.stdout, p.stdout + p.stderr[-2000:]
    if code == 1: assert "RuntimeError: boom" in p.stderr
