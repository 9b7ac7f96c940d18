"""Cost of `core.validation.checked` (the signature as the contract) at its hottest call site,
`GateLogger.on_step_end`, which a training loop calls after every step: the decorated method against the
same method undecorated (`__wrapped__`), measured side by side (interleaved rounds), and the decorator's
absolute cost per call as a share of one small AutoNorm training step.

    .venv/bin/python benchmarks/bench_checked.py [--rounds 7] [--calls 2000]

Reads as: ratio = decorated / undecorated time per on_step_end call (a ViT-Lite with 2 blocks: 5 gated
sites, so the undecorated call itself does the per-site work); overhead = (decorated - undecorated) per
call, and that over one training step of the same model (batch 32).
"""
from __future__ import annotations
import argparse, statistics, time

import torch
import torch.nn.functional as F

from autonorm_explorer.models.backbones import ViTLite
from autonorm_explorer.core.validation import check_int
from autonorm_explorer.norms.gates import GateLogger


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=2000, help="on_step_end calls per variant per round")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = ViTLite(10, norm="autonorm", preset="paper", depth=2, dim=64, heads=2).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))
    F.cross_entropy(model(x), y).backward()                     # gates now hold their last weights
    lg = GateLogger(every=10**9)                                # logs only step 0: the check is what is timed
    decorated, plain = GateLogger.on_step_end, GateLogger.on_step_end.__wrapped__

    def by_hand(self, *, step, model, **kw):                     # what the method did before: one check_* line
        check_int("step", step, 0)
        return plain(self, step=step, model=model, **kw)
    variants = (("decorated", decorated), ("undecorated", plain), ("check_int by hand", by_hand))
    times = {name: [] for name, _ in variants}
    for _ in range(a.rounds):
        for name, fn in variants:
            t0 = time.perf_counter()
            for i in range(1, a.calls + 1):
                fn(lg, step=i, model=model)
            times[name].append((time.perf_counter() - t0) / a.calls)
    step_t = []
    for _ in range(3):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()
        step_t.append(time.perf_counter() - t0)
    d, u = statistics.median(times["decorated"]), statistics.median(times["undecorated"])
    h = statistics.median(times["check_int by hand"])
    s = statistics.median(step_t)
    print(f"on_step_end per call: decorated {d * 1e6:.2f} us, undecorated {u * 1e6:.2f} us, ratio {d / u:.2f}x "
          f"(median of {a.rounds} interleaved rounds of {a.calls} calls); a check_int line by hand: {h * 1e6:.2f} us, "
          f"decorated / by hand {d / h:.2f}x")
    print(f"decorator overhead {(d - u) * 1e6:.2f} us per call = {(d - u) / s:.2e} of one training step "
          f"({s * 1e3:.1f} ms, ViT-Lite depth 2, d 64, batch 32)")


if __name__ == "__main__":
    main()
