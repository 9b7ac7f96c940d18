"""Bad inputs for the data half: `load_dataset` and its loaders, the file-format readers, the download layer,
the augmentations and corruptions, the metrics and the statistics. Every row must fail clearly (the walker in
`bad_inputs.py` says what that means); damaged dataset files are made here, small, in a temporary folder."""
import atexit
import functools
import gzip
import io
import shutil
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from bad_inputs import Bad, case_ids, check
from autonorm_explorer.data import augment as A
from autonorm_explorer.data import corruptions as C
from autonorm_explorer.data import loading as D
from autonorm_explorer.data import sources as S
from autonorm_explorer.data import formats as F
from autonorm_explorer.data import metrics as M
from autonorm_explorer.experiments import stats as ST

IDX = [f for pair in D.IDX_FILES.values() for f in pair]
# the damaged files here have no published digest: pinning them on first use is expected, not news
pytestmark = pytest.mark.filterwarnings("ignore:.*pinned on first use:UserWarning")


@functools.lru_cache(maxsize=None)
def tmp() -> Path:
    "One temporary folder for the damaged files of this table, removed at exit."
    d = Path(tempfile.mkdtemp(prefix="bad_inputs_data_"))
    atexit.register(shutil.rmtree, d, True)
    return d


def manifest(*entries: tuple[str, str]) -> dict:
    "A manifest whose files have no published size or digest (so a damaged file reaches its parser)."
    m = {"datasets": {}}
    for name, filename in entries:
        files = m["datasets"].setdefault(name, {"licence": "test", "files": {}})["files"]
        files[filename] = {"urls": ["http://127.0.0.1:9/unreachable"], "size": None, "sha256": None}
    return m


def damaged_root(name: str, files: dict[str, bytes]) -> Path:
    "A cache root holding `files` (damaged) for dataset `name`; fresh per call, so no pin or cache interferes."
    root = Path(tempfile.mkdtemp(dir=tmp()))
    (root / name).mkdir()
    for filename, body in files.items():
        (root / name / filename).write_bytes(body)
    return root


def idx_gz() -> bytes:
    return gzip.compress(bytes([0, 0, 8, 1]) + (100).to_bytes(4, "big") + bytes(100))


def tgz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


def load_damaged(name: str, files: dict[str, bytes], split: str = "train", **kw):
    "load_dataset on a cache holding damaged `files`, offline, with a manifest listing them."
    root = damaged_root(name, files)
    return D.load_dataset(name, split, root=root, download=False, manifest=manifest(*((name, f) for f in files)), **kw)


def damaged_file(name: str, body: bytes, suffix: str) -> Path:
    p = Path(tempfile.mkdtemp(dir=tmp())) / f"{name}{suffix}"
    p.write_bytes(body)
    return p


def folder_of(name: str) -> str:
    "What the messages about a damaged `name` must name: the folder the loader looked in (any temp root)."
    return f"/{name}"


def image_split(n: int = 4, task: str = "image_classification") -> D.DatasetSplit:
    x = torch.randint(0, 256, (n, 1, 8, 8), dtype=torch.uint8)
    meta = {"num_classes": 2, "mean": [0.5], "std": [0.25], "default_flip": False}
    return D.DatasetSplit("tiny", "train", task, x, torch.arange(n) % 2, None, meta)


def regression_split(n: int = 4) -> D.DatasetSplit:
    meta = {"target_mean": 0.0, "target_std": 1.0}
    return D.DatasetSplit("tab", "test", "regression", torch.zeros(n, 2), torch.zeros(n), None, meta)


X = torch.randint(0, 256, (4, 3, 8, 8), dtype=torch.uint8)
LOGITS = torch.randn(5, 3)
Y = torch.tensor([0, 1, 2, 0, 1])
GEN = torch.Generator().manual_seed(0)
RUNS = pd.DataFrame(dict(dataset="fmnist", method=["ln"] * 3 + ["auto"] * 3, seed=[0, 1, 2] * 2,
                         acc=[90.0, 91.0, 92.0, 90.5, 91.5, 92.5]))
TRUNCATED_GZ = idx_gz()[:20]
NOT_GZIP = b"<html>404 Not Found</html>"
SHORT_IDX = gzip.compress(bytes([0, 0, 8, 1]) + (9).to_bytes(4, "big") + bytes(3))   # header says 9, holds 3

LD = "load_dataset"
CASES = [
    # --- load_dataset: names, splits, options -------------------------------------------------------------
    Bad(LD, "unknown dataset name", lambda: D.load_dataset("cifar11"), ("'cifar11'", "'cifar10'", "'mnist'")),
    Bad(LD, "name is None", lambda: D.load_dataset(None), ("None", "'digits'")),
    Bad(LD, "unknown split", lambda: D.load_dataset("digits", "dev"), ("'dev'", "'valid'")),
    Bad(LD, "an option the dataset does not take", lambda: D.load_dataset("digits", lowercase=True),
        ("'digits'", "lowercase=True"), raises=(TypeError,)),
    Bad(LD, "an option of another dataset", lambda: D.load_dataset("polarity", severity=3),
        ("'severity'", "'min_freq'", "'lowercase'")),
    Bad(LD, "max_len negative", lambda: D.load_dataset("polarity", max_len=-1), ("max_len=-1", "[1, inf)")),
    Bad(LD, "max_len zero", lambda: D.load_dataset("wsj_pos_sample", max_len=0), ("max_len=0", "[1, inf)")),
    Bad(LD, "max_len a string", lambda: D.load_dataset("polarity", max_len="64"), ("'64'", "integer")),
    Bad(LD, "lowercase='no' (a string, not a bool)", lambda: D.load_dataset("polarity", lowercase="no"),
        ("'no'", "True, False"), raises=(TypeError,)),
    Bad(LD, "min_freq zero", lambda: D.load_dataset("oanc_pos", min_freq=0), ("min_freq=0", "[1, inf)")),
    Bad(LD, "min_freq fractional", lambda: D.load_dataset("polarity", min_freq=1.5), ("min_freq=1.5", "integer")),
    Bad(LD, "root is None", lambda: D.load_dataset("digits", root=None), ("None", "str or PathLike"),
        raises=(TypeError,)),
    Bad(LD, "download='no'", lambda: D.load_dataset("digits", download="no"), ("'no'", "True, False"),
        raises=(TypeError,)),
    Bad(LD, "valid_fraction 1", lambda: D.load_dataset("digits", valid_fraction=1.0), ("valid_fraction=1.0", "[0, 1)")),
    Bad(LD, "valid_fraction negative", lambda: D.load_dataset("digits", valid_fraction=-0.1), ("-0.1", "[0, 1)")),
    Bad(LD, "valid_fraction a string", lambda: D.load_dataset("digits", valid_fraction="0.1"), ("'0.1'",),
        raises=(TypeError,)),
    Bad(LD, "test_fraction NaN", lambda: D.load_dataset("digits", test_fraction=float("nan")), ("test_fraction", "nan")),
    Bad(LD, "fractions adding to 1 or more", lambda: D.load_dataset("digits", valid_fraction=0.6, test_fraction=0.5),
        ("valid_fraction + test_fraction", "< 1")),
    Bad(LD, "split_seed negative", lambda: D.load_dataset("digits", split_seed=-1), ("split_seed=-1", "[0, inf)")),
    Bad(LD, "split_seed fractional", lambda: D.load_dataset("digits", split_seed=1.5), ("split_seed=1.5",)),
    Bad(LD, "manifest of a wrong type", lambda: D.load_dataset("mnist", manifest=3), ("manifest=3", "dict"),
        raises=(TypeError,)),
    Bad(LD, "cifar100 unknown label kind", lambda: D.load_dataset("cifar100", label="superfine"),
        ("'superfine'", "'fine'", "'coarse'")),
    Bad(LD, "cifar100 label a list", lambda: D.load_dataset("cifar100", label=["fine"]), ("['fine']", "'coarse'")),
    Bad(LD, "cifar10c unknown corruption", lambda: D.load_dataset("cifar10c", "test", corruption="rain"),
        ("'rain'", "'gaussian_noise'")),
    Bad(LD, "cifar10c severity 6", lambda: D.load_dataset("cifar10c", "test", severity=6), ("severity=6", "[1, 5]")),
    Bad(LD, "energy_efficiency unknown target", lambda: D.load_dataset("energy_efficiency", target="Y3"),
        ("'Y3'", "'Y1'", "'Y2'")),
    # --- load_dataset: damaged or missing files in the cache ------------------------------------------------
    Bad(LD, "mnist file is not gzip (an HTML error page)", lambda: load_damaged("mnist", dict.fromkeys(IDX, NOT_GZIP)),
        ("train-images-idx3-ubyte.gz", folder_of("mnist"), "BadGzipFile")),
    Bad(LD, "mnist file truncated", lambda: load_damaged("mnist", dict.fromkeys(IDX, TRUNCATED_GZ)),
        ("train-images-idx3-ubyte.gz", folder_of("mnist"), "truncated")),
    Bad(LD, "mnist file missing, download=False",
        lambda: D.load_dataset("mnist", root=damaged_root("mnist", {}), download=False,
                               manifest=manifest(*(("mnist", f) for f in IDX))),
        ("train-images-idx3-ubyte.gz", folder_of("mnist"), "download=False")),
    Bad(LD, "cifar10 archive truncated",
        lambda: load_damaged("cifar10", {"cifar-10-binary.tar.gz": tgz({"a/test_batch.bin": bytes(3073)})[:40]}),
        ("cifar-10-binary.tar.gz", folder_of("cifar10"), "truncated")),
    Bad(LD, "cifar100 archive not a tar",
        lambda: load_damaged("cifar100", {"cifar-100-binary.tar.gz": NOT_GZIP}),
        ("cifar-100-binary.tar.gz", folder_of("cifar100"))),
    Bad(LD, "svhn .mat file damaged", lambda: load_damaged("svhn", {"train_32x32.mat": NOT_GZIP,
                                                                  "test_32x32.mat": NOT_GZIP}),
        ("train_32x32.mat", folder_of("svhn"), "MATLAB")),
    Bad(LD, "cifar10c .npy member damaged",
        lambda: _cifar10c_damaged(), ("gaussian_noise.npy", "CIFAR-10-C", ".npy")),
    Bad(LD, "ptb_pos zip damaged", lambda: load_damaged("ptb_pos", {"treebank.zip": b"PK\x03\x04" + NOT_GZIP}),
        ("treebank.zip", folder_of("ptb_pos"), "zip")),
    Bad(LD, "sst2 zip without the GLUE files",
        lambda: load_damaged("sst2", {"SST-2.zip": _zip({"readme.txt": b"hi"})}),
        ("SST-2.zip", folder_of("sst2"), "train.tsv")),
    Bad(LD, "california_housing archive truncated",
        lambda: load_damaged("california_housing", {"cal_housing.tgz": tgz({"c/cal_housing.data": b"1," * 900})[:50]},
                             "test"),
        ("cal_housing.tgz", folder_of("california_housing"))),
    Bad(LD, "energy_efficiency spreadsheet damaged",
        lambda: load_damaged("energy_efficiency", {"ENB2012_data.xlsx": NOT_GZIP}, "test"),
        ("ENB2012_data.xlsx", folder_of("energy_efficiency"), "table")),
    # --- list_datasets and the split helpers -----------------------------------------------------------------
    Bad("list_datasets", "root is None", lambda: D.list_datasets(None), ("None", "PathLike"), raises=(TypeError,)),
    Bad("seeded_split", "n negative", lambda: D.seeded_split(-1), ("n=-1", "[0, inf)")),
    Bad("seeded_split", "n a string", lambda: D.seeded_split("10"), ("n='10'",)),
    Bad("seeded_split", "n too large for memory", lambda: D.seeded_split(10**12), ("n=1000000000000", "7.3 TiB", "4.0 GiB")),
    Bad("seeded_split", "valid_fraction above 1", lambda: D.seeded_split(10, 1.5), ("valid_fraction=1.5",)),
    Bad("build_vocab", "a string instead of token lists", lambda: D.build_vocab("the cat"), ("'the cat'", "list"),
        raises=(TypeError,)),
    Bad("build_vocab", "min_freq zero", lambda: D.build_vocab([["a"]], 0), ("min_freq=0",)),
    Bad("encode_padded", "max_len negative", lambda: D.encode_padded([["a"]], ["<pad>", "<unk>", "a"], max_len=-1),
        ("max_len=-1", "[1, inf)")),
    Bad("encode_padded", "unk token not in the vocabulary", lambda: D.encode_padded([["b"]], ["<pad>", "a"]),
        ("'<unk>'", "'<pad>'")),
    Bad("encode_padded", "tag outside the vocabulary, unk=None", lambda: D.encode_padded([["VB"]], ["NN"], unk=None),
        ("'VB'", "'NN'")),
    Bad("fit_standardizer", "no rows", lambda: D.fit_standardizer(np.zeros((0, 3))), ("(0, 3)",)),
    Bad("channel_stats", "images without a channel axis", lambda: D.channel_stats(np.zeros((3, 8, 8), np.uint8)),
        ("(3, 8, 8)", "N×C×H×W")),
    Bad("data.split_regression_metrics", "split passed as a string", lambda: D.split_regression_metrics(torch.zeros(3), "test"),
        ("'test'", "DatasetSplit"), raises=(TypeError,)),
    Bad("data.split_regression_metrics", "a classification split", lambda: D.split_regression_metrics(torch.zeros(4), image_split()),
        ("'image_classification'", "'regression'")),
    Bad("data.split_regression_metrics", "too few predictions", lambda: D.split_regression_metrics(torch.zeros(3), regression_split()),
        ("pred has 3", "has 4")),
    Bad("text_batches", "an image split", lambda: next(D.text_batches(image_split())), ("'image_classification'",)),
    Bad("text_batches", "split passed as a name", lambda: next(D.text_batches("polarity")), ("'polarity'", "DatasetSplit"),
        raises=(TypeError,)),
    Bad("text_batches", "shuffle='no'", lambda: next(D.text_batches(image_split(), shuffle="no")), ("'no'",),
        raises=(TypeError,)),
    Bad("text_batches", "unknown device", lambda: next(D.text_batches(image_split(), device="cdua")), ("'cdua'",)),
    Bad("channel_stats", "chunk zero", lambda: D.channel_stats(np.zeros((2, 1, 2, 2), np.uint8), chunk=0), ("chunk=0",)),
    # --- formats: each reader on a damaged file names the file and its folder -----------------------------
    Bad("read_idx", "gzip truncated", lambda: F.read_idx(damaged_file("t", TRUNCATED_GZ, ".gz")),
        ("t.gz", "truncated", "EOFError")),
    Bad("read_idx", "not gzip", lambda: F.read_idx(damaged_file("n", NOT_GZIP, ".gz")), ("n.gz", "BadGzipFile")),
    Bad("read_idx", "not IDX (wrong magic)", lambda: F.read_idx(damaged_file("h", NOT_GZIP, "")), ("/h", "IDX")),
    Bad("read_idx", "header larger than the data", lambda: F.read_idx(damaged_file("s", SHORT_IDX, ".gz")), ("s.gz", "(9,)")),
    Bad("read_cifar_archive", "truncated archive",
        lambda: F.read_cifar_archive(damaged_file("c", tgz({"b/test_batch.bin": bytes(3073)})[:40], ".tar.gz"),
                                     ["test_batch.bin"], 1), ("c.tar.gz", "tar")),
    Bad("read_cifar_archive", "member missing",
        lambda: F.read_cifar_archive(damaged_file("c", tgz({"b/x.bin": bytes(3073)}), ".tar.gz"), ["test_batch.bin"], 1),
        ("c.tar.gz", "test_batch.bin")),
    Bad("parse_cifar_records", "not a whole number of records", lambda: F.parse_cifar_records(b"x" * 3074, 1),
        ("3074", "3073")),
    Bad("parse_cifar_records", "label_bytes 3", lambda: F.parse_cifar_records(b"x" * 3075, 3), ("label_bytes=3", "1, 2")),
    Bad("parse_cifar_records", "a path instead of bytes", lambda: F.parse_cifar_records("data_batch_1.bin", 1),
        ("'data_batch_1.bin'", "bytes"), raises=(TypeError,)),
    Bad("write_idx", "values beyond a byte", lambda: F.write_idx(tmp() / "w.idx", np.array([0, 300])), ("300", "0..255")),
    Bad("split_tagged_token", "not a string", lambda: F.split_tagged_token(None), ("None", "str"), raises=(TypeError,)),
    Bad("parse_treebank_pos", "bytes instead of text", lambda: F.parse_treebank_pos(b"a/DT"), ("b'a/DT'", "str"),
        raises=(TypeError,)),
    Bad("read_sst2_tsv", "a path instead of the text", lambda: F.read_sst2_tsv(Path("dev.tsv")), ("dev.tsv", "str"),
        raises=(TypeError,)),
    Bad("cal_housing_features", "8 columns instead of 9", lambda: F.cal_housing_features(np.zeros((3, 8))),
        ("(3, 8)", "N×9")),
    Bad("read_text_member", "not a tar archive", lambda: F.read_text_member(damaged_file("m", NOT_GZIP, ".tgz"), "a.txt"),
        ("m.tgz", "a.txt")),
    Bad("read_svhn_mat", "not a MATLAB file", lambda: F.read_svhn_mat(damaged_file("v", NOT_GZIP, ".mat")),
        ("v.mat", "MATLAB")),
    Bad("read_svhn_mat", "missing file", lambda: F.read_svhn_mat(tmp() / "absent.mat"), ("absent.mat",),
        raises=(FileNotFoundError,)),
    Bad("read_tagged_lines", "binary, not UTF-8 text", lambda: F.read_tagged_lines(damaged_file("w", b"\xff\xfe\x00", ".txt")),
        ("w.txt", "UTF-8")),
    Bad("read_tagged_lines", "a token without /TAG", lambda: F.read_tagged_lines(damaged_file("w", b"a/DT cat\n", ".txt")),
        ("w.txt", "line 1", "'cat'")),
    Bad("read_treebank_zip", "not a zip file", lambda: F.read_treebank_zip(damaged_file("tb", NOT_GZIP, ".zip")),
        ("tb.zip", "zip")),
    Bad("read_polarity_csv", "binary, not UTF-8", lambda: F.read_polarity_csv(damaged_file("p", b"\xff\xfe\x00", ".csv")),
        ("p.csv", "UTF-8")),
    Bad("read_polarity_csv", "a label that is not ±1", lambda: F.read_polarity_csv(damaged_file("p", b"2,hello\n", ".csv")),
        ("p.csv", "row 1", "'2'")),
    Bad("read_sst2_tsv", "wrong header", lambda: F.read_sst2_tsv("index\tsentence\n0\tx\n"), ("header", "'index")),
    Bad("read_energy_table", "not a spreadsheet", lambda: F.read_energy_table(damaged_file("e", NOT_GZIP, ".xlsx")),
        ("e.xlsx", "table")),
    Bad("read_energy_table", "columns missing", lambda: F.read_energy_table(damaged_file("e", b"a,b\n1,2\n", ".csv")),
        ("e.csv", "X1", "'a'")),
    Bad("read_cal_housing_tgz", "truncated archive",
        lambda: F.read_cal_housing_tgz(damaged_file("ch", tgz({"c/cal_housing.data": b"1," * 900})[:50], ".tgz")),
        ("ch.tgz",)),
    # --- datasources: fetching and verifying ------------------------------------------------------------------
    Bad("fetch_file", "unknown dataset", lambda: S.fetch_file("cifar11", "x", manifest=manifest(("mnist", "a"))),
        ("'cifar11'", "'mnist'")),
    Bad("fetch_file", "unknown file of a dataset", lambda: S.fetch_file("mnist", "b", manifest=manifest(("mnist", "a"))),
        ("'b'", "'a'")),
    Bad("fetch_file", "download='no'", lambda: S.fetch_file("mnist", "a", download="no", manifest=manifest(("mnist", "a"))),
        ("'no'", "True, False"), raises=(TypeError,)),
    Bad("fetch_file", "unknown task", lambda: S.fetch_file("mnist", "a", task="vision", manifest=manifest(("mnist", "a"))),
        ("'vision'", "'image_classification'")),
    Bad("fetch_file", "timeout zero", lambda: S.fetch_file("mnist", "a", timeout=0, manifest=manifest(("mnist", "a"))),
        ("timeout=0", "(0, inf)")),
    Bad("download_file", "url is None", lambda: S.download_file(None, tmp() / "x"), ("None", "str"), raises=(TypeError,)),
    Bad("download_file", "timeout negative", lambda: S.download_file("http://127.0.0.1:9/x", tmp() / "x", timeout=-1),
        ("timeout=-1",)),
    Bad("verify_file", "size differs from the manifest", lambda: S.verify_file(damaged_file("f", b"abc", ".bin"), None, 4),
        ("f.bin", "size 3", "expected 4")),
    Bad("verify_file", "digest differs from the manifest",
        lambda: S.verify_file(damaged_file("g", b"abc", ".bin"), "0" * 64), ("g.bin", "expected 0000")),
    # --- augment -----------------------------------------------------------------------------------------------
    Bad("random_crop_flip", "one image, not a batch", lambda: A.random_crop_flip(X[0], 2, True, GEN), ("(3, 8, 8)", "B×C×H×W")),
    Bad("random_crop_flip", "images as a list", lambda: A.random_crop_flip([1, 2], 2, True, GEN), ("[1, 2]", "Tensor"),
        raises=(TypeError,)),
    Bad("random_crop_flip", "padding negative", lambda: A.random_crop_flip(X, -1, True, GEN), ("padding=-1", "[0, inf)")),
    Bad("random_crop_flip", "flip='no'", lambda: A.random_crop_flip(X, 2, "no", GEN), ("'no'",), raises=(TypeError,)),
    Bad("random_crop_flip", "generator missing", lambda: A.random_crop_flip(X, 2, True, None), ("None", "Generator"),
        raises=(TypeError,)),
    Bad("mixup", "λ above 1", lambda: A.mixup(X.float(), torch.eye(4), 2.0, torch.arange(4)), ("lam=2.0", "[0, 1]")),
    Bad("mixup", "λ NaN", lambda: A.mixup(X.float(), torch.eye(4), float("nan"), torch.arange(4)), ("lam=nan",)),
    Bad("mixup", "permutation of the wrong length", lambda: A.mixup(X.float(), torch.eye(4), 0.5, torch.arange(3)),
        ("(3,)", "(4,)")),
    Bad("mixup", "soft labels of the wrong length", lambda: A.mixup(X.float(), torch.eye(3), 0.5, torch.arange(4)),
        ("(3, 3)", "4 images")),
    Bad("cutmix_box", "λ negative", lambda: A.cutmix_box(8, 8, -0.5, np.random.default_rng(0)), ("lam=-0.5",)),
    Bad("cutmix_box", "height zero", lambda: A.cutmix_box(0, 8, 0.5, np.random.default_rng(0)), ("H=0", "[1, inf)")),
    Bad("cutmix", "λ above 1", lambda: A.cutmix(X, torch.eye(4), 1.5, torch.arange(4), np.random.default_rng(0)),
        ("lam=1.5",)),
    Bad("BatchConfig", "batch_size zero", lambda: A.BatchConfig(batch_size=0), ("batch_size=0", "[1, inf)")),
    Bad("BatchConfig", "mix_prob above 1", lambda: A.BatchConfig(mix_prob=1.5), ("mix_prob=1.5", "[0, 1]")),
    Bad("BatchConfig", "mixup_alpha zero", lambda: A.BatchConfig(mixup_alpha=0), ("mixup_alpha=0", "(0, inf)")),
    Bad("BatchConfig", "crop_padding negative", lambda: A.BatchConfig(crop_padding=-1), ("crop_padding=-1",)),
    Bad("BatchConfig", "train='no'", lambda: A.BatchConfig(train="no"), ("'no'", "True, False"), raises=(TypeError,)),
    Bad("BatchConfig", "seed negative", lambda: A.BatchConfig(seed=-1), ("seed=-1", "[0, inf)")),
    Bad("VisionBatches", "split passed as a name", lambda: A.VisionBatches("digits"), ("'digits'", "DatasetSplit"),
        raises=(TypeError,)),
    Bad("VisionBatches", "a regression split", lambda: A.VisionBatches(regression_split(), "cpu"),
        ("'regression'", "'image_classification'")),
    Bad("VisionBatches", "misspelled option", lambda: A.VisionBatches(image_split(), "cpu", batchsize=8),
        ("'batchsize'", "'batch_size'")),
    Bad("VisionBatches", "cfg of a wrong type", lambda: A.VisionBatches(image_split(), "cpu", cfg="train"),
        ("'train'", "BatchConfig"), raises=(TypeError,)),
    Bad("VisionBatches", "cfg and options both", lambda: A.VisionBatches(image_split(), "cpu", A.BatchConfig(), seed=1),
        ("cfg", "['seed']"), raises=(TypeError,)),
    Bad("VisionBatches", "a hand-made split without channel statistics",
        lambda: A.VisionBatches(D.DatasetSplit("x", "train", "image_classification", X, Y[:4]), "cpu"),
        ("['num_classes', 'mean', 'std']",)),
    Bad("VisionBatches", "unknown device", lambda: A.VisionBatches(image_split(), "cdua"), ("'cdua'", "'cpu'")),
    Bad("VisionBatches.epoch_batches", "epoch negative",
        lambda: next(A.VisionBatches(image_split(), "cpu").epoch_batches(-1)), ("epoch=-1",)),
    # --- corruptions ---------------------------------------------------------------------------------------------
    Bad("corrupt", "unknown corruption", lambda: C.corrupt(X, "fog", 1), ("'fog'", "'gaussian_noise'", "'pixelate'")),
    Bad("corrupt", "severity 0", lambda: C.corrupt(X, "contrast", 0), ("severity=0", "[1, 5]")),
    Bad("corrupt", "severity 6", lambda: C.corrupt(X, "contrast", 6), ("severity=6", "[1, 5]")),
    Bad("corrupt", "severity fractional", lambda: C.corrupt(X, "contrast", 2.5), ("severity=2.5",)),
    Bad("corrupt", "float images", lambda: C.corrupt(X.float(), "contrast", 1), ("torch.float32", "uint8")),
    Bad("corrupt", "one image, not a batch", lambda: C.corrupt(X[0], "contrast", 1), ("(3, 8, 8)", "N×C×H×W")),
    Bad("corrupt", "two channels", lambda: C.corrupt(X[:, :2], "contrast", 1), ("(4, 2, 8, 8)", "(1, 3)")),
    Bad("corrupt", "images as a list", lambda: C.corrupt([1, 2], "contrast", 1), ("[1, 2]", "Tensor"),
        raises=(TypeError,)),
    Bad("corrupt", "seed negative", lambda: C.corrupt(X, "gaussian_noise", 1, seed=-1), ("seed=-1",)),
    Bad("corrupt", "pixelate a 1×1 image", lambda: C.corrupt(X[:, :, :1, :1], "pixelate", 5), ("1×1", "2×2")),
    Bad("gaussian_noise", "severity 7", lambda: C.gaussian_noise(X, 7, GEN), ("severity=7", "[1, 5]")),
    Bad("contrast", "severity 0 (read the last level before)", lambda: C.contrast(X, 0), ("severity=0", "[1, 5]")),
    Bad("brightness", "severity -1", lambda: C.brightness(X, -1), ("severity=-1",)),
    Bad("motion_blur", "angles of the wrong length", lambda: C.motion_blur(X, 1, GEN, angles=torch.zeros(3)),
        ("(3,)", "(4,)")),
    Bad("psnr", "images of different shapes", lambda: C.psnr(X, X[:2]), ("(4, 3, 8, 8)", "(2, 3, 8, 8)")),
    Bad("psnr", "a list", lambda: C.psnr([1], X), ("[1]", "Tensor"), raises=(TypeError,)),
    Bad("corrupt_split", "split passed as a name", lambda: C.corrupt_split("digits", "contrast", 1),
        ("'digits'", "DatasetSplit"), raises=(TypeError,)),
    Bad("corrupt_split", "a regression split", lambda: C.corrupt_split(regression_split(), "contrast", 1),
        ("'regression'", "image_classification")),
    Bad("corrupt_split", "unknown corruption", lambda: C.corrupt_split(image_split(), "rain", 1), ("'rain'", "'contrast'")),
    # --- metrics -----------------------------------------------------------------------------------------------
    Bad("task_metrics", "unknown task", lambda: M.task_metrics("classification", LOGITS, Y),
        ("'classification'", "'image_classification'", "'regression'")),
    Bad("task_metrics", "logits and targets of different lengths", lambda: M.task_metrics("image_classification", LOGITS[:4], Y),
        ("(4, 3)", "(5,)")),
    Bad("task_metrics", "tagging targets of a wrong shape", lambda: M.task_metrics("token_tagging", LOGITS, Y[:3]),
        ("(5, 3)", "(3,)")),
    Bad("task_metrics", "outputs None", lambda: M.task_metrics("image_classification", None, Y), ("None",),
        raises=(TypeError,)),
    Bad("task_metrics", "regression with empty inputs", lambda: M.task_metrics("regression", torch.zeros(0), torch.zeros(0)),
        ("empty",)),
    Bad("accuracy", "logits for fewer rows than targets", lambda: M.accuracy(LOGITS[:4], Y), ("(4, 3)", "(5,)")),
    Bad("accuracy", "labels of a different shape", lambda: M.accuracy(torch.tensor([0, 1]), Y), ("(2,)", "(5,)")),
    Bad("accuracy", "empty inputs", lambda: M.accuracy(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long)),
        ("nothing to score", "0 targets")),
    Bad("accuracy", "every target ignored", lambda: M.accuracy(LOGITS, torch.full((5,), -100)), ("ignore_index=-100",)),
    Bad("accuracy", "scores of the targets' shape (not labels)", lambda: M.accuracy(torch.rand(5), Y),
        ("(5,)", "not whole numbers")),
    Bad("accuracy", "soft labels as targets", lambda: M.accuracy(LOGITS, torch.softmax(LOGITS, -1)),
        ("(5, 3)", "not whole numbers")),
    Bad("accuracy", "outputs a string", lambda: M.accuracy("logits", Y), ("'logits'", "Tensor"), raises=(TypeError,)),
    Bad("predicted_labels", "outputs None", lambda: M.predicted_labels(None, Y), ("None", "Tensor"), raises=(TypeError,)),
    Bad("macro_f1", "empty inputs", lambda: M.macro_f1(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long)),
        ("no target",)),
    Bad("macro_f1", "logits for fewer rows than targets", lambda: M.macro_f1(LOGITS[:4], Y), ("(4, 3)", "(5,)")),
    Bad("mean_cross_entropy", "logits for fewer rows", lambda: M.mean_cross_entropy(LOGITS[:4], Y), ("(4, 3)", "(5,)")),
    Bad("mean_cross_entropy", "float targets", lambda: M.mean_cross_entropy(LOGITS, Y.float()), ("torch.float32", "integer"),
        raises=(TypeError,)),
    Bad("mean_cross_entropy", "a label beyond the classes", lambda: M.mean_cross_entropy(LOGITS, torch.tensor([0, 1, 2, 0, 7])),
        ("label 7", "3 classes", "0..2")),
    Bad("mean_cross_entropy", "empty inputs", lambda: M.mean_cross_entropy(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long)),
        ("no target",)),
    Bad("perplexity", "labels instead of logits", lambda: M.perplexity(Y, Y), ("(5,)", "logits [..., classes]")),
    Bad("metrics.regression_metrics", "different lengths", lambda: M.regression_metrics(torch.zeros(3), torch.zeros(4)),
        ("3 values", "4")),
    Bad("metrics.regression_metrics", "empty inputs", lambda: M.regression_metrics(torch.zeros(0), torch.zeros(0)),
        ("empty",)),
    Bad("metrics.regression_metrics", "NaN prediction", lambda: M.regression_metrics(torch.tensor([float("nan")]), torch.zeros(1)),
        ("NaN", "1 in pred")),
    Bad("metrics.regression_metrics", "target_std_dev zero", lambda: M.regression_metrics(torch.zeros(3), torch.zeros(3), 0, 0),
        ("target_std_dev=0", "> 0")),
    Bad("metrics.regression_metrics", "target_mean NaN",
        lambda: M.regression_metrics(torch.zeros(3), torch.zeros(3), float("nan"), 1), ("target_mean=nan",)),
    Bad("corruption_accuracy", "no corruptions", lambda: M.corruption_accuracy(lambda x: x, X, Y, {}), ("empty",)),
    Bad("corruption_accuracy", "predict not callable", lambda: M.corruption_accuracy("model", X, Y, {"c": lambda x: x}),
        ("'model'", "callable"), raises=(TypeError,)),
    Bad("rotate90", "a 1-D tensor", lambda: M.rotate90(torch.zeros(3)), ("(3,)", "[..., H, W]")),
    Bad("rotate90", "k a string", lambda: M.rotate90(X, "1"), ("k='1'", "integer")),
    Bad("rotation_accuracy", "predict None", lambda: M.rotation_accuracy(None, X, Y), ("None", "callable"),
        raises=(TypeError,)),
    # --- stats --------------------------------------------------------------------------------------------------
    Bad("mean_std", "no values", lambda: ST.mean_std([]), ("empty",)),
    Bad("mean_std", "a NaN", lambda: ST.mean_std([1.0, float("nan")]), ("NaN", "[1.0, nan]")),
    Bad("mean_std", "a string", lambda: ST.mean_std("93.1"), ("'93.1'", "numbers"), raises=(TypeError,)),
    Bad("mean_std", "None", lambda: ST.mean_std(None), ("None", "numbers"), raises=(TypeError,)),
    Bad("mean_std", "words in the list", lambda: ST.mean_std([1.0, "high"]), ("'high'",), raises=(TypeError,)),
    Bad("t_confint", "level 0", lambda: ST.t_confint([1, 2, 3], 0), ("level=0", "(0, 1)")),
    Bad("t_confint", "level 1", lambda: ST.t_confint([1, 2, 3], 1.0), ("level=1.0", "(0, 1)")),
    Bad("t_confint", "level given in percent", lambda: ST.t_confint([1, 2, 3], 95), ("level=95", "(0, 1)")),
    Bad("t_confint", "level a string", lambda: ST.t_confint([1, 2, 3], "0.95"), ("'0.95'",), raises=(TypeError,)),
    Bad("t_confint", "an infinite value", lambda: ST.t_confint([1, 2, float("inf")]), ("Inf", "inf")),
    Bad("summarize", "no values", lambda: ST.summarize([]), ("empty",)),
    Bad("summarize", "level NaN", lambda: ST.summarize([1, 2, 3], float("nan")), ("level=nan",)),
    Bad("paired_ttest", "different numbers of runs", lambda: ST.paired_ttest([1, 2, 3], [1, 2]), ("a has 3", "b has 2")),
    Bad("paired_ttest", "one pair", lambda: ST.paired_ttest([1], [2]), ("at least 2 pairs", "got 1")),
    Bad("paired_ttest", "a NaN", lambda: ST.paired_ttest([1, 2, float("nan")], [1, 2, 3]), ("a contains NaN",)),
    Bad("paired_ttest", "level above 1", lambda: ST.paired_ttest([1, 2, 3], [1, 2, 4], 1.5), ("level=1.5", "(0, 1)")),
    Bad("one_sample_ttest", "one value", lambda: ST.one_sample_ttest([1.0], 0.0), ("at least 2 values", "got 1")),
    Bad("one_sample_ttest", "mu0 NaN", lambda: ST.one_sample_ttest([1, 2, 3], float("nan")), ("mu0=nan",)),
    Bad("one_sample_ttest", "mu0 a string", lambda: ST.one_sample_ttest([1, 2, 3], "93"), ("'93'",), raises=(TypeError,)),
    Bad("format_mean_ci", "digits negative", lambda: ST.format_mean_ci(93.0, 0.2, -1), ("digits=-1", "[0, inf)")),
    Bad("format_mean_ci", "mean a string", lambda: ST.format_mean_ci("93", 0.2), ("'93'",), raises=(TypeError,)),
    Bad("summarize_runs", "value column missing", lambda: ST.summarize_runs(RUNS, "accuracy"), ("'accuracy'", "acc")),
    Bad("summarize_runs", "grouping column missing", lambda: ST.summarize_runs(RUNS, "acc", by=("dataset", "algo")),
        ("'algo'", "method")),
    Bad("summarize_runs", "a list instead of a DataFrame", lambda: ST.summarize_runs([1, 2], "acc"), ("[1, 2]", "DataFrame"),
        raises=(TypeError,)),
    Bad("compare_paired", "unknown method", lambda: ST.compare_paired(RUNS, "acc", "ln", "dyt"), ("'dyt'", "'auto'", "'ln'")),
    Bad("compare_paired", "value column missing", lambda: ST.compare_paired(RUNS, "accuracy", "ln", "auto"),
        ("'accuracy'", "acc")),
    Bad("compare_paired", "matching column missing", lambda: ST.compare_paired(RUNS, "acc", "ln", "auto", on="run"),
        ("'run'", "seed")),
    Bad("compare_paired", "method column missing", lambda: ST.compare_paired(RUNS, "acc", "ln", "auto", method_col="algo"),
        ("'algo'", "method")),
    Bad("compare_paired", "several runs per seed",
        lambda: ST.compare_paired(pd.concat([RUNS, RUNS]), "acc", "ln", "auto"), ("'ln'", "several runs per seed")),
    Bad("compare_paired", "fewer than 2 shared seeds",
        lambda: ST.compare_paired(RUNS[RUNS.seed.isin([0]) | (RUNS.method == "ln")], "acc", "ln", "auto"),
        ("share 1 seed", "at least 2")),
]


def _zip(members: dict[str, bytes]) -> bytes:
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, body in members.items():
            z.writestr(name, body)
    return buf.getvalue()


def _cifar10c_damaged():
    "A CIFAR-10-C cache whose extracted .npy members are damaged."
    root = damaged_root("cifar10c", {})
    folder = root / "cifar10c" / "CIFAR-10-C"
    folder.mkdir()
    for member in ("gaussian_noise.npy", "labels.npy"):
        (folder / member).write_bytes(b"\x93NUMPY junk")
    return D.load_dataset("cifar10c", "test", root=root, download=False,
                          manifest=manifest(("cifar10c", "CIFAR-10-C.tar")))


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bad_input(case):
    check(case)
