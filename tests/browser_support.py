"""What the real-browser tests share: Debian's chromium with the flags this machine needs, skip-or-fail when it
is missing (a skip on a laptop, a failure under CI=true), the browser itself (`chromium`), a free loopback port,
waiting for a local server, the JupyterLab server the notebook tests drive (`jupyter_lab`), and opening a
notebook there and running it all (`open_and_run_all`, `wait_idle`)."""
import contextlib, json, os, re, secrets, signal, socket, subprocess, sys, time, urllib.parse, urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = Path(os.environ.get("AUTONORM_CHROMIUM", "/usr/bin/chromium"))
# no sandbox as root; no background networking (this machine's closed network refuses it, noisily)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def need(condition: bool, why: str):
    "Skip on a laptop without the browser; fail under CI=true (a browser test is never skipped in CI)."
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {why}: install it (make setup does, as root)")
    pytest.skip(why)


def need_browser():
    "Chromium and Python's playwright, or skip/fail as `need` says."
    need(CHROMIUM.exists(), f"{CHROMIUM} is missing (Debian package chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        need(False, "Python playwright is not installed")


@contextlib.contextmanager
def chromium():
    "Debian's chromium, headless with this machine's flags, closed however the block ends."
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def free_port() -> int:
    "A TCP port on 127.0.0.1 that nothing listens on now."
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float, proc: subprocess.Popen, log: Path, what: str = "jupyter lab"):
    "Wait until `url` answers 200, failing early (with the log's tail) if `proc` exits."
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited early:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{what} did not answer {url} within {timeout} s:\n{log.read_text()[-3000:]}")


KERNEL = "autonorm-explorer"                              # the project's kernelspec (make setup registers it)
KERNELSPEC = {"name": KERNEL, "display_name": "Python (autonorm-explorer)", "language": "python"}


@contextlib.contextmanager
def jupyter_lab(root: Path, notebooks: dict, start_timeout: float = 90):
    """JupyterLab on a free loopback port with a token, serving `notebooks` ({file name: notebook as a dict})
    from `root` with the project kernel; yields {url, token, root, log} and shuts the server down after.

    Every cell is attached and rendered (JupyterLab's default skips rendering off-screen cells, whose text
    then reads as ""). Skips or fails first, as `need_browser` says, when there is no browser to drive it."""
    need_browser()
    for name, nb in notebooks.items():
        nb = json.loads(json.dumps(nb))                    # a copy, as plain JSON (an nbformat node is a dict)
        nb.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
        (root / name).write_text(json.dumps(nb))
    port, token, log = free_port(), secrets.token_hex(16), root / "lab.log"
    settings = root / "user-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(root / "runtime"), PYTHONUNBUFFERED="1",
               JUPYTERLAB_SETTINGS_DIR=str(root / "user-settings"))
    cmd = [str(Path(sys.executable).with_name("jupyter")), "lab", "--allow-root", "--no-browser", "--ip=127.0.0.1",
           f"--port={port}", "--port-retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--LabApp.news_url=None", f"--LabApp.workspaces_dir={root / 'workspaces'}"]
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/api/status?token={token}", start_timeout, proc, log)
        yield dict(url=f"http://127.0.0.1:{port}", token=token, root=root, log=log)
    finally:
        proc.send_signal(signal.SIGINT)                    # lab asks to confirm: twice = shut down
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


IDLE = re.compile(r"autonorm-explorer\) \| Idle")        # status bar: "<kernel display name> | Idle"


def wait_idle(page, timeout_ms: int = 120_000):
    "The kernel really exists and is idle: the status bar shows '<kernel> | Idle' (not the pre-kernel 'idle')."
    page.locator(".jp-StatusBar-Widget", has_text=IDLE).first.wait_for(timeout=timeout_ms)


def open_and_run_all(page, lab: dict, notebook: str, timeout_ms: int = 120_000):
    "Open `notebook` in the JupyterLab server `lab` (fresh layout), wait for its kernel, then Run → Run All Cells."
    page.goto(f"{lab['url']}/lab/tree/{notebook}?reset&token={lab['token']}", timeout=timeout_ms)
    page.locator(".jp-Notebook").first.wait_for(timeout=timeout_ms)
    wait_idle(page, timeout_ms)                            # the kernel exists; Run All is not dropped
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()


# ---- checking a built page in the browser (tests/test_docs_site.py)

# TeX that MathJax should have turned into formulas: whatever of it is left in the rendered text is a bug.
RAW_TEX = re.compile(r"\$[^$\s][^$]*?\$|\\\(|\\\)|\\\[|\\\]|\\(?:t?frac|d?frac|operatorname|lVert|rVert|sqrt|mathrm|"
                     r"mathbf|text|sum|prod|ell|beta|alpha|gamma|sigma|tau|rho|pi|le|ge|approx|cdot|times|infty)\b")

# Text of the page as a reader sees it (no code, no formulas MathJax typeset), images, links, overflow.
PAGE_REPORT_JS = r"""async () => {
  const t0 = performance.now();
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const mathjax_ms = window.MathJax && MathJax.startup ? performance.now() : null;
  const imgs = [...document.images];
  imgs.forEach(i => { i.loading = "eager"; });
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  const main = document.querySelector(".bd-article") || document.querySelector("main") || document.body;
  const clone = main.cloneNode(true);
  clone.querySelectorAll("pre, code, script, style, textarea, mjx-container, .MathJax, svg, .highlight")
       .forEach(e => e.remove());
  const box = document.querySelector(".bd-article-container") || main;
  return {
    text: clone.textContent,
    mathjax: !!window.MathJax, mathjax_ready_ms: mathjax_ms, formulas: document.querySelectorAll("mjx-container").length,
    mathjax_errors: document.querySelectorAll("mjx-merror, [data-mjx-error]").length,
    broken_images: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => (i.src || "").slice(0, 80)),
    links: [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href")),
    overflow: {box: box.scrollWidth - box.clientWidth, page: document.documentElement.scrollWidth - window.innerWidth},
  };
}"""


def raw_tex(text: str) -> list[str]:
    "The TeX fragments left in rendered text."
    return RAW_TEX.findall(text)


def broken_internal_links(page_path: Path, links: list[str]) -> list[str]:
    "The links of a built page (a file) that point to a missing file or to an anchor no element of it has."
    bad = []
    for href in links:
        if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("//"):
            continue                                             # http(s), mailto, data: not ours to resolve
        target, _, anchor = href.partition("#")
        target = target.split("?")[0]
        dest = (page_path.parent / urllib.request.url2pathname(target)).resolve() if target else page_path
        if dest.is_dir():
            dest = dest / "index.html"
        if not dest.exists():
            bad.append(href)
            continue
        if anchor and dest.suffix == ".html":
            ids = set(re.findall(r"""\b(?:id|name)=["']([^"']+)["']""", dest.read_text(errors="replace")))
            if urllib.parse.unquote(anchor) not in ids:
                bad.append(href)
    return bad


def offline(page, allow=("file:", "data:", "blob:", "about:", "http://127.0.0.1", "http://localhost")):
    "Abort every request of `page` that would leave the machine; the aborted ones show as failed requests."
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(allow) else route.abort())


def watch(page) -> dict:
    """Collect the console errors, page errors and failed requests of `page`. Each request is tagged with the
    document that made it (its own URL for a navigation), so a request that fails after its page was left is
    never blamed on the page that came next."""
    seen = dict(errors=[], failed=[], doc={}, pending=set())
    def started(r):
        seen["doc"][r] = r.url if r.is_navigation_request() else page.url
        seen["pending"].add(r)
    def ended(r, why=None):
        seen["pending"].discard(r)
        doc = seen["doc"].pop(r, page.url)
        if why: seen["failed"].append((doc, why))
    page.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", lambda r: ended(r, f"{r.url[:100]} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and seen["failed"].append(
        (seen["doc"].get(r.request, page.url), f"{r.url[:100]} (HTTP {r.status})")))
    return seen


SETTLE_S = 10   # how long a page's requests may still run after its load event (MathJax asks for fonts then)


def page_problems(page, url: str, path: Path, seen: dict) -> dict:
    """Open `url` (the built file `path`) in `page` and return its report: problems found, and what was measured.
    The page's requests still running after `load` (fonts MathJax asks for) are waited for, up to `SETTLE_S`,
    so that their failures count for this page and the next navigation does not cut them off."""
    seen["errors"].clear(); seen["failed"].clear(); seen["pending"].clear()
    t0 = time.monotonic()
    page.goto(url, wait_until="load")
    here = page.url
    rep = page.evaluate(PAGE_REPORT_JS)
    rep["seconds"] = time.monotonic() - t0
    deadline = time.monotonic() + SETTLE_S
    while any(seen["doc"].get(r) == here for r in seen["pending"]) and time.monotonic() < deadline:
        page.wait_for_timeout(25)
    rep["raw_tex"] = raw_tex(rep.pop("text"))
    rep["broken_links"] = broken_internal_links(path, rep.pop("links"))
    failed = [why for doc, why in seen["failed"] if doc == here]
    failed += [f"{why}, after its page {doc} was left" for doc, why in seen["failed"]   # a late fault is still one;
               if doc != here and "ERR_ABORTED" not in why]         # a request cut off by leaving its page is not
    failed += [f"{r.url[:100]} (still loading {SETTLE_S} s after load)" for r in seen["pending"]
               if seen["doc"].get(r) == here]
    rep["console_errors"], rep["failed_requests"] = list(seen["errors"]), failed
    return rep
