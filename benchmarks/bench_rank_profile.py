"""Benchmark `rank_profile`: ratios measured side by side in one run (never a timed test).

Prints
  1. rank_profile vs the FLOP floor: a bare loop of the same matrix products (forward + Jacobian chain),
     without and with the same batched spectra (target: <= 1.5x against the floor that does the same work);
  2. rank_profile vs the naive way (torch.func.jacrev of the network truncated at every depth) at d=128, L=32
     (target: >= 10x);
  3. measured cost exponents in L and d;
  4. the largest (d, L) that stays under 150 ms (n = 128 samples, 1 Jacobian input, m = 4d).
On a shared CPU pass --threads 1: small batched LAPACK calls with 2 threads on 2 busy cores can run 10x slower.
Uses CUDA when available (or --device). Usage: python benchmarks/bench_rank_profile.py [--device cpu] [--quick]
"""
from __future__ import annotations
import argparse, math, statistics, time
from dataclasses import replace

import numpy as np
import torch
from torch.func import jacrev

from autonorm_explorer.rank.resmlp import ResMLPConfig, ResidualMLP, sample_weights
from autonorm_explorer.rank.propagation import rank_profile, sample_inputs, norm_forward, norm_jvp
from autonorm_explorer.rank.spectra import erank_from_svals


def sync(dev):
    if dev.type == "cuda": torch.cuda.synchronize()


def timeit(fn, dev, repeats=5):
    "Median wall time of `fn()` in seconds (one warm-up call first)."
    fn(); sync(dev); ts = []
    for _ in range(repeats):
        t = time.perf_counter(); fn(); sync(dev); ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def side_by_side(fns: dict, dev, repeats=5):
    "Median times of several functions, measured interleaved (A B C A B C ...) so load noise hits all alike."
    for f in fns.values(): f()
    sync(dev); ts = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            t = time.perf_counter(); f(); sync(dev); ts[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in ts.items()}


def floor_loop(cfg, w, X, with_svd: bool):
    "The bare FLOP floor of a pre-LN two-matrix ReLU profile: the same matmuls (and optionally the same svdvals)."
    d, m, L = cfg.width, cfg.hidden, cfg.depth
    cu, cd = 1 / math.sqrt(d), 1 / math.sqrt(m)
    H = X; P = torch.eye(d, dtype=torch.float64, device=X.device)[None]
    Hs, Ps = [H], [P]
    for l in range(L):
        y, s = norm_forward(H, "layernorm", 1e-6)
        a = (y @ w.up[l].T) * cu
        H = H + (torch.relu(a) @ w.down[l].T) * cd
        Q = norm_jvp(y[:1], s[:1], P, "layernorm")
        T = torch.matmul(w.up[l], Q) * ((a[:1] > 0)[..., None] * cu)
        P = P + torch.matmul(w.down[l], T) * cd
        Hs.append(H); Ps.append(P)
    if with_svd:                      # the same spectra: Gram + eigvalsh for Z and centered Z, svdvals for the Jacobians
        Hs = torch.stack(Hs); Ps = torch.stack(Ps); mu = Hs.mean(1)
        G = Hs.mT @ Hs
        torch.linalg.eigvalsh(torch.cat([G, G - Hs.shape[1] * mu[:, :, None] * mu[:, None, :]]))
        torch.linalg.svdvals(Ps)


def naive(cfg, w, X):
    "What a user would write: a jacrev of the truncated network at every depth, then erank."
    net = ResidualMLP.from_weights(cfg, w.to("cpu"), dtype=torch.float64).to(X.device)
    out = []
    for depth in range(1, cfg.depth + 1):
        sub = torch.nn.Sequential(*net.blocks[:depth])
        J = jacrev(sub)(X[0])
        out.append(erank_from_svals(torch.linalg.svdvals(J)).item() / cfg.width)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    ap.add_argument("--quick", action="store_true", help="smaller grids (smoke test)")
    args = ap.parse_args(argv)
    if args.threads: torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    print(f"device={dev}, torch {torch.__version__}, threads={torch.get_num_threads()}")
    reps = 3 if args.quick else 7

    # 1 + 2: d = 128, L = 32, n = 128 (the widget's setting)
    cfg = ResMLPConfig(width=128, depth=32, expansion=4)
    w = sample_weights(cfg, dev)
    X = sample_inputs(128, 128, 0, dev)
    t = side_by_side({"rank_profile": lambda: rank_profile(cfg, n_samples=128, weights=w, device=dev),
                      "jacobian_only": lambda: rank_profile(cfg, n_samples=1, weights=w, device=dev, representation=False),
                      "floor_matmul": lambda: floor_loop(cfg, w, X, False),
                      "floor_matmul_svd": lambda: floor_loop(cfg, w, X, True)}, dev, reps)
    t_naive = timeit(lambda: naive(cfg, w, X), dev, 1 if args.quick else 3)
    print("\n== d=128, L=32, n=128, m=4d, pre-LN ReLU (medians, interleaved)")
    print(f"rank_profile                  {1e3 * t['rank_profile']:8.1f} ms")
    print(f"floor: matmuls only           {1e3 * t['floor_matmul']:8.1f} ms   ratio {t['rank_profile'] / t['floor_matmul']:.2f}x")
    print(f"floor: matmuls + same spectra {1e3 * t['floor_matmul_svd']:8.1f} ms   ratio {t['rank_profile'] / t['floor_matmul_svd']:.2f}x  (target <= 1.5x)")
    print(f"rank_profile, Jacobian only   {1e3 * t['jacobian_only']:8.1f} ms   (n_samples=1, representation=False: the naive way's output)")
    print(f"naive jacrev per depth        {1e3 * t_naive:8.1f} ms   speed-up {t_naive / t['jacobian_only']:.1f}x for the same output (target >= 10x); "
          f"{t_naive / t['rank_profile']:.1f}x even for the full n=128 profile")
    # CPU time of one call: with 1 thread, close to the wall time on an idle machine (load-independent estimate)
    cpu = []
    for _ in range(reps):
        c0 = time.process_time(); rank_profile(cfg, n_samples=128, weights=w, device=dev); cpu.append(time.process_time() - c0)
    print(f"rank_profile CPU time per call {1e3 * statistics.median(cpu):6.1f} ms  (threads={torch.get_num_threads()}; "
          f"≈ wall time on an idle machine with 1 thread; the widget budget is 150 ms)")
    # agreement of the two (so the comparison is between equal results)
    df = rank_profile(cfg, n_samples=128, weights=w, device=dev)
    err = np.abs(np.array(naive(cfg, w, X)) - df.jacobian_erank.values[1:]).max()
    print(f"max |erank difference| naive vs rank_profile: {err:.2e}")

    # 3: cost exponents
    Ls = [8, 16, 32, 64] if args.quick else [16, 32, 64, 128, 256]
    ds = [32, 64, 128] if args.quick else [32, 64, 128, 256]
    tl = [timeit(lambda: rank_profile(replace(cfg, width=64, depth=L), n_samples=128, weights=wL, device=dev), dev, reps)
          for L in Ls for wL in [sample_weights(replace(cfg, width=64, depth=L), dev)]]
    td = [timeit(lambda: rank_profile(replace(cfg, width=d, depth=16), n_samples=128, weights=wd, device=dev), dev, reps)
          for d in ds for wd in [sample_weights(replace(cfg, width=d, depth=16), dev)]]
    eL = np.polyfit(np.log(Ls), np.log(tl), 1)[0]; ed = np.polyfit(np.log(ds), np.log(td), 1)[0]
    print("\n== cost exponents (expected ~L^1 and d^2..3: matmuls L·m·d², SVDs L·d³)")
    print("L:", ", ".join(f"{L}: {1e3 * x:.1f} ms" for L, x in zip(Ls, tl)), f"-> exponent {eL:.2f} (d=64)")
    print("d:", ", ".join(f"{d}: {1e3 * x:.1f} ms" for d, x in zip(ds, td)), f"-> exponent {ed:.2f} (L=16)")

    # 4: largest (d, L) under 150 ms
    print("\n== largest depth under 150 ms, per width (n=128, m=4d)")
    for d in ([64, 128] if args.quick else [64, 128, 192, 256]):
        best = None
        for L in [8, 16, 32, 64, 128, 256, 512]:
            c = replace(cfg, width=d, depth=L); wc = sample_weights(c, dev)
            tt = timeit(lambda: rank_profile(c, n_samples=128, weights=wc, device=dev), dev, 3)
            if tt < 0.150: best = (L, tt)
            else: break
        print(f"d={d}: " + (f"L={best[0]} ({1e3 * best[1]:.0f} ms)" if best else "none (L=8 already over 150 ms)"))


if __name__ == "__main__":
    main()
