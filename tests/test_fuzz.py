"""The fuzz table (`tests/fuzz_cases.py`): every row must be answered clearly, and no row may lose data.

The counts before and after the fixes are in `tests/fuzz_results.md`."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_cases  # noqa: E402
from fuzz_cases import CASES, classify  # noqa: E402


@pytest.fixture(autouse=True)
def _in_scratch(monkeypatch):
    "Rows that would write into '.' write into the table's scratch folder (their guards watch it)."
    work = fuzz_cases.ROOT / "cwd"
    work.mkdir(exist_ok=True)
    monkeypatch.chdir(work)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.entry}|{c.what}" for c in CASES])
def test_fuzz_row(case):
    kind, seen = classify(case)
    assert kind != "data-loss", f"{case}: {seen}"
    assert kind == "clear", f"{case}: {kind}: {seen}"


def test_table_is_big_enough():
    assert len(CASES) >= 150
    assert len({str(c) for c in CASES}) == len(CASES), "two rows with the same name"


def test_classifier_can_fail():
    "Negative controls: the classifier tells each kind apart."
    F = fuzz_cases.Fuzz
    target = fuzz_cases.ROOT / "control.txt"
    target.write_text("x")
    assert classify(F("c", "clear", lambda: (_ for _ in ()).throw(ValueError("v=3 not in [1, 2]")), ("v=3",)))[0] == "clear"
    assert classify(F("c", "unnamed", lambda: (_ for _ in ()).throw(ValueError("bad")), ("v=3",)))[0] == "unclear"
    assert classify(F("c", "raw", lambda: [][1]))[0] == "unclear"
    assert classify(F("c", "silent", lambda: None))[0] == "accepted"
    assert classify(F("c", "lost", lambda: target.write_text("y"), guard=target.read_text))[0] == "data-loss"
    os.remove(target)
