"""Latency of the RankExplorer: time from a control change to the figure updated (not a timed test).

For each size (d, L) with n = 128 inputs: move β through distinct values like a drag, then flip the placement,
and record, for every change, the wall time from `control.value = ...` to the new figure drawn (the worker
computed it, rendered the PNG and put it in the Image widget). Side by side in the same run we time the bare
`rank_profile` call with the same cached weights (the floor the explorer cannot beat) and the render alone,
so the printed ratios do not depend on how busy this shared machine is; the process CPU time per change is
printed too (on a loaded machine wall time includes waiting for a core, CPU time does not).

    .venv/bin/python benchmarks/bench_widgets.py            # all sizes
    .venv/bin/python benchmarks/bench_widgets.py --quick    # d=128/L=32 only
"""
import argparse, statistics, time

import numpy as np

from autonorm_explorer.widgets import RankExplorer
from autonorm_explorer.resmlp import ResMLPConfig
from autonorm_explorer.propagation import rank_profile

SIZES = [(128, 32, 9), (256, 64, 5), (512, 128, 3)]   # (d, L, changes per kind)


def bench(width: int, depth: int, reps: int) -> dict:
    ex = RankExplorer(width=width, depth=depth)
    assert ex.wait(600), ex.error
    latency, cpu, compute, draw, bare, render, kinds = [], [], [], [], [], [], []
    betas = np.geomspace(0.6, 1.6, reps)
    changes = [("beta", float(b)) for b in betas] + [("placement", p) for p in (["post", "pre"] * reps)[:reps]]
    for key, value in changes:
        t0, c0 = time.perf_counter(), time.process_time()
        ex.controls[key].value = value
        assert ex.wait(600), ex.error
        latency.append(1e3 * (time.perf_counter() - t0)); cpu.append(1e3 * (time.process_time() - c0)); kinds.append(key)
        compute.append(ex.last_timing["compute_ms"]); draw.append(ex.last_timing["draw_ms"])
        cfg = ResMLPConfig(**ex.settings)                 # side by side: the bare computation, same weights
        t1 = time.perf_counter()
        rank_profile(cfg, n_samples=ex.N_SAMPLES, seed=ex.settings["seed"], weights=ex._weights_for(cfg))
        bare.append(1e3 * (time.perf_counter() - t1))
        t2 = time.perf_counter(); ex.live.render(); render.append(1e3 * (time.perf_counter() - t2))
    med = statistics.median
    beta_lat = [t for t, k in zip(latency, kinds) if k == "beta"]
    place_lat = [t for t, k in zip(latency, kinds) if k == "placement"]
    return dict(cpu_ms=med(cpu), beta_latency_ms=med(beta_lat), placement_latency_ms=med(place_lat), full_draws=ex.live.full_draws - 1,
                width=width, depth=depth, n=ex.N_SAMPLES, changes=len(changes), latency_ms=med(latency),
                latency_min_ms=min(latency), compute_ms=med(compute), draw_ms=med(draw), bare_rank_profile_ms=med(bare),
                render_only_ms=med(render), overhead_ratio=med(latency) / med(bare), weight_samples=ex.weight_samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only d=128, L=32")
    args = ap.parse_args()
    print("RankExplorer: control change -> figure updated (median over the changes; n = 128 inputs)")
    print(f"{'d':>4} {'L':>4} {'changes':>7} {'latency':>9} {'CPU time':>9} {'β moves':>8} {'placement':>9} {'min':>7} {'compute':>8} "
          f"{'draw':>6} {'full draws':>10} {'bare rank_profile':>17} {'render alone':>12} {'latency/bare':>12} {'weights sampled':>15}")
    for width, depth, reps in SIZES[:1] if args.quick else SIZES:
        r = bench(width, depth, reps)
        print(f"{r['width']:>4} {r['depth']:>4} {r['changes']:>7} {r['latency_ms']:>7.0f}ms {r['cpu_ms']:>7.0f}ms "
              f"{r['beta_latency_ms']:>6.0f}ms "
              f"{r['placement_latency_ms']:>7.0f}ms {r['latency_min_ms']:>5.0f}ms "
              f"{r['compute_ms']:>6.0f}ms {r['draw_ms']:>4.0f}ms {r['full_draws']:>10} {r['bare_rank_profile_ms']:>15.0f}ms "
              f"{r['render_only_ms']:>10.0f}ms {r['overhead_ratio']:>12.2f} {r['weight_samples']:>15}", flush=True)
    print("target: latency <= 150 ms at d=128, L=32 (issue 4). CPU time = process CPU seconds per change (all threads;"
          "\nless sensitive to other jobs on a shared machine). weights sampled = 1: every change reused them.")


if __name__ == "__main__":
    main()
