"""The steps of scripts/gpu_check.sh (which refuses first when there is no CUDA device). Each step is timed and
recorded, a failure included, in one JSON; the last step turns the measured train step into an estimate of the
AutoNorm paper grid's wall time on one GPU and on eight."""
from __future__ import annotations

import argparse, json, math, os, platform, sys, time, traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BATCH = 64                                  # the paper's batch size


def step_time(device: str, steps: int, warmup: int = 2, norm: str = "autonorm") -> float:
    "Seconds per AdamW train step of the paper's ViT-Lite (8 blocks, d 128) on a CIFAR-shaped batch of 64."
    import torch
    from autonorm_explorer.models.backbones import ViTLite
    torch.manual_seed(0)
    model = ViTLite(10, in_chans=3, img_size=32, norm=norm, preset="paper").to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(BATCH, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (BATCH,), device=device)
    cast = torch.autocast("cuda", dtype=torch.bfloat16) if device == "cuda" else torch.autocast("cpu", enabled=False)

    def one():
        opt.zero_grad(set_to_none=True)
        with cast:
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(warmup): one()
    if device == "cuda": torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps): one()
    if device == "cuda": torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def paper_grid_estimate(step_s: float, eval_overhead: float = 0.1) -> dict:
    "Wall time of the shipped `paper` grid from one train step's seconds (every step priced like a ViT-Lite step)."
    from autonorm_explorer.experiments.sweep import load_grid, expand_grid
    from autonorm_explorer.experiments.report import PAPER_BUDGETS
    if not (step_s > 0 and math.isfinite(step_s)): raise ValueError(f"step_s={step_s!r} must be a positive number of seconds")
    cells = expand_grid(load_grid("paper"), "/tmp/unused-paper-grid")
    steps = 0
    for c in cells:
        p = c.parameters
        size = PAPER_BUDGETS[p["dataset"]]["train_size"]
        steps += int(p.get("epochs", 10)) * math.ceil(size / int(p.get("batch_size", BATCH)))
    seconds = steps * step_s * (1 + eval_overhead)
    return dict(runs=len(cells), train_steps=steps, step_s=step_s, eval_overhead=eval_overhead,
                one_gpu_hours=seconds / 3600, eight_gpus_hours=seconds / 3600 / 8,
                assumption="every run's step costs one ViT-Lite step of batch 64 (text and tabular steps are cheaper), "
                           "plus 10% for evaluation; 8 GPUs run 8 cells at once")


REAL_SCALE = dict(depths=[1, 4, 12], rtol=0.05, min_probes=4, max_steps=300)   # the tutorial's real-size settings


def real_scale_rank(device: str = "cuda") -> dict:
    """GPT-2 small at its real size (12 blocks, width 768, 128 tokens: K = 98,304), the tutorial's profile on
    `device`, timed, next to the published CPU run of the same weights, tokens and probes."""
    import torch
    import transformers as hf
    from autonorm_explorer.rank.blocks import block_rank_profile
    torch.manual_seed(0)                            # the weights and tokens of bench_rank_estimate.py --real
    model = hf.GPT2Model(hf.GPT2Config()).eval()
    ids = torch.randint(0, 50257, (1, 128))
    model.to(device)
    t0 = time.perf_counter()
    prof = block_rank_profile(model, dict(input_ids=ids.to(device)), method="estimate", representation=False,
                              **REAL_SCALE)
    if device == "cuda": torch.cuda.synchronize()
    return compare_with_published(prof, time.perf_counter() - t0)


def compare_with_published(prof, seconds: float, name: str = "gpt2") -> dict:
    """Each depth's erank/K against the published CPU run's (`results/rank-real-scale`): they agree when they differ
    by less than the two 95% half-widths together (the same probes; only the arithmetic's rounding differs)."""
    from autonorm_explorer.experiments.results import load_published
    pub = load_published("rank-real-scale")
    cpu = pub.results[pub.results.model == name].set_index("depth")
    depths = {}
    for d in REAL_SCALE["depths"]:
        e, ci = float(prof.jacobian_erank[d]), float(prof.jacobian_erank_ci[d])
        c, cci = float(cpu.jacobian_erank[d]), float(cpu.jacobian_erank_ci[d])
        depths[d] = dict(erank=round(e, 4), ci=round(ci, 4), cpu_erank=round(c, 4), cpu_ci=round(cci, 4),
                         agree=bool(abs(e - c) <= ci + cci))
    cpu_s = float(pub.provenance["models"][name]["seconds"])
    return dict(seconds=round(seconds, 1), cpu_seconds=cpu_s, speedup=round(cpu_s / seconds, 1), depths=depths,
                all_agree=all(v["agree"] for v in depths.values()))


def run_notebook_step(nb: str, out: Path, params: dict) -> dict:
    "Execute a notebook with papermill (parameters validated) and return its metrics.json if it wrote one."
    from autonorm_explorer.core.notebooks import run_notebook
    out.mkdir(parents=True, exist_ok=True)
    run_notebook(ROOT / nb, out / "notebook.ipynb", params)
    m = out / "metrics.json"
    return json.loads(m.read_text()) if m.exists() else {}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="runs/gpu_check", help="folder for gpu_check.json and the executed notebooks")
    ap.add_argument("--cpu-steps", type=int, default=3, help="timed CPU steps (slow: a few is enough)")
    ap.add_argument("--gpu-steps", type=int, default=30, help="timed CUDA steps")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import torch
    report = dict(python=sys.version.split()[0], torch=torch.__version__, host=platform.node(),
                  cuda=torch.version.cuda, device=torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
                  steps={}, failures=[])

    def step(name, fn):
        t0 = time.time()
        try:
            result = fn()
            report["steps"][name] = dict(ok=True, seconds=round(time.time() - t0, 2), result=result)
        except Exception as e:  # recorded, and the next step still runs
            report["steps"][name] = dict(ok=False, seconds=round(time.time() - t0, 2), error=f"{type(e).__name__}: {e}")
            report["failures"].append(dict(step=name, traceback=traceback.format_exc(limit=4)))
        print(f"gpu_check: {name}: {'ok' if report['steps'][name]['ok'] else 'FAILED'} "
              f"({report['steps'][name]['seconds']} s)", flush=True)
        (out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))

    def vit_step():
        cuda_s = step_time("cuda", args.gpu_steps)
        torch.set_num_threads(os.cpu_count() or 1)
        cpu_s = step_time("cpu", args.cpu_steps, warmup=1)
        return dict(cuda_bf16_step_s=cuda_s, cpu_fp32_step_s=cpu_s, speedup=cpu_s / cuda_s, batch=BATCH,
                    cpu_threads=torch.get_num_threads())

    step("vit_lite_paper_train_step", vit_step)
    exp = "nbs/experiments/autonorm_experiment.ipynb"
    step("experiment_synthetic_cifar10", lambda: run_notebook_step(exp, out / "cifar", dict(
        dataset="synthetic_cifar10", method="autonorm_s", epochs=1, device="cuda", out_dir=str(out / "cifar"))))
    step("experiment_wsj_text", lambda: run_notebook_step(exp, out / "wsj", dict(
        dataset="wsj_pos_sample", method="autonorm", epochs=1, device="cuda", out_dir=str(out / "wsj"))))
    step("rank_claims_d512_cuda", lambda: run_notebook_step("nbs/tutorials/rank_claims.ipynb", out / "rank_claims", dict(
        device="cuda", width=512, out_dir=str(out / "rank_claims"))))
    step("rank_real_scale_gpt2_small", real_scale_rank)
    vit = report["steps"].get("vit_lite_paper_train_step", {})
    if vit.get("ok"):
        step("paper_grid_estimate", lambda: paper_grid_estimate(vit["result"]["cuda_bf16_step_s"]))
    print(f"gpu_check: wrote {(out / 'gpu_check.json').resolve()} ({len(report['failures'])} failures)")
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
