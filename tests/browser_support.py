"""What the real-browser tests share: Debian's chromium with the flags this machine needs, skip-or-fail when it
is missing (a skip on a laptop, a failure under CI=true), the browser itself (`chromium`), a free loopback port,
waiting for a local server, the JupyterLab server the notebook tests drive (`jupyter_lab`), and opening a
notebook there and running it all (`open_and_run_all`, `wait_idle`)."""
import contextlib, json, os, re, secrets, signal, socket, subprocess, sys, time, urllib.request
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
