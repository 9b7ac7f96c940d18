"""What autonormify costs on a GPT-2 small-config model (random init, built from a config; nothing
downloaded): the conversion time, and the train-step time (forward + backward + AdamW) converted vs
unconverted, measured side by side (one step of each variant in turn), and what causal mode costs.

    .venv/bin/python benchmarks/bench_autonormify.py [--quick] [--threads 1] [--rounds 5]

Variants: the unconverted model (nn.LayerNorm); autonormify(model, "ln") (the NormSite wrapper
alone); "autonorm" with per-sample gates (causal=False, what an encoder gets); "autonorm" in causal
mode (GPT-2's default: per-token gates from the running token mean). Full size is GPT-2 small
(12 layers, d=768, 12 heads, 25 norm sites) on batch 4 x 128 tokens; --quick is a 4-layer d=128
model on 4 x 64.

Then (issue 26) the cost of a FORWARD, and of forward + backward, converted / unconverted, for two
models: GPT-2 small (the config above, causal gates, input_ids only) and a width-64 encoder, an HF BERT
with hidden_size=64 (4 layers, 2 heads, intermediate 256, per-sample gates, called with an all-ones
attention_mask as a tokenizer gives it), both on 4 x 128 tokens in float32 on the CPU. Modes:
"train fwd" (train(), grad on, forward only), "train fwd+bwd" (train(), forward + backward, no
optimizer), "eval fwd" (eval(), torch.no_grad()). Variants: unconverted, "ln" (the NormSite wrapper
around a LayerNorm: the wrapper's own cost) and "autonorm"; with --before-ref REF (default main) also
"ln" and "autonorm" of the package at git REF (extracted with `git archive` and imported under another
name), so before and after are measured side by side, interleaved, in one process.

    .venv/bin/python benchmarks/bench_autonormify.py --forward-only [--before-ref main] [--models bert64,gpt2]
"""

from __future__ import annotations
import argparse, copy, importlib, os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

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


ROOT = Path(__file__).resolve().parents[1]


def before_autonormify(ref: str):
    """`autonormify` of the package at git `ref`, imported as `autonorm_explorer_before` from a temporary folder
    (the norms and core modules import each other relatively, so the copy runs its own code)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-autonormify-"))
    import atexit

    atexit.register(shutil.rmtree, tmp, True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "autonorm_explorer"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    (tmp / "autonorm_explorer").rename(tmp / "autonorm_explorer_before")
    sys.path.insert(0, str(tmp))
    return importlib.import_module("autonorm_explorer_before.norms.convert").autonormify


def bert64() -> torch.nn.Module:
    torch.manual_seed(0)
    cfg = hf.BertConfig(
        vocab_size=1024, hidden_size=64, num_hidden_layers=4, num_attention_heads=2, intermediate_size=256,
        max_position_embeddings=256, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
    )
    return hf.BertModel(cfg, add_pooling_layer=False)


FORWARD_MODES = ("train fwd", "train fwd+bwd", "eval fwd")


def forward_table(name: str, base: torch.nn.Module, call: dict, convert: dict, rounds: int, reps: int) -> dict:
    """Median CPU and wall ms per call of every variant in every mode, interleaved (one call of each variant
    in turn, rotating the order), and print them with the ratios to the unconverted model."""
    variants = {"unconverted": copy.deepcopy(base)}
    for label, (fn, method) in convert.items():
        variants[label] = fn(copy.deepcopy(base), method)[0]

    def run(model, mode):
        model.train(mode != "eval fwd")
        if mode == "eval fwd":
            with torch.no_grad():
                model(**call)
            return
        out = model(**call)
        out = out if isinstance(out, torch.Tensor) else out.last_hidden_state
        if mode == "train fwd+bwd":
            out.pow(2).mean().backward()

    names = list(variants)
    res = {}
    for mode in FORWARD_MODES:
        for m in variants.values():  # warm-up
            run(m, mode)
        wall = {k: [] for k in names}
        cpu = {k: [] for k in names}
        for r in range(rounds * reps):
            for k in names[r % len(names) :] + names[: r % len(names)]:
                t0w, t0c = time.perf_counter(), time.process_time()
                run(variants[k], mode)
                wall[k].append(time.perf_counter() - t0w)
                cpu[k].append(time.process_time() - t0c)
        for m in variants.values():
            m.zero_grad(set_to_none=True)
        res[mode] = {k: (statistics.median(cpu[k]), statistics.median(wall[k])) for k in names}
    print(f"\n{name}: median of {rounds * reps} interleaved calls per variant and mode")
    print(f"{'variant':22s}" + "".join(f" {m + ' CPU ms':>20s} {'ratio':>7s}" for m in FORWARD_MODES)
          + f" {'eval wall ms':>13s} {'ratio':>7s}")
    for k in names:
        row = f"{k:22s}"
        for mode in FORWARD_MODES:
            c, ref = res[mode][k][0], res[mode]["unconverted"][0]
            row += f" {1e3 * c:20.3f} {c / ref:6.3f}x"
        w, wref = res["eval fwd"][k][1], res["eval fwd"]["unconverted"][1]
        print(row + f" {1e3 * w:13.3f} {w / wref:6.3f}x")
    return res


def forward_main(a) -> None:
    torch.set_num_threads(a.threads)
    convert = {"ln": (autonormify, "ln"), "autonorm": (autonormify, "autonorm")}
    if a.before_ref:
        old = before_autonormify(a.before_ref)
        convert = {f"ln @{a.before_ref}": (old, "ln"), f"autonorm @{a.before_ref}": (old, "autonorm"), **convert}
    print(
        f"forward cost converted / unconverted, float32 CPU, torch {torch.__version__}, {a.threads} thread(s),"
        f" load {os.getloadavg()[0]:.2f}; '@{a.before_ref}' = the package at that git ref, the others this tree"
    )
    gen = torch.Generator().manual_seed(1)
    for model in a.models.split(","):
        if model == "bert64":
            base, rounds, reps = bert64(), a.rounds, 4
            ids = torch.randint(0, base.config.vocab_size, (4, 128), generator=gen)
            call = dict(input_ids=ids, attention_mask=torch.ones_like(ids))
            title = "BERT width 64 (4 layers, 2 heads, 9 norm sites, per-sample gates), batch 4x128"
        elif model == "gpt2":
            base, rounds, reps = base_model(a.quick), max(1, a.rounds // 2), 1
            ids = torch.randint(0, base.config.vocab_size, (4, 128), generator=gen)
            call = dict(input_ids=ids)
            cfg = base.config
            title = (f"GPT-2 n_layer={cfg.n_layer}, n_embd={cfg.n_embd} (causal gates, the default), batch 4x128")
        elif model == "site64":
            torch.manual_seed(0)
            base, rounds, reps = torch.nn.Sequential(torch.nn.LayerNorm(64)), a.rounds, 20
            call = dict(input=torch.randn(4, 128, 64, generator=gen))
            title = "one norm site alone, width 64 (nn.LayerNorm in an nn.Sequential), input 4x128x64"
        else:
            raise SystemExit(f"--models: unknown model {model!r}; allowed: bert64, gpt2, site64")
        forward_table(title, base, call, convert, rounds, reps)


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
    ap.add_argument("--forward-only", action="store_true", help="only the forward-cost tables (issue 26)")
    ap.add_argument("--models", default="bert64,gpt2", help="forward tables: bert64, gpt2, site64 (one site)")
    ap.add_argument("--before-ref", default="", help="forward tables: also the package at this git ref ('' = none)")
    a = ap.parse_args(argv)
    if a.forward_only:
        return forward_main(a)
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
