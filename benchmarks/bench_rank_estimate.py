"""Benchmark `block_rank_profile(method="estimate")` (stochastic Lanczos quadrature through jvp/vjp): ratios
measured side by side in one run (never a timed test).

Prints
  1. exact against estimate at the largest size `method="auto"` still computes exactly (K = tokens × width =
     2048: a GPT-2 of width 128 on 16 tokens, 4 blocks, random init from a config), with the largest deviation
     of the estimate from the exact erank/K and whether each 95% interval covers it;
  1b. the products themselves at real width: one GPT-2 small block's 4 tangents by `jvp` (forward pass every
     time) and by `tangent_map`'s trace (torch.func.linearize: forward pass once), and the trace's own cost; then
     the estimate at depth 2 of GPT-2 small's first 2 blocks (4 probes x 40 Lanczos steps) with the default
     rule (jvp, then a trace after TRACE_AFTER_TANGENTS tangents), jvp only and traced at once, side by side;
  3. with --bracket: how the Gauss/Gauss-Radau bracket closes with the Lanczos steps at real size (GPT-2 small,
     depth 12, 2 probes run to 300 steps without stopping): each probe's Gauss, Radau and midpoint erank/K and
     the half-gap after m steps, recomputed from the recurrence's coefficients;
  2. with --real: GPT-2 small (12 blocks, width 768), BERT-base, ViT-B/16 and GPT-2 small with DyT at every norm
     site (`gpt2-dyt`) at their real sizes (random init from their configs: nothing is downloaded; 128 tokens,
     197 for ViT), one sample, at the `--depths` asked, the estimate's wall time, its cost per depth in units of
     one forward pass of the model (a depth ℓ costs ℓ × probes × steps block passes), and the profile.
Usage: python benchmarks/bench_rank_estimate.py [--real [--skip-small] [--layers L]] [--bracket] [--models gpt2 bert vit gpt2-dyt]
       [--depths 1 4 12] [--rtol 0.05] [--min-probes 4] [--max-steps 300] [--threads N] [--json PATH]
The real-size defaults (rtol 0.05, 4 probes in the first round, at most 300 Lanczos steps) are the tutorial
`rank_at_real_scale`'s; `--json` writes what `autonorm-publish` turns into a results folder (the machine, the
commit, each model's K, wall time, one forward's time and its profile).
"""
from __future__ import annotations
import argparse, json, os, time, warnings

import numpy as np
import torch
import transformers as hf

import autonorm_explorer.rank.blocks as blocks_module
from autonorm_explorer.core.devices import git_commit, machine
from autonorm_explorer.rank.blocks import block_rank_profile
from autonorm_explorer.rank.estimate import (_erank_gap, _radau, _tridiagonal, erank_from_traces, lanczos_traces,
                                             quadrature_traces, rademacher_probes)
from autonorm_explorer.norms.convert import autonormify


def gpt2(width: int, layers: int) -> hf.GPT2Model:
    torch.manual_seed(0)
    return hf.GPT2Model(hf.GPT2Config(n_embd=width, n_layer=layers, n_head=max(1, width // 64))).eval()


def real(name: str, layers: int | None):
    "A real-size model from its config (its first `layers` blocks, if given), and one sample's inputs."
    torch.manual_seed(0)
    cut = {} if layers is None else dict(n_layer=layers) if name.startswith("gpt2") else dict(num_hidden_layers=layers)
    if name in ("gpt2", "gpt2-dyt"):
        model = hf.GPT2Model(hf.GPT2Config(**cut)).eval()
        if name == "gpt2-dyt": model = autonormify(model, "dyt")[0].eval()
        return model, dict(input_ids=torch.randint(0, 50257, (1, 128)))
    if name == "bert":
        return hf.BertModel(hf.BertConfig(**cut)).eval(), dict(input_ids=torch.randint(0, 30522, (1, 128)))
    return hf.ViTModel(hf.ViTConfig(**cut)).eval(), dict(pixel_values=torch.randn(1, 3, 224, 224))


def forward_seconds(model, inputs, rounds: int = 3) -> float:
    with torch.no_grad():
        m = model.double()
        inp = {k: v.double() if v.is_floating_point() else v for k, v in inputs.items()}
        m(**inp)
        t = time.perf_counter()
        for _ in range(rounds): m(**inp)
        out = (time.perf_counter() - t) / rounds
        model.float()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", action="store_true", help="also the real-size GPT-2 small, BERT-base, ViT-B/16")
    ap.add_argument("--models", nargs="+", default=["gpt2", "bert", "vit"], choices=["gpt2", "bert", "vit", "gpt2-dyt"])
    ap.add_argument("--depths", nargs="+", type=int, default=None, help="Jacobian depths of the real-size runs")
    ap.add_argument("--rtol", type=float, default=0.05, help="the real-size runs' requested accuracy")
    ap.add_argument("--min-probes", type=int, default=4, help="the real-size runs' first round of probes")
    ap.add_argument("--max-steps", type=int, default=300, help="the real-size runs' Lanczos steps per probe, at most")
    ap.add_argument("--json", default=None, help="also write the real-size profiles to this JSON file")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--layers", type=int, default=None, help="real widths, only the first LAYERS blocks")
    ap.add_argument("--skip-small", action="store_true", help="skip part 1")
    ap.add_argument("--bracket", action="store_true", help="only part 3: the bracket against the steps (11 min)")
    a = ap.parse_args(argv)
    if a.threads: torch.set_num_threads(a.threads)
    warnings.simplefilter("ignore")
    print(f"torch threads: {torch.get_num_threads()}")
    if a.bracket: return bracket()
    model, inputs = gpt2(128, 4), dict(input_ids=torch.randint(0, 50257, (1, 16)))
    if a.skip_small: return _real(a)
    t = time.perf_counter(); ex = block_rank_profile(model, inputs, method="exact", representation=False)
    t_ex = time.perf_counter() - t
    t = time.perf_counter(); es = block_rank_profile(model, inputs, method="estimate", representation=False)
    t_es = time.perf_counter() - t
    dev = np.abs(es.jacobian_erank - ex.jacobian_erank).to_numpy()
    cover = (dev <= es.jacobian_erank_ci.to_numpy() + 1e-15)[1:]
    print(f"1. GPT-2 width 128, 4 blocks, 16 tokens (K = 2048): exact {t_ex:.1f} s, estimate {t_es:.1f} s "
          f"(estimate/exact = {t_es / t_ex:.2f}); largest |estimate - exact| of erank/K {dev.max():.4f}, "
          f"intervals covering {int(cover.sum())}/{len(cover)}, probes per depth {es.attrs['probes'][1:]}")
    print("   exact    ", np.round(ex.jacobian_erank.to_numpy(), 4).tolist())
    print("   estimate ", np.round(es.jacobian_erank.to_numpy(), 4).tolist())
    products()
    return _real(a) if a.real else 0


def _best(fn, rounds: int = 3) -> float:
    "The fastest of `rounds` timed calls of fn()."
    out = []
    for _ in range(rounds):
        t = time.perf_counter(); fn(); out.append(time.perf_counter() - t)
    return min(out)


def products() -> None:
    """Part 1b: one block's tangent products by jvp and by a trace, and what the trace costs; then the whole estimate
    with the default rule (jvp for a block's first TRACE_AFTER_TANGENTS tangents, then its trace) against jvp only
    and traced from the first product, side by side."""
    model, inputs = real("gpt2", 2)
    m = blocks_module._as_float64(model)
    blks = blocks_module.residual_blocks(m)
    with torch.no_grad(), blocks_module.sdpa_kernel([blocks_module.SDPBackend.MATH]):
        h0, calls, _ = blocks_module.capture_calls(m, inputs, blks)
        f = lambda z: calls[0](blks[0], z)
        T = torch.randn(4, *h0.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        by_jvp = _best(lambda: blocks_module.vmap(lambda t: blocks_module.jvp(f, (h0,), (t,))[1])(T))
        t = time.perf_counter(); traced = blocks_module.tangent_map(f, h0); trace_s = time.perf_counter() - t
        by_trace = _best(lambda: blocks_module.vmap(traced)(T))
    print(f"1b. one GPT-2 small block, 128 tokens, 4 tangents: jvp {by_jvp:.2f} s, traced {by_trace:.2f} s; the trace "
          f"(linearize and its check) {trace_s:.1f} s, repaid after {4 * trace_s / max(by_jvp - by_trace, 1e-9):.0f} "
          f"tangents (the default traces a block after {blocks_module.TRACE_AFTER_TANGENTS})")
    kw = dict(method="estimate", representation=False, depths=[2], min_probes=4, max_probes=4, max_steps=40)
    default = blocks_module.TRACE_AFTER_TANGENTS
    seconds, eranks = {}, {}
    for how in ("default", "jvp only", "traced at once") * 2:          # each twice, the best of each kept
        blocks_module.TRACE_AFTER_TANGENTS = {"default": default, "jvp only": 10**9, "traced at once": 0}[how]
        try:
            t = time.perf_counter(); prof = block_rank_profile(model, inputs, **kw)
            seconds.setdefault(how, []).append(time.perf_counter() - t)
        finally:
            blocks_module.TRACE_AFTER_TANGENTS = default
        eranks[how] = float(prof.jacobian_erank[2])
    best = {k: min(v) for k, v in seconds.items()}
    spread = max(eranks.values()) - min(eranks.values())
    steps = prof.attrs["steps"][2]
    print(f"    the estimate at depth 2 (K = 98,304), 4 probes x {steps} steps ({4 * steps} tangents per block): "
          f"default {best['default']:.1f} s, jvp only {best['jvp only']:.1f} s, traced at once "
          f"{best['traced at once']:.1f} s (default/jvp only = {best['default'] / best['jvp only']:.2f}); largest "
          f"difference of erank/K between them {spread:.1e}")


class _Recorded(Exception):
    "Raised once depth ℓ's Lanczos has run: the profile's other work is not needed."


def bracket(depth: int = 12, probes: int = 2, steps: int = 300) -> int:
    "Part 3: the Gauss and Gauss-Radau rules of each probe after m steps, from one Lanczos run with no early stop."
    model, inputs = real("gpt2", depth)
    seen = {}
    def record(matvec, n, **kw):
        gen = torch.Generator().manual_seed(0)
        seen.update(lanczos_traces(matvec, rademacher_probes(n, probes, gen), max_steps=steps, step_rtol=0.0), n=n)
        raise _Recorded
    estimate, blocks_module.estimate_erank = blocks_module.estimate_erank, record
    t = time.perf_counter()
    try:
        block_rank_profile(model, inputs, method="estimate", depths=[depth], representation=False)
    except _Recorded:
        pass
    finally:
        blocks_module.estimate_erank = estimate
    n, al, be = seen["n"], seen["alpha"], seen["beta"]
    print(f"3. GPT-2 small, depth {depth} (K = {n:,}), {probes} probes x {steps} Lanczos steps, no early stop "
          f"({time.perf_counter() - t:.0f} s): per probe, erank/K by the Gauss rule, the Gauss-Radau rule, their "
          "midpoint, and the half-gap in % of the midpoint")
    for m in (20, 50, 100, 150, 200, 250, 300):
        if m > steps: break
        a, b = al[:, :m], be[:, :m]
        Sg, Tg, _ = quadrature_traces(_tridiagonal(a, b[:, :-1]), n)
        Sr, Tr, _ = quadrature_traces(_radau(a, b[:, :-1], b[:, -1]), n)
        Sm, Tm = (Sg + Sr) / 2, (Tg + Tr) / 2
        rule = lambda S, T: [round(float(erank_from_traces(s, x)) / n, 4) for s, x in zip(S, T)]
        half = np.round(50 * _erank_gap(Sg - Sr, Tg - Tr, Sm, Tm), 2)
        print(f"   m = {m:3d}: Gauss {rule(Sg, Tg)}, Radau {rule(Sr, Tr)}, midpoint {rule(Sm, Tm)}, "
              f"half-gap % {half.tolist()}", flush=True)
    return 0


def _real(a) -> int:
    out, started, commit = {}, time.strftime("%Y-%m-%dT%H:%M:%S%z"), git_commit(".")
    for name in a.models:
        model, inputs = real(name, a.layers)
        fwd = forward_seconds(model, inputs)
        t = time.perf_counter()
        prof = block_rank_profile(model, inputs, method="estimate", representation=False, depths=a.depths,
                                  rtol=a.rtol, min_probes=a.min_probes, max_steps=a.max_steps)
        sec = time.perf_counter() - t
        L = len(prof) - 1
        done = [l for l in range(1, L + 1) if prof.attrs["steps"][l]]
        print(f"2. {name}: K = {prof.attrs['tokens'] * prof.attrs['width']}, {L} blocks, depths {done}: estimate "
              f"{sec:.0f} s, one float64 forward {fwd:.2f} s, {sec / fwd:.0f} forwards in all, "
              f"{sec / len(done) / fwd:.0f} per depth; probes {prof.attrs['probes'][1:]}, steps {prof.attrs['steps'][1:]}")
        print("   erank/K ", np.round(prof.jacobian_erank.to_numpy(), 4).tolist())
        print("   ± (95%) ", np.round(prof.jacobian_erank_ci.to_numpy(), 4).tolist())
        print("   ρ_attn  ", np.round(prof.branch_skip_ratio_attn.to_numpy(), 3).tolist())
        print("   ρ_mlp   ", np.round(prof.branch_skip_ratio_mlp.to_numpy(), 3).tolist(), flush=True)
        out[name] = dict(seconds=round(sec, 1), forward_seconds=round(fwd, 3), depths=done,
                         tokens=prof.attrs["tokens"], width=prof.attrs["width"], blocks=L,
                         probes=prof.attrs["probes"], steps=prof.attrs["steps"],
                         profile=prof.replace({np.nan: None}).to_dict("list"))
        if a.json:                                    # after every model: a kill keeps the models done so far
            run = dict(kind="rank-profiles", args=vars(a), commit=commit, started=started,
                       finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"), machine=machine(), models=out)
            with open(a.json + ".part", "w") as f: json.dump(run, f, indent=1)
            os.replace(a.json + ".part", a.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
