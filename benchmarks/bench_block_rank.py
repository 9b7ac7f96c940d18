"""Benchmark `block_rank_profile`: ratios measured side by side in one run (never a timed test).

Prints
  1. block_rank_profile (Jacobian columns chained block by block with jvp) against the naive way
     (torch.func.jacrev of the model truncated at every depth, then the same spectra) on a small ViT-Lite
     at two depths (the gain grows with depth: about L/2 prefix passes per chained pass), with the
     largest deviation between the two profiles;
  2. the time of one sample's profile over model sizes (tokens N, width d, depth L), and the largest sizes
     that stay under 1 s and under 10 s on this machine (CPU time of this process, one thread: on a
     machine shared with other jobs the wall clock mostly measures the others).
Both methods run attention on PyTorch's "math" kernel (the fused CPU kernel has no forward-mode rule; its
jacrev falls back to a slow per-column loop, which would flatter the ratio).
Usage: python benchmarks/bench_block_rank.py [--threads 1] [--quick]
"""
from __future__ import annotations
import argparse, statistics, time, warnings

import numpy as np
import torch
from torch.func import jacrev
from torch.nn.attention import SDPBackend, sdpa_kernel

from autonorm_explorer.models.backbones import ViTLite
from autonorm_explorer.rank.spectra import erank_from_svals
from autonorm_explorer.rank.blocks import block_rank_profile, stream_input, residual_blocks, _as_float64


def vit(img: int, patch: int, dim: int, depth: int, norm: str = "ln") -> ViTLite:
    torch.manual_seed(0)
    return ViTLite(10, in_chans=3, img_size=img, preset="paper", depth=depth, dim=dim, heads=2, patch_size=patch,
                   mlp_ratio=2.0, norm=norm, layer_scale_init=1.0).eval()


def naive(model, x):
    "What a user would write: jacrev of the prefix h_0 -> h_l at every depth, then erank / (N d)."
    m = _as_float64(model); blocks = residual_blocks(m)
    with sdpa_kernel([SDPBackend.MATH]):
        h0 = stream_input(m, x.double())[0][:1]
        K = h0[0].numel(); out = [1.0]
        for l in range(1, len(blocks) + 1):
            def prefix(z, l=l):
                for blk in blocks[:l]: z = blk(z)
                return z
            J = jacrev(prefix)(h0).reshape(K, K)
            out.append(float(erank_from_svals(torch.linalg.svdvals(J))) / K)
    return np.array(out)


def chained(model, x):
    return block_rank_profile(model, x[:1], representation=False, per_token=False).jacobian_erank.to_numpy()


def side_by_side(fns: dict, repeats: int) -> dict:
    "Median CPU and wall times, measured interleaved (A B A B ...) so load noise hits both alike."
    for f in fns.values(): f()
    ts = {k: ([], []) for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            c, w = time.process_time(), time.perf_counter(); f()
            ts[k][0].append(time.process_time() - c); ts[k][1].append(time.perf_counter() - w)
    return {k: (statistics.median(c), statistics.median(w)) for k, (c, w) in ts.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: steadiest on a shared machine)")
    ap.add_argument("--quick", action="store_true", help="fewer repeats and a shorter size sweep")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads); warnings.simplefilter("ignore")
    print(f"torch {torch.__version__}, {a.threads} thread(s), float64, one sample per profile\n")

    print("1. chained jvp against jacrev per prefix, ViT-Lite 16x16 images, patch 4 (17 tokens)")
    for img, patch, dim, depth in ((16, 4, 32, 8), (16, 4, 16, 24)):
        model, x = vit(img, patch, dim, depth), torch.randn(1, 3, img, img)
        N = (img // patch) ** 2 + 1
        dev = np.abs(chained(model, x) - naive(model, x)).max()
        t = side_by_side({"chained jvp": lambda: chained(model, x), "jacrev per prefix": lambda: naive(model, x)},
                         repeats=1 if a.quick else 3)
        (cc, cw), (nc, nw) = t["chained jvp"], t["jacrev per prefix"]
        print(f"   d={dim}, L={depth} (Jacobian {N * dim}x{N * dim}): CPU s chained {cc:.2f}, jacrev per prefix {nc:.2f}, "
              f"speed-up {nc / cc:.1f}x (wall {cw:.2f} vs {nw:.2f}, {nw / cw:.1f}x); max |Δ erank/(Nd)| = {dev:.1e}")
    print()

    print("2. one sample's profile (Jacobian + representation + ratios), ViT-Lite, LayerScale 1, MLP ratio 2")
    print(f"   {'tokens':>6s} {'d':>4s} {'L':>3s} {'Nd':>6s} {'CPU s':>8s} {'wall s':>8s}")
    sizes = [(8, 4, 16, 8), (16, 4, 16, 8), (16, 4, 32, 8), (16, 4, 64, 8), (16, 4, 32, 16), (32, 4, 16, 8),
             (16, 4, 96, 8), (32, 4, 32, 8), (16, 4, 128, 8)]
    if a.quick: sizes = sizes[:4]
    under = {1.0: None, 10.0: None}
    for img, patch, dim, depth in sizes:
        model, x = vit(img, patch, dim, depth), torch.randn(1, 3, img, img)
        N = (img // patch) ** 2 + 1
        c0, w0 = time.process_time(), time.perf_counter(); block_rank_profile(model, x)
        s, w = time.process_time() - c0, time.perf_counter() - w0
        print(f"   {N:6d} {dim:4d} {depth:3d} {N * dim:6d} {s:8.2f} {w:8.2f}")
        for lim in under:
            if s < lim and (under[lim] is None or N * dim * depth > under[lim][0] * under[lim][1] * under[lim][2]):
                under[lim] = (N, dim, depth, N * dim)
        if s > 30: break
    for lim, v in under.items():
        print(f"   largest under {lim:g} CPU s: " + ("none" if v is None else f"N={v[0]} tokens, d={v[1]}, L={v[2]} (Nd={v[3]})"))


if __name__ == "__main__":
    main()
