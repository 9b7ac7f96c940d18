"""Kill-and-resume of the trainer with a real subprocess killed by SIGKILL mid-run.

The training script is a fixture (a small MLP with dropout on synthetic data); the trainer under test is
`autonorm_explorer.experiments.train.fit`. A run killed after its second epoch and then resumed must end with the same
weights (bit for bit) and the same per-epoch metrics as a run that was never interrupted.
"""
import json, os, signal, subprocess, sys, textwrap, time
from pathlib import Path

import pandas as pd
import torch

SCRIPT = textwrap.dedent('''
    import os, sys, time, torch, torch.nn as nn
    from autonorm_explorer.experiments.train import ArrayData, TrainConfig, fit
    from autonorm_explorer.core.seeds import torch_generator
    from autonorm_explorer.core.files import atomic_torch_save
    out = sys.argv[1]
    w = torch.randn(12, 4, generator=torch_generator(1234))
    def split(n, seed):
        x = torch.randn(n, 12, generator=torch_generator(seed)); return ArrayData(x, (x @ w).argmax(-1))
    class Slow:
        "Makes each step take a little wall time so the parent can kill the run mid-way."
        def on_step_end(self, **kw): time.sleep(float(os.environ.get("STEP_SLEEP", "0")))
        def state_dict(self): return {}
        def load_state_dict(self, sd): pass
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 64), nn.GELU(), nn.Dropout(0.3), nn.Linear(64, 4))
    cfg = TrainConfig(epochs=6, batch_size=32, lr=5e-3, seed=3, progress="log", log_every_s=0.2)
    res = fit(model, split(512, 0), split(256, 1), cfg, callbacks=[Slow()], out_dir=out)
    atomic_torch_save(model.state_dict(), os.path.join(out, "final_weights.pt"))
    print("FINISHED", res.state.resumed_from, flush=True)
''')


def _run(script, out, env_extra=None, **kw):
    env = dict(os.environ, OMP_NUM_THREADS="1", **(env_extra or {}))
    return subprocess.Popen([sys.executable, str(script), str(out)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kw)


def _history(out):
    lines = (Path(out) / "metrics.jsonl").read_text().splitlines()
    return pd.DataFrame([json.loads(l) for l in lines if l.strip()]).drop(columns="time_s")


def test_kill_and_resume_equals_uninterrupted(tmp_path):
    script = tmp_path / "train_fixture.py"; script.write_text(SCRIPT)
    ref = _run(script, tmp_path / "ref"); ref_out = ref.communicate(timeout=300)[0]
    assert ref.returncode == 0, ref_out

    victim_dir = tmp_path / "victim"
    victim = _run(script, victim_dir, {"STEP_SLEEP": "0.03"}, start_new_session=True)
    log, ckpt = victim_dir / "metrics.jsonl", victim_dir / "checkpoint.pt"; t0 = time.time()
    def checkpointed_epoch():   # checkpoints are written atomically, so a poll never reads a torn file
        return torch.load(ckpt, weights_only=True)["epoch"] if ckpt.exists() else 0
    while checkpointed_epoch() < 2:                # the epoch's metrics line lands just before its checkpoint
        assert victim.poll() is None, "the run ended before it could be killed: " + victim.stdout.read()
        assert time.time() - t0 < 120, "no second epoch within 120 s"
        time.sleep(0.05)
    os.killpg(victim.pid, signal.SIGKILL); victim.wait(timeout=30); victim_out = victim.stdout.read()
    assert victim.returncode == -signal.SIGKILL
    n_logged = len(log.read_text().splitlines())
    assert 2 <= n_logged < 6 and not (victim_dir / "final_weights.pt").exists()
    ck = torch.load(ckpt, weights_only=True)
    assert ck["epoch"] >= 2

    resumed = _run(script, victim_dir); out = resumed.communicate(timeout=300)[0]
    assert resumed.returncode == 0, out
    assert f"FINISHED {ck['epoch']}" in out and "resumed from" in out, out

    a = torch.load(tmp_path / "ref" / "final_weights.pt", weights_only=True)
    b = torch.load(victim_dir / "final_weights.pt", weights_only=True)
    for k in a: assert torch.equal(a[k], b[k]), k
    pd.testing.assert_frame_equal(_history(victim_dir), _history(tmp_path / "ref"))
    assert len(_history(victim_dir)) == 6                                       # every epoch logged exactly once
    # not a terminal: progress comes as periodic log lines, not a bar
    assert "epoch 6/6 ·" in ref_out and "step " in victim_out and "\r" not in victim_out, victim_out
