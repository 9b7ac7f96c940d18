"""Run the benchmarks whose numbers the user guide's measurements page shows, and write what they printed.

Writes `benchmarks/results.json` (the machine, the commit, the date, and for every benchmark its command, wall
time, exit status and output) and regenerates `docs/guide/measured.md` from it with
`autonorm_explorer.web.guide.measured_page`; the site's copy of that page adds the last `make test`'s step times.
Commit both files after a run. Each benchmark measures what it compares side by side in one run (ratios are what
to read); this script only runs them one after the other, each in its own process, and keeps what they print.

    .venv/bin/python benchmarks/run_all.py                 # the default set (about 10 minutes on 2 busy cores)
    .venv/bin/python benchmarks/run_all.py --all           # also the app's memory per visitor (needs chromium)
    .venv/bin/python benchmarks/run_all.py --only import widgets-defaults   # the others' results are kept
    .venv/bin/python benchmarks/run_all.py --page-only     # rewrite docs/guide/measured.md from results.json
"""
import argparse, datetime, json, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from autonorm_explorer.core.files import atomic_write_json, atomic_write_text  # noqa: E402
from autonorm_explorer.web.guide import GUIDE_DIR, MEASURED, RESULTS, git_commit, machine, measured_page  # noqa: E402

PY = "python"      # how commands are shown; they run with this interpreter

IMPORT_TIME = ("import time; t = time.perf_counter(); import autonorm_explorer as ae; a = time.perf_counter() - t; "
               "t = time.perf_counter(); ae.rank_profile; print(a, time.perf_counter() - t)")

# name -> (title, what it measures, arguments after `python`, heavy)
BENCHES = {
    "import": ("Import time", "How long `import autonorm_explorer` takes in a fresh interpreter (the lazy "
               "re-exports import nothing heavy), and the first use of `ae.rank_profile`, which imports torch and "
               "the rank tools. Median of 5 fresh processes.", ["benchmarks/run_all.py", "--import-time"], False),
    "widgets-defaults": ("Explorer latency at the defaults", "RankExplorer at d = 128, L = 32, n = 64: the time "
                         "from a control change to the new figure delivered, over a fixed mixed sequence of β drags "
                         "and switches, and the bare computation alone, on one core (this tree only).",
                         ["benchmarks/bench_widgets.py", "--quick", "--before-ref", "", "--rounds", "1"], False),
    "widgets-large": ("Explorer latency at large sizes", "RankExplorer at d = 256, L = 64 and d = 512, L = 128: "
                      "time to the first paint and to completion after a β change, and a change to a new size "
                      "(new weights, drawn block by block), on one core (this tree only).",
                      ["benchmarks/bench_widgets.py", "--large-only", "--large-changes", "1", "--before-ref", ""],
                      False),
    "rank-profile": ("rank_profile against its floor and the naive way", "`rank_profile` against a bare loop "
                     "of the same matrix products, and against `torch.func.jacrev` of the truncated network; cost "
                     "exponents; the largest size under 150 ms.", ["benchmarks/bench_rank_profile.py", "--quick",
                                                                   "--threads", "1", "--device", "cpu"], False),
    "block-rank": ("block_rank_profile against jacrev", "Jacobian columns chained block by block with jvp against "
                   "jacrev of every prefix, on a small ViT-Lite; one sample's profile over model sizes.",
                   ["benchmarks/bench_block_rank.py", "--quick"], False),
    "rank-estimate": ("Jacobian erank: estimate against exact", "`block_rank_profile(method=\"estimate\")` "
                      "(stochastic Lanczos quadrature through jvp/vjp) against the exact profile at the largest "
                      "size `auto` computes exactly (a 4-block GPT-2 of width 128 on 16 tokens, K = 2048): wall "
                      "times, largest deviation, interval coverage. `--real` adds GPT-2 small, BERT-base, ViT-B/16.",
                      ["benchmarks/bench_rank_estimate.py"], True),
    "autonorm-step": ("AutoNorm train step", "Forward + backward + AdamW of the paper's ViT-Lite on a 64-image "
                      "batch, AutoNorm against LayerNorm, interleaved; the selectors' parameter overhead.",
                      ["benchmarks/bench_autonorm_step.py", "--rounds", "3", "--steps", "2"], False),
    "autonormify": ("autonormify on a GPT-2 config", "Conversion time and train step converted against "
                    "unconverted, on a 4-layer d = 128 GPT-2 built from a config.",
                    ["benchmarks/bench_autonormify.py", "--quick"], False),
    "autonormify-forward": ("AutoNorm forward cost on HF models", "Forward and forward + backward of a model "
                            "converted with autonormify against the unconverted one, interleaved, CPU-time medians "
                            "on one thread: one norm site alone at width 64 and a width-64 BERT (4 layers, 9 sites, "
                            "4 x 128 tokens); the `ln` wrapper alone separates the wrapper's cost from AutoNorm's.",
                            ["benchmarks/bench_autonormify.py", "--forward-only", "--models", "site64,bert64",
                             "--before-ref", ""], False),
    "vision-batches": ("On-device vision batches", "Images/s of `VisionBatches` against per-sample DataLoader "
                       "pipelines doing the same augmentation, on 2000 digits-sized images.",
                       ["benchmarks/bench_vision_batches.py", "--n", "2000"], False),
    "checked": ("The signature check at its hottest call", "`core.validation.checked` on "
                "`GateLogger.on_step_end`, called after every training step: decorated against undecorated and "
                "against the old hand-written check, interleaved rounds, and its cost as a share of one step.",
                ["benchmarks/bench_checked.py"], False),
    "app-memory": ("Memory per visitor of make app", "The app's server alone, then each visitor's kernel (RSS "
                   "and USS) with one visitor in headless Chromium.",
                   ["benchmarks/bench_app_memory.py", "--visitors", "1"], True),
}


def import_time() -> int:
    "Print the median import time and first-use time over 5 fresh interpreters."
    runs = [tuple(map(float, subprocess.run([sys.executable, "-c", IMPORT_TIME], capture_output=True, text=True,
                                            check=True, cwd=ROOT).stdout.split())) for _ in range(5)]
    imp, use = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    each = ", ".join(f"{r[0] * 1e3:.0f}" for r in runs)
    print(f"import autonorm_explorer: {imp * 1e3:.0f} ms (median of 5; runs {each})")
    print(f"first use of ae.rank_profile (imports torch): {use:.2f} s (median of 5)")
    return 0


def run(name: str, timeout: float) -> dict:
    "Run one benchmark in its own process; its command, wall time, exit status and output."
    title, what, args, _ = BENCHES[name]
    print(f"== {name}: {PY} {' '.join(args)}", flush=True)
    t = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        rc, out = r.returncode, r.stdout + (f"\n{r.stderr[-2000:]}" if r.returncode else "")
    except subprocess.TimeoutExpired as e:
        partial = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc, out = 124, f"{partial}\n(stopped after {timeout:.0f} s)"
    seconds = time.perf_counter() - t
    print(out.rstrip()[-1500:], f"\n   ({seconds:.0f} s, exit {rc})", flush=True)
    shown = " ".join(a if a else "''" for a in args)
    return dict(name=name, title=title, what=what, command=f"{PY} {shown}", seconds=round(seconds, 1),
                returncode=rc, output=out.strip()[-6000:])


def write_page() -> Path:
    "docs/guide/measured.md from benchmarks/results.json (without the machine-local test times)."
    return atomic_write_text(ROOT / GUIDE_DIR / f"{MEASURED}.md", measured_page(ROOT, last_test=False) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="also the heavy benchmarks (the app's memory)")
    ap.add_argument("--only", nargs="+", choices=sorted(BENCHES), help="only these benchmarks")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds one benchmark may run (default 1200)")
    ap.add_argument("--page-only", action="store_true", help="only rewrite docs/guide/measured.md")
    ap.add_argument("--import-time", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.import_time:
        return import_time()
    if not a.page_only:
        names = a.only or [n for n, b in BENCHES.items() if a.all or not b[3]]
        start = dict(date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                     commit=git_commit(ROOT), machine=machine())
        results = [run(n, a.timeout) for n in names]
        cmd = "python benchmarks/run_all.py" + (" --all" if a.all else "")
        cmd += f" --only {' '.join(a.only)}" if a.only else ""
        for r in results: r.update(date=start["date"], commit=start["commit"], machine=start["machine"])
        if a.only and (ROOT / RESULTS).is_file():    # --only replaces those benchmarks; the others' results stay
            old = json.loads((ROOT / RESULTS).read_text())
            kept = [dict(b, date=b.get("date", old["date"]), commit=b.get("commit", old["commit"]),
                         machine=b.get("machine", old["machine"]))
                    for b in old["benchmarks"] if b["name"] not in names]
            results = sorted(kept + results, key=lambda b: list(BENCHES).index(b["name"]))
        run_info = dict(start, command=cmd, machine_after=dict(load_avg_1min=machine()["load_avg_1min"]))
        atomic_write_json(ROOT / RESULTS, dict(run_info, benchmarks=results))
        print(f"wrote {RESULTS}")
    print(f"wrote {write_page().relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
