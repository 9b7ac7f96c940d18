"""Headless tests of how the explorers feel: readouts under the cursor (pixel -> data), hover and pin, progress
and cancel of a long computation (a newer change stops it within one block; stale results are never drawn),
and a clean interpreter exit with live explorers (subprocesses: script end, sys.exit, uncaught exception)."""
import io, os, subprocess, sys, textwrap, threading, time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from autonorm_explorer.explore.rank import RankExplorer, PathExplorer
from autonorm_explorer.rank.paths import path_orders
from autonorm_explorer.rank.resmlp import ResMLPConfig
from autonorm_explorer.rank.propagation import rank_profile
from autonorm_explorer.explore.core import HOVER_HINT

ROOT = Path(__file__).resolve().parents[1]
BLUE = np.array([31, 119, 180])                 # matplotlib's tab:blue, the current curves


def expected_pixel(ex, axis: int, x: float, y: float) -> tuple[float, float]:
    "Image pixel (origin top left) of data (x, y), from the axes' position and limits alone (no transforms)."
    ax = ex.axes[axis]; W, H = ex.fig.bbox.width, ex.fig.bbox.height
    pos = ax.get_position()                      # figure fractions
    f = (lambda v: np.log10(v)) if ax.get_xscale() == "log" else float
    g = (lambda v: np.log10(v)) if ax.get_yscale() == "log" else float
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    fx = (f(x) - f(x0)) / (f(x1) - f(x0)); fy = (g(y) - g(y0)) / (g(y1) - g(y0))
    return (pos.x0 + fx * pos.width) * W, H - (pos.y0 + fy * pos.height) * H


@pytest.fixture(scope="module")
def rank():
    ex = RankExplorer(width=16, depth=8, background=False)
    yield ex
    ex.close()


@pytest.mark.parametrize("axis,x,y", [(0, 3.0, 0.5), (1, 7.5, 0.9), (3, 2.0, None), (2, 4.0, None)])
def test_pixel_to_data_inverts_the_axes_position_and_limits(rank, axis, x, y):
    ax = rank.axes[axis]
    if y is None: y = float(np.sqrt(np.prod(ax.get_ylim()))) if ax.get_yscale() == "log" else float(np.mean(ax.get_ylim()))
    px, py = expected_pixel(rank, axis, x, y)
    got = rank.pixel_to_data(px, py)
    assert got[0] == axis
    np.testing.assert_allclose(got[1:], (x, y), rtol=1e-9)
    assert rank.pixel_to_data(2, 2) is None      # the figure's corner is outside every axes


def test_pick_finds_the_drawn_point_under_the_cursor(rank):
    "A curve point is found at the pixel where the PNG shows the blue curve, with the plotted values."
    df = rank.data
    for axis, key, col, depth in [(0, "jacobian", "jacobian_erank", 4), (1, "representation", "representation_erank", 6),
                                  (3, "spike", "mean_spike", 5)]:
        y = float(df[col][depth])
        px, py = expected_pixel(rank, axis, depth, y)
        png = np.asarray(Image.open(io.BytesIO(rank.live.png)).convert("RGB")).astype(int)
        patch = png[int(py) - 2:int(py) + 3, int(px) - 2:int(px) + 3]
        assert (np.abs(patch - BLUE).sum(-1) < 60).any(), f"no blue pixel of {key} near ({px:.0f}, {py:.0f})"
        p = rank.pick(px + 3, py - 2)            # a few pixels off, as a hand would be
        assert p["axis"] == axis and p["curve"] == "current" and p["label"] == rank.LINES[key][1]
        assert p["x"] == depth and p["y"] == y
        assert p["xlabel"] == "depth ℓ"


def test_hover_shows_the_value_and_click_pins_it_held_curves_named(rank):
    rank.apply(placement="pre"); rank.hold(); rank.apply(placement="post")
    held_y = float(rank.held[0]["data"].jacobian_erank[6])
    px, py = expected_pixel(rank, 0, 6, held_y)
    cur = rank.pick(px, py)
    if abs(float(rank.data.jacobian_erank[6]) - held_y) > 0.05:   # the held curve is the nearest there
        assert cur["curve"].startswith("held 1: pre-norm") and cur["y"] == held_y
    rank._on_mouse({"type": "mousemove", "dataX": px, "dataY": py})
    assert "under the cursor: depth ℓ = 6" in rank.hover_html.value and f"{cur['y']:.4g}" in rank.hover_html.value
    assert rank.hover_markers[0].get_visible() and rank.hover_markers[0].get_xdata()[0] == 6
    rank._on_mouse({"type": "click", "dataX": px, "dataY": py})
    assert len(rank.pins) == 1 and "pinned: depth ℓ = 6" in rank.pins_html.value
    assert list(rank.pin_markers[0].get_ydata()) == [cur["y"]]
    rank._on_mouse({"type": "click", "dataX": px, "dataY": py})      # the same point again: unpinned
    assert rank.pins == [] and rank.pins_html.value == ""
    rank._on_mouse({"type": "mousemove", "dataX": 1, "dataY": 1})    # nothing there
    assert rank.hover_html.value == HOVER_HINT and not rank.hover_markers[0].get_visible()
    rank._on_mouse({"type": "click", "dataX": px, "dataY": py}); rank.clear_pins()
    assert rank.pins == [] and not rank.pin_markers[0].get_visible()
    rank.clear_held()


class Blocks(RankExplorer):
    "RankExplorer whose blocks take at least 20 ms each, with a log of the blocks started and of what was drawn."
    PARTIAL_SHARE = 1.0          # draw partial results however slow the machine (the mechanism is under test)
    def __init__(self, **kw):
        self.block_log, self.drawn_betas, self.lock = [], [], threading.Lock()
        super().__init__(**kw)

    def compute_steps(self, s):
        for i, (make, done) in enumerate(super().compute_steps(s)):
            yield make, done
            with self.lock: self.block_log.append((s["beta"], i + 1, self.generation))
            time.sleep(0.02)

    def draw_extras(self, df):
        self.drawn_betas.append((df.attrs["config"]["beta"], len(df) - 1))
        super().draw_extras(df)


def test_progress_then_a_newer_change_cancels_within_one_block_and_stale_is_never_drawn():
    ex = Blocks(width=16, depth=40, beta=0.5)
    t0 = time.time()
    while ex.partial_draws < 2 and time.time() - t0 < 60: time.sleep(0.01)
    assert ex.partial_draws >= 2, "no partial curves were drawn while a 60-block profile ran"
    assert 0 < ex.progress.value < 1 and "depth" in ex.status_html.value and "of 40" in ex.status_html.value
    partial = [n for b, n in ex.drawn_betas if b == 0.5]
    assert partial and 0 < min(partial) < 40                             # curves grew before the end
    with ex.lock: gen_a = ex.generation; ex.controls["beta"].value = 0.7   # the newer change (takes the lock too)
    assert ex.wait(120), ex.error
    after = [i for b, i, g in ex.block_log if b == 0.5 and g > gen_a]
    assert len(after) <= 1, after                                          # at most the block that was running
    assert max(i for b, i, g in ex.block_log if b == 0.5) < 40             # the old request never finished
    assert ex.cancelled >= 1
    i_new = ex.drawn_betas.index(next(x for x in ex.drawn_betas if x[0] == 0.7))
    assert all(b == 0.7 for b, _ in ex.drawn_betas[i_new:]), ex.drawn_betas   # nothing old drawn after the new
    assert ex.drawn_betas[-1] == (0.7, 40) and ex.progress.value == 1.0 and ex.status_html.value.startswith("ready")
    ref = rank_profile(*ex.profile_args(ex.settings), seed=0)
    np.testing.assert_allclose(ex.current["jacobian"].get_ydata(), ref.jacobian_erank, atol=1e-6)  # Gram route vs SVD
    ex.close()


class SlowPaths(PathExplorer):
    "PathExplorer whose chosen method waits on an event, so the test sees the partial (mean-field only) frame."
    PARTIAL_MIN_LEFT_S = 0.0          # a tiny network: the pace alone would not call for a partial frame
    FIRST_PAINT_S = 0.0               # ... nor would the first-paint budget
    def __init__(self, **kw):
        self.release, self.partials = threading.Event(), []
        super().__init__(**kw)

    def compute_steps(self, s):
        for data, done in super().compute_steps(s):
            if done < 1: yield data, done
            else:
                self.release.wait(60)
                yield data, done

    def _draw_partial(self, gen, data, done):
        super()._draw_partial(gen, data, done)
        self.partials.append((gen, data["exact"] is None, len(self.current["exact"].get_ydata())))


def test_path_explorer_draws_the_mean_field_first_then_the_chosen_method():
    ex = SlowPaths(width=8, depth=6)
    t0 = time.time()
    while not ex.partials and time.time() - t0 < 60: time.sleep(0.01)
    assert ex.partials and ex.partials[0][1], ex.partials                  # a frame with only the mean-field curve
    assert "mean-field binomial drawn" in ex.status_html.value and 0 < ex.progress.value < 1
    assert len(ex.current["exact"].get_ydata()) == 0 and len(ex.current["meanfield"].get_ydata()) == 7
    ex.release.set()
    assert ex.wait(60), ex.error
    ref = path_orders(ResMLPConfig(width=8, depth=6), method="exact", seed=0)
    np.testing.assert_allclose(ex.current["exact"].get_ydata(), ref.weight, atol=1e-12)
    ex.close()


class VirtualClock:
    """The explorer's clock in the paced tests: it moves only when a paced block "takes" its time, so the
    partial-frame decisions (`_partial_due`) see the same times on an idle or a loaded machine."""
    def __init__(self): self.now, self.lock = 1000.0, threading.Lock()
    def perf_counter(self): return self.now
    def sleep(self, s):
        with self.lock: self.now += s
    def __getattr__(self, name): return getattr(time, name)     # strftime, time, ...: the real ones


@pytest.fixture
def virtual_clock(monkeypatch):
    "explore.core reads `time.perf_counter` through its module global `time`: point it at a VirtualClock."
    import autonorm_explorer.explore.core as core
    clock = VirtualClock()
    monkeypatch.setattr(core, "time", clock)
    Paced.clock = clock
    yield clock
    Paced.clock = time


class Paced(RankExplorer):
    "RankExplorer whose first block also pays `setup` seconds and every block `block` seconds (of `clock`)."
    setup, block, clock = 0.0, 0.0, time
    def __init__(self, **kw):
        self.partial_depths = []
        super().__init__(**kw)

    def compute_steps(self, s):
        self.clock.sleep(self.setup)
        for make, done in super().compute_steps(s):
            self.clock.sleep(self.block)
            yield make, done

    def _draw_partial(self, gen, data, done):
        super()._draw_partial(gen, data, done)
        self.partial_depths.append(len(data) - 1)


class QuickPaced(Paced):
    "The defaults' shape, faster: 30 ms of setup, then 32 blocks of 1 ms (well within 150 ms)."
    setup, block = 0.03, 0.001


class SlowPaced(Paced):
    "A large size's shape: 32 blocks of 20 ms (0.6 s in all)."
    setup, block = 0.005, 0.02


def test_no_partial_frame_when_the_whole_result_comes_within_the_first_paint_budget(virtual_clock):
    """The setup-heavy first block predicts ~1 s to go; the second block's pace says ~30 ms: none.
    On the virtual clock: the real compute time of a loaded machine no longer decides (it made this flaky)."""
    ex = QuickPaced(width=16, depth=32); assert ex.wait(120), ex.error
    drawn = ex.partial_draws
    for beta in (0.8, 1.2, 0.9): ex.controls["beta"].value = beta; assert ex.wait(120), ex.error
    assert ex.partial_draws == drawn == 0, ex.partial_depths
    assert ex.status_html.value.startswith("ready") and ex.progress.value == 1.0
    ex.close()


def test_a_slow_computation_draws_partial_curves_after_its_second_block(virtual_clock):
    "Beyond the budget the first partial frame comes once the pace is known; the curves grow."
    ex = SlowPaced(width=16, depth=32); assert ex.wait(120), ex.error
    ex.partial_depths.clear()
    ex.controls["beta"].value = 0.8; assert ex.wait(120), ex.error
    assert ex.partial_depths and ex.partial_depths[0] <= 2, ex.partial_depths    # ~45 ms in
    assert len(ex.partial_depths) >= 2 and ex.partial_depths == sorted(ex.partial_depths)
    assert len(ex.current["jacobian"].get_ydata()) == 33                         # then all of it
    ex.close()


class BlockCounting(RankExplorer):
    "RankExplorer noting, at each partial frame, the depth drawn and how many weight blocks its set holds."
    def __init__(self, **kw):
        self.partials = []
        super().__init__(**kw)

    def _draw_partial(self, gen, data, done):
        with self._cache_lock: blocks = next(reversed(self._weights.values()))   # the newest set
        self.partials.append((len(data) - 1, len(blocks.blocks), blocks.cfg.width))
        super()._draw_partial(gen, data, done)


def test_a_new_large_size_paints_after_drawing_only_the_blocks_it_ran():
    "Width 8 -> 512 at L = 128, m/d = 4 (2.1 GB of weights): the first partial frame holds a few blocks."
    ex = BlockCounting(width=8, depth=128); assert ex.wait(120), ex.error
    ex.partials.clear()
    ex.controls["width"].value = 512
    t0 = time.time()
    while not ex.partials and time.time() - t0 < 120: time.sleep(0.005)
    ex.close()
    assert ex.partials, "no partial frame within 120 s of the width change"
    depth, blocks, width = ex.partials[0]
    assert width == 512 and 1 <= depth <= 3, ex.partials
    assert blocks == depth, ex.partials          # drawn: the blocks run so far, none ahead, none skipped


def test_curves_extras_and_readout_are_the_profile_columns(rank):
    "What is drawn from the arrays is exactly the DataFrame's columns (pandas is the oracle)."
    rank.apply(beta=0.6, placement="pre"); rank.hold(); rank.apply(beta=1.3)
    held = dict(zip(rank.held[0]["keys"], rank.held[0]["artists"]))
    for ex_df, lines in [(rank.data, rank.current), (rank.held[0]["data"], held)]:
        deep = ex_df[ex_df.depth >= 1]
        want = {"jacobian": (ex_df.depth, ex_df.jacobian_erank), "representation": (ex_df.depth,
                ex_df.representation_erank), "ratio": (deep.depth, deep.branch_skip_ratio),
                "spike": (ex_df.depth, ex_df.mean_spike)}
        for key, (x, y) in want.items():
            np.testing.assert_array_equal(lines[key].get_xdata(), x.to_numpy(float), err_msg=key)
            np.testing.assert_array_equal(lines[key].get_ydata(), y.to_numpy(float), err_msg=key)
    df = rank.data
    deep = df[df.depth >= 1]
    ref = deep.branch_skip_ratio.iloc[0] / np.sqrt(deep.depth)
    np.testing.assert_allclose(rank.ref_line.get_ydata(), ref, rtol=1e-15)
    assert f"{df.jacobian_erank.iloc[-1]:.3f}" in rank.readout_html.value
    assert f"{df.mean_spike.iloc[-1]:.3g}" in rank.readout_html.value
    rank.clear_held()


def test_unchanged_depth_limits_are_not_set_again(rank):
    "set_xlim only when the depth changes: a β move fires no xlim callback, a depth move one each."
    fired = []
    ids = [ax.callbacks.connect("xlim_changed", lambda ax: fired.append(ax)) for ax in rank.axes]
    rank.apply(beta=0.7); rank.apply(beta=0.9)
    assert fired == []
    rank.apply(depth=12)
    assert sorted(map(id, fired)) == sorted(map(id, rank.axes))
    for ax in rank.axes: assert ax.get_xlim()[1] > 12               # the whole depth is on the axes
    rank.apply(depth=8)
    for ax, cid in zip(rank.axes, ids): ax.callbacks.disconnect(cid)


def test_dragging_back_keeps_the_axes_and_nothing_is_clipped():
    "β up then back down: the ratio and spike ranges grow on the way up and stay on the way back."
    ex = RankExplorer(width=16, depth=16, background=False)
    def inside():
        for key, line in ex.current.items():
            lo, hi = sorted(line.axes.get_ylim()); y = np.asarray(line.get_ydata(), float)
            y = y[np.isfinite(y)]
            assert y.size and lo <= y.min() and y.max() <= hi, (key, (lo, hi), (y.min(), y.max()))
    for beta in np.geomspace(0.7, 1.4, 5): ex.apply(beta=float(beta)); inside()
    moves = ex.live.axis_draws + ex.live.full_draws
    for beta in np.geomspace(1.4, 0.7, 5)[1:]: ex.apply(beta=float(beta)); inside()
    assert ex.live.axis_draws + ex.live.full_draws == moves, "the axes moved on the way back"
    ex.close()


def test_going_back_is_a_cache_hit_with_the_same_curves():
    ex = RankExplorer(width=16, depth=8); assert ex.wait(120)
    first = ex.current["jacobian"].get_ydata().copy()
    ex.controls["placement"].value = "post"; assert ex.wait(120)
    hits = ex.cache_hits
    ex.controls["placement"].value = "pre"; assert ex.wait(120)
    assert ex.cache_hits == hits + 1
    np.testing.assert_array_equal(ex.current["jacobian"].get_ydata(), first)
    ex.close()


SCRIPT = """
import sys, time
from autonorm_explorer.explore.rank import RankExplorer, ThresholdExplorer, PathExplorer
closed = RankExplorer(width=128, depth=96)
live = [RankExplorer(width=128, depth=96), ThresholdExplorer(width=64, trials=10), PathExplorer(width=32, depth=40)]
time.sleep(0.5)                                   # the workers are now inside a computation
assert not (closed.wait(0) or live[0].wait(0) or live[1].wait(0)), "finished before the exit: it would prove nothing"
closed.close()                                    # close() stops and joins its worker
assert not closed._worker.is_alive()
print("computing", flush=True)
how = sys.argv[1]
if how == "exit": sys.exit(3)
if how == "raise": raise RuntimeError("boom")
"""


@pytest.mark.parametrize("how,status", [("end", 0), ("exit", 3), ("raise", 1)])
def test_interpreter_exits_with_its_own_status_while_every_explorer_computes(tmp_path, how, status):
    script = tmp_path / "exit_script.py"; script.write_text(textwrap.dedent(SCRIPT))
    out = subprocess.run([sys.executable, str(script), how], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "computing" in out.stdout, out.stderr[-2000:]
    assert out.returncode == status, (out.returncode, out.stderr[-2000:])
    assert "terminate called" not in out.stderr
    if how == "raise": assert "RuntimeError: boom" in out.stderr


def test_after_many_moves_the_fast_paths_show_what_a_full_draw_shows():
    "β drags and switches (axes repainted alone, labels pinned): the PNG equals a plain draw."
    ex = RankExplorer(width=16, depth=16, background=False)
    for key, value in [("beta", 0.7), ("beta", 1.4), ("placement", "post"), ("branch", "single"),
                       ("placement", "pre"), ("activation", "tanh"), ("branch", "two"),
                       ("beta", 0.9)]:
        ex.controls[key].value = value
    assert ex.live.axis_draws >= 3, ex.live.axis_draws                 # the repaint path did run
    shown = np.asarray(Image.open(io.BytesIO(ex.live.png)).convert("RGBA"))
    for a in ex.live.dynamic: a.set_animated(False)
    ex.live.canvas.draw()
    np.testing.assert_array_equal(shown, np.asarray(ex.live.canvas.buffer_rgba()))
    ex.close()
