"""What autonormify costs on a GPT-2 small-config model (random init, built from a config; nothing
downloaded): the conversion time, and the train-step time (forward + backward + AdamW) converted vs
unconverted, measured side by side (one step of each variant in turn), and what causal mode costs.

    .venv/bin/python benchmarks/bench_autonormify.py [--quick] [--threads 1] [--rounds 5]

Variants: the unconverted model (nn.LayerNorm); autonormify(model, "ln") (the NormSite wrapper
alone); "autonorm" with per-sample gates (causal=False, what an encoder gets); "autonorm" in causal
mode (GPT-2's default: per-token gates from the running token mean). Full size is GPT-2 small
(12 layers, d=768, 12 heads, 25 norm sites) on batch 4 x 128 tokens; --quick is a 4-layer d=128
model on 4 x 64.
"""

from __future__ import annotations
import argparse, copy, os, statistics, time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
import torch
import transformers as hf

from autonorm_explorer.norms.convert import autonormify


def base_model(quick: bool) -> torch.nn.Module:
    torch.manual_seed(0)
    size = (
        dict(n_embd=128, n_layer=4, n_head=4) if quick else dict(n_embd=768, n_layer=12, n_head=12)
    )
    cfg = hf.GPT2Config(vocab_size=1024 if quick else 50257, n_positions=256, **size)
    cfg.attn_pdrop = cfg.resid_pdrop = cfg.embd_pdrop = 0.0  # same work in every step
    return hf.GPT2Model(cfg)


def step(model, opt, ids):
    opt.zero_grad(set_to_none=True)
    model(input_ids=ids).last_hidden_state.pow(2).mean().backward()
    opt.step()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small model, a few seconds in all")
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (1: steadiest on a shared machine)",
    )
    ap.add_argument(
        "--rounds", type=int, default=5, help="rounds; each times --steps steps of every variant"
    )
    ap.add_argument("--steps", type=int, default=3, help="steps per variant per round")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    if a.quick:
        a.rounds, a.steps = min(a.rounds, 3), min(a.steps, 2)
    base = base_model(a.quick).train()
    batch, seq = (4, 64) if a.quick else (4, 128)
    ids = torch.randint(
        0, base.config.vocab_size, (batch, seq), generator=torch.Generator().manual_seed(1)
    )

    convert_ms, variants = {}, {"unconverted (nn.LayerNorm)": copy.deepcopy(base)}
    for label, method, causal in (
        ("ln (NormSite only)", "ln", None),
        ("autonorm, per-sample gates", "autonorm", False),
        ("autonorm, causal (default)", "autonorm", None),
    ):
        model = copy.deepcopy(base)
        t0 = time.perf_counter()
        model, sites = autonormify(model, method, causal=causal)
        convert_ms[label] = 1e3 * (time.perf_counter() - t0)
        variants[label] = model.train()
    opts = {
        k: torch.optim.AdamW(m.parameters(), lr=1e-4, foreach=True) for k, m in variants.items()
    }
    for k, m in variants.items():  # warm-up
        step(m, opts[k], ids)
    wall = {k: [] for k in variants}
    cpu = {k: [] for k in variants}
    names = list(variants)
    for r in range(a.rounds * a.steps):  # interleaved, rotating order
        for k in names[r % len(names) :] + names[: r % len(names)]:
            t0w, t0c = time.perf_counter(), time.process_time()
            step(variants[k], opts[k], ids)
            wall[k].append(time.perf_counter() - t0w)
            cpu[k].append(time.process_time() - t0c)
    cfg = base.config
    print(
        f"GPT-2 config n_layer={cfg.n_layer}, n_embd={cfg.n_embd}, n_head={cfg.n_head}"
        f" ({len(sites)} norm sites), batch {batch}x{seq} tokens, torch {torch.__version__},"
        f" {a.threads} thread(s), {a.rounds * a.steps} interleaved train steps per variant\n"
    )
    print(
        f"{'variant':30s} {'convert ms':>11s} {'CPU ms/step':>12s} {'ratio (CPU)':>12s}"
        f" {'wall ms/step':>13s} {'ratio (wall)':>13s}"
    )
    med = statistics.median
    ref = names[0]
    for k in names:
        conv = f"{convert_ms[k]:11.1f}" if k in convert_ms else f"{'-':>11s}"
        print(
            f"{k:30s} {conv} {1e3 * med(cpu[k]):12.1f} {med(cpu[k]) / med(cpu[ref]):11.3f}x "
            f"{1e3 * med(wall[k]):13.1f} {med(wall[k]) / med(wall[ref]):12.3f}x"
        )
    c, p = med(cpu["autonorm, causal (default)"]), med(cpu["autonorm, per-sample gates"])
    print(
        f"\ncausal mode vs per-sample gates: {c / p:.3f}x by CPU time (the selector MLP runs once"
        " per token: d^2/2 + d multiply-adds a token, ~1/16 of a GPT-2 MLP block)"
    )


if __name__ == "__main__":
    main()
