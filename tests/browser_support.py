"""What the real-browser tests share: Debian's chromium with the flags this machine needs, skip-or-fail when it is
missing (a skip on a laptop, a failure under CI=true), a free loopback port, and waiting for a local server."""
import os, socket, subprocess, time, urllib.request
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
