"""End-to-end tests of autonorm_explorer.data.loading on files written here in the real formats of every
dataset that needs a download, served over HTTP from 127.0.0.1 with a manifest of their checksums:
download → verify → parse → split → the DatasetSplit contract; then offline reuse of the cache and
a tampered file caught by its checksum."""
import gzip, hashlib, http.server, io, os, tarfile, threading, zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.io
import torch

from autonorm_explorer.data import loading as D
from autonorm_explorer.data.sources import ChecksumError, DatasetUnavailableError
from autonorm_explorer.data.formats import write_idx

RNG = np.random.default_rng(0)


def _tar(entries: dict, gz=True) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as tar:
        for name, body in entries.items():
            ti = tarfile.TarInfo(name); ti.size = len(body); tar.addfile(ti, io.BytesIO(body))
    return buf.getvalue()


def _zip(entries: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, body in entries.items(): z.writestr(name, body)
    return buf.getvalue()


def _npy(a) -> bytes:
    buf = io.BytesIO(); np.save(buf, a); return buf.getvalue()


def _cifar_records(n, label_bytes, n_classes=10):
    x = RNG.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
    y = np.stack([RNG.integers(0, 20, n), RNG.integers(0, n_classes, n)], 1)[:, -label_bytes:].astype(np.uint8)
    return np.concatenate([y, x.reshape(n, -1)], 1).tobytes(), x, y


def _build_fixtures(tmp: Path) -> dict:
    "dataset → {filename: bytes}, in the canonical formats, plus the arrays they hold."
    files, truth = {}, {}
    # MNIST: four gzipped IDX files
    xm, ym = RNG.integers(0, 256, (30, 28, 28), dtype=np.uint8), RNG.integers(0, 10, 30).astype(np.uint8)
    xt, yt = RNG.integers(0, 256, (12, 28, 28), dtype=np.uint8), RNG.integers(0, 10, 12).astype(np.uint8)
    m = {}
    for fname, arr in [("train-images-idx3-ubyte.gz", xm), ("train-labels-idx1-ubyte.gz", ym),
                       ("t10k-images-idx3-ubyte.gz", xt), ("t10k-labels-idx1-ubyte.gz", yt)]:
        m[fname] = write_idx(tmp / fname, arr).read_bytes()
    files["mnist"] = m; truth["mnist"] = (xm, ym, xt, yt)
    # CIFAR-10 binary: 5 training batches + test batch
    entries, xs, ys = {}, [], []
    for i in range(1, 6):
        raw, x, y = _cifar_records(4, 1); entries[f"cifar-10-batches-bin/data_batch_{i}.bin"] = raw; xs.append(x); ys.append(y)
    raw, x_te, y_te = _cifar_records(5, 1); entries["cifar-10-batches-bin/test_batch.bin"] = raw
    entries["cifar-10-batches-bin/batches.meta.txt"] = "\n".join(D.CIFAR10_CLASSES).encode()
    files["cifar10"] = {"cifar-10-binary.tar.gz": _tar(entries)}
    truth["cifar10"] = (np.concatenate(xs), np.concatenate(ys)[:, 0], x_te, y_te[:, 0])
    # CIFAR-100 binary: <coarse><fine><pixels>
    raw_tr, x100, y100 = _cifar_records(6, 2, 100); raw_te, _, _ = _cifar_records(3, 2, 100)
    files["cifar100"] = {"cifar-100-binary.tar.gz": _tar({
        "cifar-100-binary/train.bin": raw_tr, "cifar-100-binary/test.bin": raw_te,
        "cifar-100-binary/fine_label_names.txt": "\n".join(f"fine{i}" for i in range(100)).encode(),
        "cifar-100-binary/coarse_label_names.txt": "\n".join(f"coarse{i}" for i in range(20)).encode()})}
    truth["cifar100"] = (x100, y100)
    # SVHN .mat: X is 32×32×3×N, y is N×1 with 10 for the digit 0
    for s, n in [("train", 7), ("test", 4)]:
        buf = io.BytesIO()
        scipy.io.savemat(buf, {"X": RNG.integers(0, 256, (32, 32, 3, n), dtype=np.uint8), "y": RNG.integers(1, 11, (n, 1)).astype(np.uint8)})
        files.setdefault("svhn", {})[f"{s}_32x32.mat"] = buf.getvalue()
    # CIFAR-10-C: an uncompressed tar of .npy files (5 severities × 4 images here)
    c10c = RNG.integers(0, 256, (20, 32, 32, 3), dtype=np.uint8); lab = np.tile(np.arange(4), 5).astype(np.uint8)
    files["cifar10c"] = {"CIFAR-10-C.tar": _tar({"CIFAR-10-C/gaussian_noise.npy": _npy(c10c), "CIFAR-10-C/labels.npy": _npy(lab)}, gz=False)}
    truth["cifar10c"] = c10c
    # SST-2 (GLUE zip of TSVs)
    tr = "sentence\tlabel\n" + "".join(f"a {'good' if i % 2 else 'bad'} film number {i} \t{i % 2}\n" for i in range(20))
    dev = "sentence\tlabel\nan unseen good film \t1\nbad \t0\n"
    files["sst2"] = {"SST-2.zip": _zip({"SST-2/train.tsv": tr, "SST-2/dev.tsv": dev, "SST-2/test.tsv": "index\tsentence\n0\tx\n"})}
    # NLTK treebank sample: tagged .pos files
    pos = "".join(f"[ The/DT cat{i}/NN ]\nsat/VBD on/IN\n[ the/DT mat/NN ]\n./.\n\n======================================\n\n" for i in range(30))
    files["ptb_pos"] = {"treebank.zip": _zip({"treebank/tagged/wsj_0001.pos": pos, "treebank/tagged/wsj_0002.pos": "[ It/PRP ]\nis/VBZ ./.\n"})}
    # UCI Energy Efficiency: the .xlsx with X1..X8, Y1, Y2
    df = pd.DataFrame(RNG.normal(size=(40, 10)), columns=[f"X{i}" for i in range(1, 9)] + ["Y1", "Y2"])
    df["Y1"] = 20 + 5 * df["X1"]
    df.to_excel(tmp / "ENB2012_data.xlsx", index=False, engine="openpyxl")
    files["energy_efficiency"] = {"ENB2012_data.xlsx": (tmp / "ENB2012_data.xlsx").read_bytes()}
    truth["energy_efficiency"] = df
    # California Housing: StatLib's tgz with the 9-column CSV
    raw = np.abs(RNG.normal(size=(30, 9))) + 1
    files["california_housing"] = {"cal_housing.tgz": _tar({"CaliforniaHousing/cal_housing.data": "\n".join(",".join(f"{v:.6f}" for v in r) for r in raw).encode()})}
    truth["california_housing"] = raw
    return files, truth


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    "An HTTP server on 127.0.0.1 serving every fixture file, and a manifest with their checksums."
    tmp = tmp_path_factory.mktemp("fixtures")
    files, truth = _build_fixtures(tmp)
    routes = {f"/{ds}/{fn}": body for ds, d in files.items() for fn, body in d.items()}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = routes.get(self.path)
            if body is None: self.send_error(404); return
            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
        def log_message(self, *a): pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    pin_only = {"ptb_pos", "energy_efficiency"}   # like the real manifest: no published SHA-256, pinned on first use
    manifest = {"datasets": {ds: {"files": {fn: {"urls": ["http://127.0.0.1:9/unreachable-mirror", f"{base}/{ds}/{fn}"],
                                                  "size": None if ds in pin_only else len(body),
                                                  "sha256": None if ds in pin_only else hashlib.sha256(body).hexdigest(),
                                                  "checksum_source": "test fixture"}
                                             for fn, body in d.items()}}
                             for ds, d in files.items()}}
    yield {"manifest": manifest, "truth": truth, "base": base}
    srv.shutdown()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def _load(name, split, root, served, **kw):
    return D.load_dataset(name, split, root=root, manifest=served["manifest"], **kw)


def test_mnist_idx_download_and_parse(served, root):
    tr, te = _load("mnist", "train", root, served), _load("mnist", "test", root, served)
    xm, ym, xt, yt = served["truth"]["mnist"]
    assert torch.equal(tr.inputs[:, 0], torch.from_numpy(xm)) and torch.equal(tr.targets, torch.from_numpy(ym.astype(np.int64)))
    assert tr.inputs.dtype == torch.uint8 and tuple(te.inputs.shape) == (12, 1, 28, 28)
    assert (root / "mnist" / "train-images-idx3-ubyte.gz.sha256").is_file()
    # the cache now works without network
    assert torch.equal(D.load_dataset("mnist", "test", root=root, download=False, manifest=served["manifest"]).inputs, te.inputs)


def test_cifar_binary_archives(served, root):
    x_tr, y_tr, x_te, y_te = served["truth"]["cifar10"]
    tr, te = _load("cifar10", "train", root, served), _load("cifar10", "test", root, served)
    assert torch.equal(tr.inputs, torch.from_numpy(x_tr)) and torch.equal(tr.targets, torch.from_numpy(y_tr.astype(np.int64)))
    assert torch.equal(te.targets, torch.from_numpy(y_te.astype(np.int64))) and tr.meta["classes"] == D.CIFAR10_CLASSES
    assert tr.meta["default_flip"] is True
    # channel statistics fitted on train, used for test
    np.testing.assert_allclose(tr.meta["mean"], (x_tr / 255).mean((0, 2, 3)), atol=1e-9)
    assert te.meta["mean"] == tr.meta["mean"]
    x100, y100 = served["truth"]["cifar100"]
    fine, coarse = _load("cifar100", "train", root, served), _load("cifar100", "train", root, served, label="coarse")
    assert torch.equal(fine.targets, torch.from_numpy(y100[:, 1].astype(np.int64)))
    assert torch.equal(coarse.targets, torch.from_numpy(y100[:, 0].astype(np.int64)))
    assert fine.meta["num_classes"] == 100 and coarse.meta["num_classes"] == 20 and coarse.meta["classes"][3] == "coarse3"


def test_svhn_mat(served, root):
    tr = _load("svhn", "train", root, served)
    assert tuple(tr.inputs.shape) == (7, 3, 32, 32) and tr.targets.min() >= 0 and tr.targets.max() <= 9


def test_cifar10c_rows_by_severity(served, root):
    c10c = served["truth"]["cifar10c"]
    for s in (1, 3, 5):
        ds = _load("cifar10c", "test", root, served, corruption="gaussian_noise", severity=s)
        assert torch.equal(ds.inputs, torch.from_numpy(c10c[(s - 1) * 4:s * 4].transpose(0, 3, 1, 2).copy()))
        assert ds.targets.tolist() == [0, 1, 2, 3]
    # the extracted release files are used directly afterwards
    assert (root / "cifar10c" / "CIFAR-10-C" / "gaussian_noise.npy").is_file()
    with pytest.raises(ValueError, match="train"):
        _load("cifar10c", "train", root, served)


def test_text_sst2_and_treebank(served, root):
    tr, va = _load("sst2", "train", root, served), _load("sst2", "valid", root, served)
    assert tr.task == "sentence_classification" and len(tr) == 20 and len(va) == 2
    assert va.meta["vocab"] == tr.meta["vocab"]                  # vocabulary from train only
    assert va.inputs[0, :2].tolist() == [1, 1] and va.inputs[0, 2].item() == tr.meta["vocab"].index("good")   # an, unseen → <unk>
    assert va.mask.tolist()[1] == [True, False, False, False]
    with pytest.warns(UserWarning, match="pinned on first use"):
        ptb = _load("ptb_pos", "train", root, served)
    assert ptb.task == "token_tagging" and ptb.inputs.shape == ptb.targets.shape == ptb.mask.shape
    assert {"DT", "NN", "VBD", "IN", "."} <= set(ptb.meta["tags"]) <= {"DT", "NN", "VBD", "IN", ".", "PRP", "VBZ"}
    assert (ptb.targets[~ptb.mask] == -100).all() and (ptb.targets[ptb.mask] >= 0).all()
    te = _load("ptb_pos", "test", root, served)
    assert te.meta["unk_rate"] > 0                                # cat17 etc. are unseen words


def test_tabular_energy_and_california(served, root):
    df = served["truth"]["energy_efficiency"]
    with pytest.warns(UserWarning, match="pinned on first use"):
        tr = _load("energy_efficiency", "train", root, served)
    te = _load("energy_efficiency", "test", root, served)
    idx = D.seeded_split(40)
    np.testing.assert_allclose(tr.meta["target_mean"], df["Y1"].to_numpy()[idx["train"]].mean())
    np.testing.assert_allclose(te.targets.numpy() * tr.meta["target_std"] + tr.meta["target_mean"], df["Y1"].to_numpy()[idx["test"]], rtol=1e-5)
    assert tr.meta["feature_names"][0] == "relative_compactness" and tr.meta["target_units"] == "kWh/m²"
    # Y1 = 20 + 5·X1: a least-squares fit on standardized data is exact, the mean predictor is not
    w = np.linalg.lstsq(np.c_[tr.inputs.numpy(), np.ones(len(tr))], tr.targets.numpy(), rcond=None)[0]
    m = D.split_regression_metrics(np.c_[te.inputs.numpy(), np.ones(len(te))] @ w, te)
    assert m["rmse"] < 1e-3 * m["baseline_rmse"] and m["n"] == 4
    y2 = _load("energy_efficiency", "train", root, served, target="Y2")
    np.testing.assert_allclose(y2.meta["target_mean"], df["Y2"].to_numpy()[idx["train"]].mean())
    ca = _load("california_housing", "train", root, served)
    raw = served["truth"]["california_housing"]
    np.testing.assert_allclose(ca.meta["target_mean"], (raw[:, 8] / 1e5)[D.seeded_split(30)["train"]].mean())
    assert ca.meta["feature_names"] == ["MedInc", "HouseAge", "AveRooms", "AveBedrms", "Population", "AveOccup", "Latitude", "Longitude"]


def test_tampered_cache_is_caught(served, tmp_path):
    D.load_dataset("svhn", "test", root=tmp_path, manifest=served["manifest"])
    f = tmp_path / "svhn" / "test_32x32.mat"
    data = bytearray(f.read_bytes()); data[-1] ^= 0xFF; f.write_bytes(bytes(data))
    os.utime(f, (f.stat().st_mtime + 10,) * 2)
    with pytest.raises(ChecksumError, match="SHA-256"):
        D.load_dataset("svhn", "test", root=tmp_path, manifest=served["manifest"])


def test_wrong_checksum_leaves_no_file(served, tmp_path):
    man = {"datasets": {"svhn": {"files": {"train_32x32.mat": {**served["manifest"]["datasets"]["svhn"]["files"]["train_32x32.mat"], "sha256": "0" * 64}}}}}
    with pytest.raises(DatasetUnavailableError, match="checksum mismatch") as e:
        D.load_dataset("svhn", "train", root=tmp_path, manifest=man)
    assert "digits" in str(e.value) and str((tmp_path / "svhn" / "train_32x32.mat").resolve()) in str(e.value)
    assert not any((tmp_path / "svhn").iterdir())            # nothing left, not even a partial file


def test_offline_error_names_url_path_and_alternatives(tmp_path):
    for name, alt in [("sst2", "polarity"), ("ptb_pos", "wsj_pos_sample"), ("california_housing", "diabetes"), ("cifar10c", "corrupt_split")]:
        with pytest.raises(DatasetUnavailableError) as e:
            D.load_dataset(name, "test", root=tmp_path, download=False)
        msg = str(e.value)
        assert name in msg and "http" in msg and str(tmp_path.resolve()) in msg and alt in msg, msg


def test_list_datasets_covers_the_issue():
    df = D.list_datasets()
    names = {"mnist", "fashion_mnist", "cifar10", "cifar100", "svhn", "cifar10c", "ptb_pos", "sst2", "energy_efficiency",
             "california_housing", "digits", "mnist5k", "wsj_pos_sample", "oanc_pos", "polarity", "diabetes", "autompg",
             "synthetic_cifar10"}
    assert set(df.name) == names and list(df.columns[:4]) == ["name", "task", "available_offline", "source"]
    assert df.set_index("name").loc[["digits", "mnist5k", "diabetes", "autompg", "synthetic_cifar10"], "available_offline"].all()
