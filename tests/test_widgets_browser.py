"""Real-browser test of the explorers: JupyterLab on 127.0.0.1 driven by Debian chromium through Playwright.

A person's path: open nbs/explorers.ipynb, run it, drag the β slider, click "post", and see the figure
and the readout change; hover the Jacobian curve and read its value under the cursor, click to pin it;
the "link to this view" names the settings; no error in the browser console. Screenshots go to tests/artifacts/
(gitignored). Skipped only when chromium (or playwright) is missing AND CI is not "true"; under
CI=true a missing browser is a failure. Never runs `playwright install` (no browser downloads here).
"""
import json, re, shutil
from pathlib import Path

import pytest

from browser_support import ARTIFACTS, chromium, jupyter_lab, open_and_run_all, wait_idle

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def lab(tmp_path):
    "JupyterLab serving a copy of nbs/explorers.ipynb with the project kernel (browser_support.jupyter_lab)."
    with jupyter_lab(tmp_path, {"explorers.ipynb": json.loads((ROOT / "nbs" / "explorers.ipynb").read_text())}) as lab:
        yield lab


def _readout(explorer) -> str:
    return explorer.locator(".explorer-readout").inner_text()


def _wait_changed(page, explorer, before: str, timeout_ms: int = 120_000) -> str:
    "Wait until the readout differs from `before`, the status says ready and the kernel is idle."
    page.wait_for_function(
        """([root, before]) => { const el = document.querySelector(root);
             if (!el) return false;
             const r = el.querySelector('.explorer-readout'), s = el.querySelector('.explorer-status');
             return r && s && r.innerText !== before && r.innerText.includes('erank') &&
                    s.innerText.startsWith('ready'); }""", arg=[".rankexplorer", before], timeout=timeout_ms)
    wait_idle(page)
    return _readout(explorer)


def _final_jacobian(readout: str) -> float:
    return float(re.search(r"Jacobian erank/d at L: ([0-9.]+)", readout).group(1))


def _hover_and_pin(page, explorer, img):
    """Walk down the Jacobian panel clicking until a click pins a readout (a click on a curve pins it), then
    hover that spot and read the value under the cursor. Each event goes through the kernel, so wait for it."""
    box = img.bounding_box()
    x = box["x"] + 0.30 * box["width"]                           # inside the top-left panel (Jacobian erank/d)
    ys = [box["y"] + box["height"] * (0.08 + 0.38 * i / 80) for i in range(81)]
    pins, hover = explorer.locator(".explorer-pins"), explorer.locator(".explorer-hover")
    tried = []
    for y in ys:
        page.mouse.click(x, y); tried.append(y)
        page.wait_for_timeout(120)
        if "pinned:" in pins.inner_text(): break
    pins.filter(has_text="pinned: depth ℓ = ").wait_for(timeout=60_000)
    pinned = pins.inner_text()
    assert re.search(r"pinned: depth ℓ = \d+ · Jacobian erank/d = [0-9.]+ \((current|held 1)", pinned), pinned
    for y in reversed(tried[-8:]):                               # the click that pinned was one of the last
        page.mouse.move(x, y)
        try: hover.filter(has_text="Jacobian erank/d").wait_for(timeout=4_000); break
        except Exception: continue
    text = hover.inner_text()
    assert re.search(r"under the cursor: depth ℓ = \d+ · Jacobian erank/d = [0-9.]+ \((current|held 1)", text), text
    page.screenshot(path=ARTIFACTS / "explorer_5_hover_and_pin.png")


def test_rank_explorer_in_chromium(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors = []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        try:
            open_and_run_all(page, lab, "explorers.ipynb")
            explorer = page.locator(".rankexplorer").first
            explorer.wait_for(timeout=120_000)
            first = _wait_changed(page, explorer, "")
            page.wait_for_function("() => [...document.querySelectorAll('.jp-OutputArea-output pre')]"
                                   ".some(p => p.innerText.includes('\"explorer\": \"RankExplorer\"'))", timeout=300_000)
            wait_idle(page)
            explorer.scroll_into_view_if_needed()
            img = explorer.locator("img").first
            png0, src0 = img.screenshot(), img.get_attribute("src")
            page.screenshot(path=ARTIFACTS / "explorer_1_initial.png")

            # watch the status line: the "computing…" state must reach the browser
            page.evaluate("""() => { window.__sawComputing = false;
                const s = document.querySelector('.rankexplorer .explorer-status');
                new MutationObserver(() => { if (s.innerText.includes('computing')) window.__sawComputing = true; })
                    .observe(s, {subtree: true, childList: true, characterData: true}); }""")
            # drag the β handle to the right with the mouse, like a person
            beta = explorer.locator(".widget-slider", has=page.locator(".widget-label", has_text=re.compile(r"^β$")))
            handle = beta.locator(".noUi-handle").first
            box = handle.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] / 2 + 25, box["y"] + box["height"] / 2, steps=8)
            page.mouse.up()
            second = _wait_changed(page, explorer, first)
            beta_shown = beta.locator(".widget-readout").inner_text()
            assert float(beta_shown) > 1.0, beta_shown
            png1, src1 = img.screenshot(), img.get_attribute("src")
            page.screenshot(path=ARTIFACTS / "explorer_2_beta_moved.png")
            assert png1 != png0 and src1 != src0, "the figure did not change after moving β"
            assert page.evaluate("window.__sawComputing"), "the status line never said computing…"

            # Hold the Pre-Norm curves, then switch placement to Post-Norm (click, then keyboard)
            explorer.locator("button", has_text=re.compile(r"^Hold$")).click()
            explorer.locator(".explorer-status", has_text="held 1").wait_for(timeout=60_000)
            post = explorer.locator("button.widget-toggle-button", has_text=re.compile(r"^post$"))
            post.focus(); page.keyboard.press("Enter")          # keyboard: a focused toggle button
            third = _wait_changed(page, explorer, second)
            png2 = img.screenshot()
            page.screenshot(path=ARTIFACTS / "explorer_3_post_norm_vs_held_pre.png")
            explorer.screenshot(path=ARTIFACTS / "explorer_3_explorer_only.png")
            assert png2 != png1, "the figure did not change after switching to Post-Norm"
            assert _final_jacobian(third) < _final_jacobian(second), (second, third)
            cfg = explorer.locator(".explorer-config textarea").first.input_value()
            assert '"placement": "post"' in cfg and '"held"' in cfg, cfg
            href = explorer.locator(".explorer-link a").first.get_attribute("href")
            assert href.startswith("?explorer=rank&") and "placement=post" in href, href
            _hover_and_pin(page, explorer, img)
            for name, needle in [("thresholdexplorer", "1/p(relu"), ("pathexplorer", "mean order")]:
                other = page.locator(f".{name}").first
                other.scroll_into_view_if_needed()
                assert needle in other.locator(".explorer-readout").inner_text()
                other.screenshot(path=ARTIFACTS / f"explorer_4_{name}.png")
        except Exception:
            page.screenshot(path=ARTIFACTS / "explorer_failure.png")
            shutil.copy(lab["log"], ARTIFACTS / "lab.log")
            raise
    assert not errors, "browser console errors:\n" + "\n".join(errors)
