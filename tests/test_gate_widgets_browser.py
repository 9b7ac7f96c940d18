"""Real-browser test of GateExplorer and FreezeExplorer: JupyterLab on 127.0.0.1 driven by Debian
chromium through Playwright, the same set-up as tests/test_widgets_browser.py.

A person's path: run a notebook that shows both explorers; drag the τ slider of GateExplorer with
the mouse and see the figure and the readout change; press Start on FreezeExplorer, watch two
epochs arrive, press Stop and see the run end as "stopped"; no error in the browser console. The
FreezeExplorer of this notebook is tiny (one block of width 16 on 128 digits) so that an epoch
takes well under a second. Screenshots go to tests/artifacts/ (gitignored). Skipped only when
chromium (or playwright) is missing AND CI is not "true"; under CI=true a missing browser is a
failure. Never runs `playwright install` (no browser downloads here).
"""
import json, re, shutil
from pathlib import Path

import pytest

from browser_support import ARTIFACTS, chromium, jupyter_lab, open_and_run_all, wait_idle

ROOT = Path(__file__).resolve().parents[1]
CELLS = [
    "from autonorm_explorer.explore.gates import GateExplorer, FreezeExplorer",
    "gate = GateExplorer()\ngate",
    "freeze = FreezeExplorer(epochs=50, t_freeze=2, depth=1, dim=16, train_size=128)\nfreeze",
]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def lab(tmp_path):
    "JupyterLab serving a notebook with both explorers (browser_support.jupyter_lab)."
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    with jupyter_lab(tmp_path, {"gates.ipynb": nb}) as lab:
        yield lab


def _wait_js(page, root: str, condition: str, timeout_ms: int = 120_000):
    "Wait until `condition` (JS over rt = readout, st = status text) holds for explorer `root`."
    page.wait_for_function(
        f"""(root) => {{ const el = document.querySelector(root); if (!el) return false;
             const r = el.querySelector('.explorer-readout');
             const s = el.querySelector('.explorer-status');
             if (!r || !s) return false;
             const rt = r.textContent, st = s.textContent; return {condition}; }}""",
        arg=root, timeout=timeout_ms)


def _drag_right(page, slider, pixels: int):
    "Drag a slider's handle to the right with the mouse, like a person."
    box = slider.locator(".noUi-handle").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + pixels, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()


def test_gate_and_freeze_explorers_in_chromium(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors = []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        try:
            open_and_run_all(page, lab, "gates.ipynb")

            # GateExplorer: first view, then drag τ to the right
            gate = page.locator(".gateexplorer").first
            gate.wait_for(timeout=120_000)
            _wait_js(page, ".gateexplorer", "rt.includes('π_DyT') && st.startsWith('ready')")
            wait_idle(page)
            first = gate.locator(".explorer-readout").text_content()
            img = gate.locator("img").first
            png0 = img.screenshot()
            gate.screenshot(path=ARTIFACTS / "gate_1_initial.png")
            tau_label = page.locator(".widget-label", has_text=re.compile(r"^τ$"))
            tau = gate.locator(".widget-slider", has=tau_label)
            _drag_right(page, tau, 40)
            _wait_js(page, ".gateexplorer", f"rt !== {json.dumps(first)} && "
                                            "rt.includes('π_DyT') && st.startsWith('ready')")
            wait_idle(page)
            tau_shown = float(tau.locator(".widget-readout").text_content())
            second = gate.locator(".explorer-readout").text_content()
            assert tau_shown > 0.5, tau_shown
            assert f"at τ = {tau_shown:.3g}" in second, (tau_shown, second)
            png1 = img.screenshot()
            gate.screenshot(path=ARTIFACTS / "gate_2_tau_dragged.png")
            assert png1 != png0, "the figure did not change after dragging τ"
            cfg = json.loads(gate.locator(".explorer-config textarea").first.input_value())
            assert cfg["explorer"] == "GateExplorer" and cfg["tau"] > 0.5, cfg

            # FreezeExplorer: idle until Start; watch two epochs; Stop
            freeze = page.locator(".freezeexplorer").first
            freeze.scroll_into_view_if_needed()
            freeze.locator(".explorer-status", has_text="Start").wait_for(timeout=60_000)
            freeze.screenshot(path=ARTIFACTS / "freeze_1_before_start.png")
            freeze.locator("button", has_text=re.compile(r"^Start$")).click()
            _wait_js(page, ".freezeexplorer",
                     "/epoch [2-9][0-9]*\\/50/.test(rt) && rt.includes('running')")
            two = freeze.locator(".explorer-readout").text_content()
            freeze.screenshot(path=ARTIFACTS / "freeze_2_two_epochs.png")
            assert "AutoNorm-S" in two and "held-out acc" in two, two
            freeze.locator("button", has_text=re.compile(r"^Stop$")).click()
            _wait_js(page, ".freezeexplorer",
                     "rt.includes('stopped') && st.startsWith('ready')", 60_000)
            wait_idle(page)
            stopped = freeze.locator(".explorer-readout").text_content()
            freeze.screenshot(path=ARTIFACTS / "freeze_3_stopped.png")
            epochs = int(re.search(r"epoch (\d+)/50", stopped).group(1))
            assert 2 <= epochs < 50, stopped
            # T_freeze = 2 was reached: the rule has spoken
            assert "freeze fired" in stopped or "no freeze" in stopped, stopped
            page.screenshot(path=ARTIFACTS / "gate_freeze_page.png")
        except Exception:
            page.screenshot(path=ARTIFACTS / "gate_freeze_failure.png")
            shutil.copy(lab["log"], ARTIFACTS / "gate_freeze_lab.log")
            raise
    assert not errors, "browser console errors:\n" + "\n".join(errors)
