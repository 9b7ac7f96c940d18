"""Memory one visitor of the explorers app costs (make app): not a timed test.

Starts the app as `make app` does (autonorm_explorer.web.app.app_main, which becomes the Voilà process)
on a free port, measures the server alone, then opens N visitors (separate browser contexts in
headless chromium), waits until each page's three explorers have drawn, and measures every visitor
kernel (the server's child processes): RSS and USS (memory the process alone holds; shared library
pages are not counted again). Then it closes the pages and counts the kernels left (the page shuts
its kernel down on leaving). Prints one line per kernel and the per-visitor summary.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_app_memory.py [--visitors 3]
"""
import argparse, os, re, signal, socket, subprocess, sys, time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
EXPLORERS = (".rankexplorer", ".thresholdexplorer", ".pathexplorer")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def kernels(server: psutil.Process) -> list[psutil.Process]:
    return [p for p in server.children(recursive=True) if "ipykernel" in " ".join(p.cmdline())]


def mb(n: float) -> str: return f"{n / 2**20:.0f} MiB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--visitors", type=int, default=3)
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright
    port, log = free_port(), ROOT / "build" / "bench_app.log"
    log.parent.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", "from autonorm_explorer.web.app import app_main; app_main()",
                                 ], cwd=ROOT, env=dict(env, PORT=str(port)), stdout=fh, stderr=subprocess.STDOUT)
    try:
        while "Voilà is running at" not in log.read_text():
            if proc.poll() is not None: raise SystemExit(log.read_text())
            time.sleep(0.3)
        server = psutil.Process(proc.pid)
        print(f"server alone: RSS {mb(server.memory_info().rss)}, USS {mb(server.memory_full_info().uss)}")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, headless=True)
            pages = []
            t0 = time.perf_counter()
            for i in range(a.visitors):
                page = browser.new_context().new_page()
                page.goto(f"http://127.0.0.1:{port}/", timeout=300_000)
                pages.append(page)
            for page in pages:
                for root in EXPLORERS:
                    page.wait_for_function("(r) => { const el = document.querySelector(r); if (!el) return false;"
                                           " const s = el.querySelector('.explorer-status');"
                                           " return s && s.innerText.startsWith('ready'); }", arg=root, timeout=300_000)
            print(f"{a.visitors} visitors' pages drawn in {time.perf_counter() - t0:.0f} s")
            time.sleep(2)
            ks = kernels(server)
            uss, rss = [], []
            for k in ks:
                m = k.memory_full_info(); uss.append(m.uss); rss.append(m.rss)
                print(f"  kernel pid {k.pid}: RSS {mb(m.rss)}, USS {mb(m.uss)}")
            print(f"server with visitors: RSS {mb(server.memory_info().rss)}")
            print(f"per visitor: USS {mb(sum(uss) / len(uss))} (RSS {mb(sum(rss) / len(rss))}) over {len(ks)} kernels")
            for page in pages: page.goto("about:blank")
            time.sleep(3)
            print(f"kernels left after the visitors left: {len(kernels(server))}")
            browser.close()
    finally:
        proc.send_signal(signal.SIGTERM); proc.wait(30)


if __name__ == "__main__":
    main()
