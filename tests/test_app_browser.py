"""The explorers app (make app) in a real browser: Voilà serving nbs/app.ipynb, driven by Debian
chromium through Playwright.

A visitor's path: open a link that sets Post-Norm, see Post-Norm, drag β and see the figure change,
follow "link to this view" and get the same view, download the export, and open a bad link that
shows the explorer's error instead of a traceback. The server is started like `make app` does
(autonorm_explorer.web.app.app_main, which becomes the Voilà process) and stopped by its process id.
Screenshots go to tests/artifacts/. Skipped only when chromium or playwright is missing and CI is
not "true".
"""
import os, re, shutil, signal, subprocess, sys, time
from pathlib import Path

import pytest

from browser_support import (ARTIFACTS, chromium, need_browser,
                             free_port as _free_port)

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def app(tmp_path):
    "The app on a free port, started as `make app` starts it; stopped by its process id."
    need_browser()
    port, log = _free_port(), tmp_path / "app.log"
    env = dict(os.environ, PYTHONPATH=str(ROOT), PORT=str(port), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-c", "from autonorm_explorer.web.app import app_main; app_main()"]
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        t0 = time.monotonic()
        while "Voilà is running at" not in log.read_text():
            if proc.poll() is not None: raise RuntimeError(f"the app exited early:\n{log.read_text()[-3000:]}")
            if time.monotonic() - t0 > 90: raise TimeoutError(f"the app did not start in 90 s:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        assert f"App: http://127.0.0.1:{port}/" in log.read_text(), "the app did not print its address"
        yield dict(url=f"http://127.0.0.1:{port}", pid=proc.pid, log=log, tmp=tmp_path)
    finally:
        os.kill(proc.pid, signal.SIGTERM)                 # app_main exec'd Voilà: this pid is the server
        try: proc.wait(20)
        except subprocess.TimeoutExpired: os.killpg(proc.pid, signal.SIGKILL); proc.wait(10)


def _wait_ready(page, root: str, timeout_ms: int = 180_000):
    "Wait until the explorer under `root` has drawn: readout filled, status 'ready'."
    page.wait_for_function(
        """(root) => { const el = document.querySelector(root); if (!el) return false;
             const r = el.querySelector('.explorer-readout'), s = el.querySelector('.explorer-status');
             return r && s && r.innerText.includes('erank') && s.innerText.startsWith('ready'); }""",
        arg=root, timeout=timeout_ms)


def _active_placement(explorer) -> str:
    return explorer.locator("button.widget-toggle-button.mod-active").first.inner_text()


def test_app_links_drag_and_download(app):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors = []
    with chromium() as browser:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        # Voilà's page template links Font Awesome from a CDN, unreachable here: answer those two
        # requests with an empty stylesheet so that the console shows only the app's own errors.
        ctx.route(re.compile(r"https://cdn\.jsdelivr\.net/npm/@fortawesome/.*\.css"),
                  lambda route: route.fulfill(status=200, content_type="text/css", body=""))
        page = ctx.new_page()
        # a failed request is reported with its address (the console line alone does not say which)
        page.on("console", lambda m: m.type == "error" and not m.text.startswith("Failed to load resource")
                and errors.append(f"console: {m.text}"))
        page.on("response", lambda r: r.status >= 400 and errors.append(f"HTTP {r.status}: {r.request.method} {r.url}"))
        # leaving a page sends the kernel shutdown as a beacon, which the browser reports as aborted
        # while the server still gets it (checked below in the server's log)
        page.on("requestfailed", lambda r: "/voila/api/shutdown/" not in r.url
                and errors.append(f"request failed: {r.url} ({r.failure})"))
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        try:
            page.goto(f"{app['url']}/?explorer=rank&placement=post", timeout=180_000)
            top = page.locator(".rankexplorer").first          # the linked view is at the top
            top.wait_for(timeout=180_000)
            _wait_ready(page, ".rankexplorer")
            assert "The view from your link" in page.inner_text("body")
            assert _active_placement(top) == "post", "the link did not set Post-Norm"
            assert "Traceback" not in page.content()
            assert page.locator("pre, code").filter(has_text="AppPage").count() == 0, "code is shown"
            img = top.locator("img").first
            src0 = img.get_attribute("src")
            page.screenshot(path=ARTIFACTS / "app_1_link_post_norm.png")

            beta = top.locator(".widget-slider", has=page.locator(".widget-label", has_text=re.compile(r"^β$")))
            handle = beta.locator(".noUi-handle").first
            box = handle.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] / 2 - 30, box["y"] + box["height"] / 2, steps=8)
            page.mouse.up()
            page.wait_for_function("([el, src]) => el.getAttribute('src') !== src",
                                   arg=[img.element_handle(), src0], timeout=120_000)
            _wait_ready(page, ".rankexplorer")
            beta_shown = beta.locator(".widget-readout").inner_text()
            assert float(beta_shown) < 1.0, beta_shown
            link = top.locator(".explorer-link a").first
            page.wait_for_function("([a, b]) => a.getAttribute('href').includes('beta=')",
                                   arg=[link.element_handle(), beta_shown], timeout=30_000)
            href = link.get_attribute("href")
            assert "placement=post" in href and "explorer=rank" in href, href
            page.screenshot(path=ARTIFACTS / "app_2_beta_dragged.png")

            top.locator("button", has_text=re.compile(r"^Export$")).click()
            dl_link = top.locator(".explorer-downloads a", has_text="figure.png")
            dl_link.wait_for(timeout=60_000)
            with page.expect_download() as dl:
                dl_link.click()
            saved = app["tmp"] / dl.value.suggested_filename
            dl.value.save_as(saved)
            assert saved.name == "rank-figure.png" and saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

            # follow the link to this view: same placement, same β
            page.goto(f"{app['url']}/{href}" if href.startswith("?") else href, timeout=180_000)
            again = page.locator(".rankexplorer").first
            again.wait_for(timeout=180_000)
            _wait_ready(page, ".rankexplorer")
            assert _active_placement(again) == "post"
            beta_again = again.locator(".widget-slider", has=page.locator(
                ".widget-label", has_text=re.compile(r"^β$"))).locator(".widget-readout").inner_text()
            assert beta_again == beta_shown, (beta_again, beta_shown)
            assert again.locator(".explorer-link a").first.get_attribute("href") == href
            page.screenshot(path=ARTIFACTS / "app_3_followed_link.png")

            # a bad link: the explorer's own message, the explorer at its defaults, no traceback
            page.goto(f"{app['url']}/?explorer=rank&placement=sideways", timeout=180_000)
            err = page.locator(".app-error").first
            err.wait_for(timeout=180_000)
            text = err.inner_text()
            assert "sideways" in text and "post" in text and "allowed" in text, text
            page.locator(".rankexplorer").first.wait_for(timeout=180_000)     # at its defaults (drawn or not)
            assert _active_placement(page.locator(".rankexplorer").first) == "pre"
            assert "Traceback" not in page.content()
            page.screenshot(path=ARTIFACTS / "app_4_bad_link.png")
        except Exception:
            page.screenshot(path=ARTIFACTS / "app_failure.png")
            shutil.copy(app["log"], ARTIFACTS / "app.log")
            raise
    assert not errors, "browser console errors:\n" + "\n".join(errors)
    log = app["log"].read_text()
    assert log.count("Kernel shutdown:") >= 2, f"leaving a page did not shut its kernel down:\n{log[-2000:]}"
