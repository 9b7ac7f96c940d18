"""Images/s of the on-device batcher (autonorm_explorer.data.augment.VisionBatches) against
torch.utils.data.DataLoader pipelines with per-sample transforms doing the same work (pad + random
crop, flip, to float, normalize per image; MixUp/CutMix per batch), run side by side in one process,
interleaved, best of 3 epochs each (9 for the on-device batcher, whose epochs are short); the ratios are what to read, absolute numbers depend on the machine.

Two per-sample baselines:
  - "PIL": the classic torchvision recipe (RandomCrop(padding) + RandomHorizontalFlip on PIL images,
    ToTensor, Normalize), re-implemented with Pillow since torchvision is not installed here;
  - "tensor": the same steps as torch ops on each uint8 image tensor (a faster, stronger baseline).

    .venv/bin/python benchmarks/bench_vision_batches.py [--n 10000] [--batch-size 128] [--device cpu] [--fashion]
"""
import argparse, time

import numpy as np
import torch
import torch.nn.functional as F

from autonorm_explorer.data.augment import VisionBatches, cutmix, mixup
from autonorm_explorer.data.loading import DatasetSplit, load_dataset, DATASETS


class PerSampleDataset(torch.utils.data.Dataset):
    "The classic pipeline: one Python call per image for crop, flip, scaling and normalization."
    def __init__(self, split, padding=4, flip=True):
        self.x, self.y, self.p, self.flip = split.inputs, split.targets, padding, flip
        self.mean = torch.tensor(split.meta["mean"]).view(-1, 1, 1); self.std = torch.tensor(split.meta["std"]).view(-1, 1, 1)
    def __len__(self): return len(self.x)
    def __getitem__(self, i):
        img = self.x[i]; H, W = img.shape[-2:]
        img = F.pad(img, (self.p,) * 4)
        oy, ox = np.random.randint(0, 2 * self.p + 1, 2)
        img = img[:, oy:oy + H, ox:ox + W]
        if self.flip and np.random.rand() < 0.5: img = img.flip(-1)
        return (img.float() / 255 - self.mean) / self.std, int(self.y[i])


class PILPerSampleDataset(PerSampleDataset):
    "torchvision's classic pipeline on PIL images: pad+RandomCrop, RandomHorizontalFlip, ToTensor, Normalize."
    def __init__(self, split, padding=4, flip=True):
        super().__init__(split, padding, flip)
        from PIL import Image
        hwc = split.inputs.permute(0, 2, 3, 1).numpy()
        self.images = [Image.fromarray(a[..., 0] if a.shape[-1] == 1 else a) for a in hwc]   # a dataset of PIL images
    def __getitem__(self, i):
        from PIL import Image, ImageOps
        img = self.images[i]; W, H = img.size
        img = ImageOps.expand(img, border=self.p, fill=0)                       # RandomCrop(padding=p)
        oy, ox = np.random.randint(0, 2 * self.p + 1, 2)
        img = img.crop((ox, oy, ox + W, oy + H))
        if self.flip and np.random.rand() < 0.5: img = img.transpose(Image.FLIP_LEFT_RIGHT)   # RandomHorizontalFlip
        t = torch.from_numpy(np.asarray(img, dtype=np.uint8).copy())            # ToTensor
        t = (t[None] if t.ndim == 2 else t.permute(2, 0, 1)).float().div(255)
        return (t - self.mean) / self.std, int(self.y[i])                       # Normalize


def dataloader_epoch(split, batch_size, num_classes, padding, flip, seed=0, dataset=None):
    rng = np.random.default_rng(seed); np.random.seed(seed)
    dl = torch.utils.data.DataLoader(dataset or PerSampleDataset(split, padding, flip), batch_size=batch_size, shuffle=True, num_workers=0)
    n = 0
    for x, y in dl:
        y = F.one_hot(y, num_classes).float()
        if rng.random() < 0.7:
            perm = torch.randperm(len(x))
            if rng.random() < 0.5: x, y, _ = cutmix(x, y, float(rng.beta(1.0, 1.0)), perm, rng)
            else: x, y = mixup(x, y, float(rng.beta(0.2, 0.2)), perm)
        n += len(x)
    return n


def ondevice_epoch(vb, epoch):
    n = 0
    for x, y in vb.epoch_batches(epoch):
        n += len(x)
    if vb.device.type == "cuda": torch.cuda.synchronize()
    return n


def bench(split, batch_size, device, repeats=3):
    vb = VisionBatches(split, device=device, batch_size=batch_size, flip=True)
    pil = PILPerSampleDataset(split, vb.padding, True)
    ondevice_epoch(vb, 0)  # warm-up
    t = {"dev": [], "tensor": [], "pil": []}
    for r in range(repeats):   # interleaved, so machine load affects all alike
        for k in range(3):     # the fast pipeline gets more tries: its epochs are short, so preemption hits them harder
            t0 = time.perf_counter(); n = ondevice_epoch(vb, 3 * r + k + 1); t["dev"].append(time.perf_counter() - t0)
        t0 = time.perf_counter(); dataloader_epoch(split, batch_size, vb.num_classes, vb.padding, True, seed=r); t["tensor"].append(time.perf_counter() - t0)
        t0 = time.perf_counter(); dataloader_epoch(split, batch_size, vb.num_classes, vb.padding, True, seed=r, dataset=pil); t["pil"].append(time.perf_counter() - t0)
    ips = {k: n / min(v) for k, v in t.items()}
    print(f"  on-device batcher ({vb.device}):            {ips['dev']:10,.0f} images/s")
    print(f"  DataLoader, per-sample PIL transforms:     {ips['pil']:10,.0f} images/s   ratio {ips['dev'] / ips['pil']:5.1f}x")
    print(f"  DataLoader, per-sample tensor transforms:  {ips['tensor']:10,.0f} images/s   ratio {ips['dev'] / ips['tensor']:5.1f}x")
    print("  (target: >= 5x on CPU)")
    return ips


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10000); ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--device", default="cpu"); ap.add_argument("--threads", type=int, default=1, help="torch threads for both pipelines (1: fair on a shared machine)"); ap.add_argument("--fashion", action="store_true", help="also Fashion-MNIST (Debian copy)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 256, (a.n, 3, 32, 32), dtype=torch.uint8, generator=g)
    split = DatasetSplit("synthetic_cifar", "train", "image_classification", x, torch.randint(0, 10, (a.n,), generator=g),
                         meta={"num_classes": 10, "mean": [0.5] * 3, "std": [0.29] * 3, "default_flip": True})
    print(f"CIFAR-shaped uint8 images, n={a.n}, batch {a.batch_size}, torch threads {torch.get_num_threads()}:")
    r = bench(split, a.batch_size, a.device)
    if a.fashion and DATASETS["fashion_mnist"].offline("data"):
        fm = load_dataset("fashion_mnist", "train")
        fm = DatasetSplit(fm.name, fm.split, fm.task, fm.inputs[:a.n], fm.targets[:a.n], meta=fm.meta)
        print(f"Fashion-MNIST (Debian copy), first {a.n} training images:")
        bench(fm, a.batch_size, a.device)
    return r


if __name__ == "__main__":
    main()
