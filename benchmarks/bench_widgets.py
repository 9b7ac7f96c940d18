"""Latency of the RankExplorer: time from a control change to the figure updated (not a timed test).

For each size (d, L) with n = 128 inputs: move β through distinct values like a drag, then flip the placement,
and record, for every change, the wall time from `control.value = ...` to the new figure drawn (the worker
computed it, rendered the PNG and put it in the Image widget). In the same run we time the bare `rank_profile`
call (the floor the explorer cannot beat; main thread, before any explorer exists, because two threads running
torch at once compete for the same 2 cores) and the fast-path render alone, and print ratios: latency/compute
is the explorer's own overhead over the computation it runs; the process CPU time per change is
printed too (on a loaded machine wall time includes waiting for a core, CPU time does not).

    .venv/bin/python benchmarks/bench_widgets.py            # all sizes
    .venv/bin/python benchmarks/bench_widgets.py --quick    # d=128/L=32 only
"""
import argparse, statistics, time

import numpy as np

from autonorm_explorer.widgets import RankExplorer
from autonorm_explorer.resmlp import ResMLPConfig, sample_weights
from autonorm_explorer.propagation import rank_profile

SIZES = [(128, 32, 9), (256, 64, 5), (512, 128, 3)]   # (d, L, changes per kind)


def bare_rank_profile_ms(width: int, depth: int, reps: int) -> float:
    "The floor: `rank_profile` alone with sampled weights, in this process's main thread, before any explorer exists."
    cfg = ResMLPConfig(width=width, depth=depth); w = sample_weights(cfg)
    rank_profile(cfg, n_samples=RankExplorer.N_SAMPLES, weights=w, centered=False)            # warm-up
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); rank_profile(cfg, n_samples=RankExplorer.N_SAMPLES, weights=w, centered=False); ts.append(1e3 * (time.perf_counter() - t))
    return statistics.median(ts)


def bench(width: int, depth: int, reps: int, bare_ms: float) -> dict:
    ex = RankExplorer(width=width, depth=depth)
    assert ex.wait(600), ex.error
    latency, cpu, compute, draw, render, kinds = [], [], [], [], [], []
    betas = np.geomspace(0.6, 1.6, reps)
    changes = [("beta", float(b)) for b in betas] + [("placement", p) for p in (["post", "pre"] * reps)[:reps]]
    for key, value in changes:
        t0, c0 = time.perf_counter(), time.process_time()
        ex.controls[key].value = value
        assert ex.wait(600), ex.error
        latency.append(1e3 * (time.perf_counter() - t0)); cpu.append(1e3 * (time.process_time() - c0)); kinds.append(key)
        compute.append(ex.last_timing["compute_ms"]); draw.append(ex.last_timing["draw_ms"])
        t2 = time.perf_counter(); ex.live.render(); render.append(1e3 * (time.perf_counter() - t2))   # fast path alone
    med = statistics.median
    ex.close()                    # end its worker thread before the next size is measured
    beta_lat = [t for t, k in zip(latency, kinds) if k == "beta"]
    place_lat = [t for t, k in zip(latency, kinds) if k == "placement"]
    return dict(cpu_ms=med(cpu), beta_latency_ms=med(beta_lat), placement_latency_ms=med(place_lat), full_draws=ex.live.full_draws - 1,
                width=width, depth=depth, n=ex.N_SAMPLES, changes=len(changes), latency_ms=med(latency),
                latency_min_ms=min(latency), compute_ms=med(compute), draw_ms=med(draw), bare_rank_profile_ms=bare_ms,
                render_only_ms=med(render), overhead_ratio=med(latency) / med(compute), bare_ratio=med(latency) / bare_ms, weight_samples=ex.weight_samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only d=128, L=32")
    args = ap.parse_args()
    print("RankExplorer: control change -> figure updated (median over the changes; n = 128 inputs)")
    print(f"{'d':>4} {'L':>4} {'changes':>7} {'latency':>9} {'CPU time':>9} {'β moves':>8} {'placement':>9} {'min':>7} {'compute':>8} "
          f"{'draw':>6} {'full draws':>10} {'bare rank_profile':>17} {'render alone':>12} {'latency/compute':>15} {'latency/bare':>12} {'weights sampled':>15}")
    sizes = SIZES[:1] if args.quick else SIZES
    bare = {(w, d): bare_rank_profile_ms(w, d, r) for w, d, r in sizes}       # before any worker thread exists
    for width, depth, reps in sizes:
        r = bench(width, depth, reps, bare[width, depth])
        print(f"{r['width']:>4} {r['depth']:>4} {r['changes']:>7} {r['latency_ms']:>7.0f}ms {r['cpu_ms']:>7.0f}ms "
              f"{r['beta_latency_ms']:>6.0f}ms "
              f"{r['placement_latency_ms']:>7.0f}ms {r['latency_min_ms']:>5.0f}ms "
              f"{r['compute_ms']:>6.0f}ms {r['draw_ms']:>4.0f}ms {r['full_draws']:>10} {r['bare_rank_profile_ms']:>15.0f}ms "
              f"{r['render_only_ms']:>10.0f}ms {r['overhead_ratio']:>15.2f} {r['bare_ratio']:>12.2f} {r['weight_samples']:>15}", flush=True)
    print("target: latency <= 150 ms at d=128, L=32 (issue 4). CPU time = process CPU seconds per change (all threads;"
          "\nless sensitive to other jobs on a shared machine). weights sampled = 1: every change reused them.")


if __name__ == "__main__":
    main()
