"""Latency of the RankExplorer: time from a control change to the figure delivered (not a timed test).

At the defaults (d=128, L=32, the explorer's default number n of inputs) a fixed, mixed sequence of changes is
applied the way the front end applies them (`control.value = ...`): β drags (distinct values), placement, branch and activation switches
(some of them back to a view seen before). For every change we record the wall time until the new figure is
delivered (computed, rendered as PNG, put in the Image widget), and its split: compute, draw (all renders of
that request) and overhead (the rest: queueing, thread hand-over, the readout), and how the
figure was drawn: partial frames before the result (they cost time and, at the defaults, should not
be needed), axes repainted because their limits moved, whole-figure redraws. In the same run we time
the bare computation at the defaults (`rank_profile` alone, the floor an explorer cannot beat
without a cache).

The explorer's own number of inputs n is used (this tree: the `n_samples` control's default, 64; older trees:
`N_SAMPLES`, 128), and a third row runs this tree at n = 128, the same measurement as the older trees.

At d=256/L=64 and d=512/L=128 we time β changes (weights already sampled): the time to the first paint (the
first render of that request: partial curves) and to completion. And changes that need new weights at
d=512/L=128: from the defaults, one change to that size ("new size"), then seed changes there.

Before/after in one run: by default the package of git ref `main` (extracted with `git archive` into a temporary
folder) is "before" and this tree is "after"; `--before PATH` names another tree, `--before-ref ''` measures this
tree only. Each measurement runs for both trees in fresh subprocesses, alternating, pinned with `taskset` to the
same single core; every row prints the load average (1 min) when it was measured, since other work on the machine
shifts all numbers.

The bare computation is what the explorer of that tree computes, alone, on the main thread: `rank_profile_steps(...,
centered=False, jacobian_spectrum="gram")` run to the end, with the samples' pass in the explorer's `STREAM_DTYPE`
(float32; older trees: float64). "bare f64" is the same computation with a float64 samples' pass (the float64 floor),
and `rank_profile` (SVD, float64) is timed for both trees as the common reference.

    .venv/bin/python benchmarks/bench_widgets.py                       # main vs this tree
    .venv/bin/python benchmarks/bench_widgets.py --before /tmp/main    # another tree as "before"
    .venv/bin/python benchmarks/bench_widgets.py --quick               # defaults only
    .venv/bin/python benchmarks/bench_widgets.py --large-only --large-changes 1   # large sizes only, short
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LARGE = [(256, 64), (512, 128)]


def mixed_changes() -> list[tuple[str, object]]:
    "The fixed sequence at the defaults: β drags, then placement/branch/activation switches mixed with more drags."
    drag = lambda a, b, k: [("beta", float(v)) for v in np.geomspace(a, b, k)]
    return (drag(0.7, 1.4, 5) + [("placement", "post")] + drag(1.3, 0.8, 4) + [("branch", "single"),
            ("activation", "gelu"), ("placement", "pre")] + drag(0.9, 1.2, 4) + [("branch", "two"),
            ("activation", "relu"), ("placement", "post"), ("placement", "pre"), ("activation", "tanh"),
            ("activation", "relu")] + drag(1.25, 0.75, 4))


CORE = min(os.sched_getaffinity(0))          # the one core every child runs on


def pin_one_core():
    "One core (taskset already pinned a child; this also covers runs without taskset) and one torch thread."
    os.sched_setaffinity(0, {CORE})
    import torch
    torch.set_num_threads(1)


def load_avg() -> float:
    "The 1-minute load average of the machine."
    return os.getloadavg()[0]


# Trees from before the layout (one flat package) hold the same modules under their old names.
FLAT_NAMES = {"explore.core": "widget_core", "explore.rank": "widgets", "rank.resmlp": "resmlp",
              "rank.propagation": "propagation"}


def module(name: str):
    """`autonorm_explorer.<name>` of the tree on PYTHONPATH, by its pre-layout name in a flat tree. Decided from the
    tree's files: importing a missing subpackage would fall through to the editable install (another tree)."""
    import importlib
    import autonorm_explorer
    flat = not (Path(autonorm_explorer.__file__).parent / "explore").is_dir()
    return importlib.import_module(f"autonorm_explorer.{FLAT_NAMES[name] if flat else name}")


def extract_ref(ref: str) -> Path:
    "The package of git `ref` in a temporary folder (removed at exit)."
    tmp = Path(tempfile.mkdtemp(prefix="bench-before-"))
    import atexit
    atexit.register(shutil.rmtree, tmp, True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "autonorm_explorer"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    return tmp


def render_log() -> list:
    "The times of every render of every figure from now on (wraps LiveFigure.render)."
    LiveFigure = module("explore.core").LiveFigure
    log, orig = [], LiveFigure.render
    def logged(self, *a, **kw):
        out = orig(self, *a, **kw)
        log.append(time.perf_counter())
        return out
    LiveFigure.render = logged
    return log


def explorer_n(n=None) -> int:
    "The number of inputs this tree's RankExplorer uses: `n` if given, else its default."
    RankExplorer = module("explore.rank").RankExplorer
    if n is not None: return n
    params = {p.key: p for p in RankExplorer.PARAMS}
    return params["n_samples"].default if "n_samples" in params else RankExplorer.N_SAMPLES


def explorer_compute(cfg, w, n: int, float64_stream: bool = False):
    """What this tree's RankExplorer computes for `cfg` on n inputs, as a function of nothing (no explorer, main
    thread); `float64_stream`: the same with the samples' pass in float64 (the float64 floor of that computation)."""
    propagation = module("rank.propagation")
    if not hasattr(propagation, "rank_profile_steps"):                    # before: rank_profile, SVD
        return lambda: propagation.rank_profile(cfg, n_samples=n, weights=w, centered=False)
    RankExplorer = module("explore.rank").RankExplorer
    kw = dict(jacobian_spectrum=RankExplorer.JACOBIAN_SPECTRUM)
    if hasattr(RankExplorer, "STREAM_DTYPE"):                            # the samples' pass in float32
        import torch
        kw.update(stream_dtype=torch.float64 if float64_stream else RankExplorer.STREAM_DTYPE)
    def run():
        for build, _ in propagation.rank_profile_steps(cfg, n_samples=n, weights=w, centered=False, **kw):
            pass
        return build()
    return run


def median_ms(fn, reps: int = 7) -> float:
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(1e3 * (time.perf_counter() - t))
    return statistics.median(ts)


def bare_ms(width: int, depth: int, n: int, reps: int = 7) -> tuple[float, float, float]:
    """The floor (this tree's explorer computation alone), the same with a float64 samples' pass, and
    `rank_profile` (SVD) at (width, depth) on n inputs, weights reused."""
    ResMLPConfig, sample_weights = module("rank.resmlp").ResMLPConfig, module("rank.resmlp").sample_weights
    rank_profile = module("rank.propagation").rank_profile
    cfg = ResMLPConfig(width=width, depth=depth)
    w = sample_weights(cfg)
    floor = median_ms(explorer_compute(cfg, w, n), reps)
    floor64 = median_ms(explorer_compute(cfg, w, n, float64_stream=True), reps)
    svd = median_ms(lambda: rank_profile(cfg, n_samples=n, weights=w, centered=False), reps)
    return floor, floor64, svd


def child_defaults(n=None) -> dict:
    "Mixed sequence at d=128, L=32 on n inputs (None: the explorer's default): latency per change and its split."
    RankExplorer = module("explore.rank").RankExplorer
    floor, floor64, svd = bare_ms(128, 32, explorer_n(n))
    ex = RankExplorer(width=128, depth=32, **({} if n is None else dict(n_samples=n))); assert ex.wait(600), ex.error
    rows = []
    counts = lambda: (ex.partial_draws, ex.live.axis_draws, ex.live.full_draws)
    for key, value in mixed_changes():
        before = counts()
        t0 = time.perf_counter()
        ex.controls[key].value = value
        assert ex.wait(600), ex.error
        lat = 1e3 * (time.perf_counter() - t0)
        tm = ex.last_timing
        partial, axes, full = (a - b for a, b in zip(counts(), before))
        rows.append(dict(key=key, latency=lat, compute=tm["compute_ms"], draw=tm["draw_ms"],
                         overhead=lat - tm["compute_ms"] - tm["draw_ms"], partial=partial,
                         axes=axes, full=full))
    full = ex.live.full_draws
    ex.close()
    return dict(rows=rows, bare=floor, bare64=floor64, svd=svd, full_draws=full)


def child_large(width: int, depth: int, changes: int) -> dict:
    "β changes at (width, depth), weights reused: time to the first render of the request and to completion."
    RankExplorer = module("explore.rank").RankExplorer
    log = render_log()                              # from the first render on
    t0 = time.perf_counter()
    ex = RankExplorer(width=width, depth=depth)
    assert ex.wait(900), ex.error
    build = time.perf_counter() - t0
    build_first = log[0] - t0 if log else float("nan")   # new size: weights not sampled before
    first, done = [], []
    for b in np.geomspace(0.8, 1.25, changes):
        n0 = len(log); t0 = time.perf_counter()
        ex.controls["beta"].value = float(b)
        assert ex.wait(900), ex.error
        done.append(1e3 * (time.perf_counter() - t0)); first.append(1e3 * (log[n0] - t0))
    ex.close()
    return dict(first=statistics.median(first), done=statistics.median(done), build_s=build, build_first=build_first,
                renders_per_change=(len(log)) / changes, load=load_avg())


def child_new_size(width: int, depth: int, changes: int) -> dict:
    """From the defaults, one change to (width, depth) (new weights), then `changes` seed changes there (new
    weights again): time to the first render of each request and to completion."""
    RankExplorer = module("explore.rank").RankExplorer
    log = render_log()
    ex = RankExplorer()                             # the defaults (d=128, L=32)
    assert ex.wait(900), ex.error
    def timed(**settings) -> tuple[float, float]:
        n0, t0 = len(log), time.perf_counter()
        ex.apply(**settings)                        # one request, as a preset or a pasted config makes
        assert ex.wait(900), ex.error
        return 1e3 * (log[n0] - t0), 1e3 * (time.perf_counter() - t0)
    size_first, size_done = timed(width=width, depth=depth)
    seeds = [timed(seed=k) for k in range(1, changes + 1)]
    ex.close()
    return dict(size_first=size_first, size_done=size_done, seed_first=statistics.median(f for f, _ in seeds),
                seed_done=statistics.median(d for _, d in seeds), load=load_avg())


def run_child(tree: Path, what: list) -> dict:
    "Run one measurement in a fresh interpreter that imports the package from `tree`."
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, __file__, "--child", json.dumps(what)]
    if shutil.which("taskset"): cmd = ["taskset", "-c", str(CORE)] + cmd
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0: raise RuntimeError(f"benchmark child for {tree} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def summarize(d: dict) -> dict:
    rows = d["rows"]; lat = [r["latency"] for r in rows]
    med = lambda k: statistics.median(r[k] for r in rows)
    per_run = lambda k, only=None: sum(r[k] for r in rows if only in (None, r["key"])) / d["runs"]
    return dict(median=statistics.median(lat), p90=float(np.percentile(lat, 90)), compute=med("compute"),
                draw=med("draw"), overhead=med("overhead"), bare=d["bare"], ratio=statistics.median(lat) / d["bare"],
                beta=statistics.median(r["latency"] for r in rows if r["key"] == "beta"),
                switch=statistics.median(r["latency"] for r in rows if r["key"] != "beta"),
                full_draws=d["full_draws"], changes=len(rows) // d["runs"], svd=d["svd"], bare64=d["bare64"],
                load=d["load"], partial=per_run("partial"), partial_beta=per_run("partial", "beta"),
                axes=per_run("axes"), full=per_run("full"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="a tree holding the older autonorm_explorer package to compare")
    ap.add_argument("--before-ref", default="main", help="git ref whose package is 'before' ('' = none)")
    ap.add_argument("--quick", action="store_true", help="only the defaults (d=128, L=32)")
    ap.add_argument("--large-only", action="store_true", help="only the large sizes")
    ap.add_argument("--large-changes", type=int, default=2, help="β changes timed at each large size")
    ap.add_argument("--rounds", type=int, default=2, help="runs of the mixed sequence per tree, alternating trees")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        pin_one_core(); what = json.loads(args.child)
        child = {"defaults": child_defaults, "large": child_large, "new_size": child_new_size}[what[0]]
        res = child(*what[1:])
        print(json.dumps(res)); return
    before = args.before.resolve() if args.before else (extract_ref(args.before_ref) if args.before_ref else None)
    trees = ([("before", before)] if before else []) + [("after", ROOT)]
    print(f"RankExplorer latency, one core (taskset -c {CORE}), each cell measured in a fresh process per tree; "
          f"before = {args.before or args.before_ref or '-'}, after = this tree")
    if not args.large_only: defaults(trees, args.rounds)
    if not args.quick: large(trees, args.large_changes)


def defaults(trees, rounds: int):
    """The mixed sequence, `rounds` times per tree, trees alternating (before, after, before, ...), pooled; each
    tree on its explorer's default n, and this tree also at n = 128 (the older trees' n)."""
    trees = [(name, tree, None) for name, tree in trees] + [("after, n=128", trees[-1][1], 128)]
    runs = {name: [] for name, _, _ in trees}
    loads = {name: [] for name, _, _ in trees}
    for _ in range(rounds):
        for name, tree, n in trees:
            runs[name].append(run_child(tree, ["defaults", n]))
            loads[name].append(load_avg())
    res = {name: summarize(dict(rows=[r for run in rs for r in run["rows"]],
                                bare=statistics.median(run["bare"] for run in rs),
                                svd=statistics.median(run["svd"] for run in rs),
                                bare64=statistics.median(run["bare64"] for run in rs),
                                full_draws=max(run["full_draws"] for run in rs),
                                load=max(loads[name]), runs=len(rs)))
           for name, rs in runs.items()}
    print(f"\nDefaults d=128, L=32, {res['after']['changes']} mixed changes ({rounds} runs pooled) "
          f"(β drags and placement/branch/activation switches); control.value = ... -> figure delivered:")
    cols = [("median", "median"), ("p90", "p90"), ("beta", "β drag med"), ("switch", "switch med"),
            ("compute", "compute med"), ("draw", "draw med"), ("overhead", "overhead med"), ("bare", "bare compute"),
            ("ratio", "median/bare"), ("bare64", "bare f64"), ("svd", "rank_profile")]
    print(f"{'':13}" + "".join(f"{lab:>14}" for _, lab in cols) + f"{'load':>7}")
    for name, _, _ in trees:
        r = res[name]
        print(f"{name:13}" + "".join(f"{r[k]:>12.0f}ms" if k != "ratio" else f"{r[k]:>14.2f}" for k, _ in cols)
              + f"{r['load']:>7.1f}")
    print("target: median <= 100 ms, p90 <= 150 ms")
    print(f"\nDraws per run of the {res['after']['changes']} changes (partial = frames drawn "
          "before the result; axes = one axes repainted because its limits moved; full = whole "
          "figure redrawn):")
    print(f"{'':13}{'partial':>10}{'on β drags':>12}{'axes':>8}{'full':>8}")
    for name, _, _ in trees:
        r = res[name]
        print(f"{name:13}{r['partial']:>10.1f}{r['partial_beta']:>12.1f}{r['axes']:>8.1f}"
              f"{r['full']:>8.1f}")


def large(trees, changes: int):
    print(f"\nLarge sizes, β changes (weights already sampled), median of {changes}:")
    print(f"{'':8}{'d':>5}{'L':>5}{'first paint':>14}{'complete':>12}{'renders/change':>16}"
          f"{'new size: first paint':>23}{'complete':>10}{'load':>7}")
    for width, depth in LARGE:
        for name, tree in trees:
            r = run_child(tree, ["large", width, depth, changes])
            print(f"{name:8}{width:>5}{depth:>5}{r['first']:>12.0f}ms{r['done']:>10.0f}ms"
                  f"{r['renders_per_change']:>16.1f}{r['build_first']:>22.1f}s{r['build_s']:>9.1f}s{r['load']:>7.1f}",
                  flush=True)
    print("target: first partial curves within 150 ms at any size. new size = explorer created at this size: its first"
          "\nframe and its complete figure (includes drawing the weights). The load shifts all rows; compare within a size.")
    width, depth = LARGE[-1]
    print(f"\nNew weights at d={width}, L={depth}: from the defaults, one change to this size, then seed changes "
          f"(median of {changes}); time to the first render of the request and to the complete figure:")
    print(f"{'':8}{'new size: first paint':>23}{'complete':>10}{'new seed: first paint':>23}{'complete':>10}{'load':>7}")
    for name, tree in trees:
        r = run_child(tree, ["new_size", width, depth, changes])
        print(f"{name:8}{r['size_first']:>21.0f}ms{r['size_done']:>8.0f}ms{r['seed_first']:>21.0f}ms"
              f"{r['seed_done']:>8.0f}ms{r['load']:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
