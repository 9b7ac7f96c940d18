"""Lessons 3-5 of the course and their checked exercises (`autonorm_explorer.course.exercises_depth`).

For every exercise: the right answer (computed here independently of the grader: closed forms,
exact binomial sums, scipy quadrature, a plain-torch forward pass) passes; wrong answers on either
side get a hint that does not contain the answer; malformed answers get the clear message. Then the
lessons' structure beyond what tests/test_course.py asks of every lesson (annotated parameters, each
reveal using its prediction, a Checks section); that file also runs the lessons under papermill and
resolves their links.
"""
import json, math, re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pytest
import scipy.integrate
import torch
import torch.nn.functional as F

from autonorm_explorer.course.checking import check
from autonorm_explorer.course.exercises_depth import EXERCISES
from autonorm_explorer.rank.propagation import sample_inputs
from autonorm_explorer.rank.resmlp import ResMLPConfig, sample_weights

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "nbs" / "course"
LESSONS = {3: "03_norm_placement.ipynb", 4: "04_mean_spike.ipynb", 5: "05_width_expansion.ipynb"}
torch.set_num_threads(1)


@lru_cache(maxsize=1)
def two_matrix_spike_growth_reference() -> float:
    "spike(256)/spike(64) of the lesson-4 two-matrix network: a plain forward pass, F.layer_norm."
    cfg = ResMLPConfig(width=64, depth=256, placement="pre", branch="two", seed=0)
    w, h = sample_weights(cfg), sample_inputs(256, 64, seed=0)
    d, m, spikes = cfg.width, cfg.hidden, {}
    for l in range(cfg.depth):
        u = F.layer_norm(h, (d,), eps=cfg.eps)
        h = h + torch.relu(u @ w.up[l].T / math.sqrt(d)) @ w.down[l].T / math.sqrt(m)
        spikes[l + 1] = h.mean(0).norm().item()
    return spikes[256] / spikes[64]


def gelu_threshold_reference(q: float) -> float:
    "1 / E[GELU'(√q z)²] by scipy quadrature of the closed-form derivative Φ(x) + x φ(x)."
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    gelu_prime = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2))) + x * phi(x)
    integrand = lambda z: gelu_prime(math.sqrt(q) * z) ** 2 * phi(z)
    p = scipy.integrate.quad(integrand, -math.inf, math.inf)[0]
    return 1 / p


MU, VAR = 1 / math.sqrt(2 * math.pi), 0.5 - 1 / (2 * math.pi)          # E[ReLU(z)], Var ReLU(z)
RIGHT = {   # the answers a learner derives in the lessons, computed without the graders' code
    "L3.1": math.sqrt(0.5) / math.sqrt(1 + 0.5 * 63),
    "L3.2": 0.5 / math.sqrt(1 + 0.25 * 99),
    "L3.3": 100,
    "L3.4": "a",
    "L4.1": 100 * MU * 8,
    "L4.2": 64**2 * MU**2 / (64**2 * MU**2 + 1 + 64 * VAR),
    "L4.3": "tanh",
    "L4.4": two_matrix_spike_growth_reference,
    "L5.1": float(Fraction(sum(math.comb(140, k) for k in range(64, 141)), 2**140)),
    "L5.2": (1 - math.sqrt(1 / 3)) / (1 + math.sqrt(1 / 3)),
    "L5.3": lambda: gelu_threshold_reference(0.5),
    "L5.4": 1.0,
}
CHOICES = {"L3.4": ("a", "b", "c"), "L4.3": ("relu", "gelu", "tanh", "silu")}
UNIT_INTERVAL = {"L4.2", "L5.1", "L5.4"}
WRONG_NUMBERS = {"L5.4": (0.5, 0.9), "L4.2": (0.5, 0.99), "L5.1": (0.43, 0.95), "L3.3": (50, 200),
                 "L4.4": (1.0, 3.0)}
# L4.4 (truth ≈ 2.5 at seed 0; 2.1-2.5 on seeds 0-2): fixed answers, well outside the 10% band on
# either side, so that 2 × truth never lands on the "aligned means" 4 the grader names as a slip.


def right_answer(eid):
    a = RIGHT[eid]
    return a() if callable(a) else a


def wrong_answers(eid):
    "Wrong answers on both sides of the truth (every other option for a choice)."
    truth = right_answer(eid)
    if eid in CHOICES: return [c for c in CHOICES[eid] if c != truth]
    return list(WRONG_NUMBERS.get(eid, (0.5 * truth, 2.0 * truth)))


def renderings(truth) -> list[str]:
    "The ways a hint could give the answer away."
    if isinstance(truth, str): return [truth]
    out = {f"{truth:.2f}", f"{truth:.3f}", f"{truth:.3g}", f"{truth:.2g}"}
    if float(truth).is_integer(): out.add(str(int(truth)))
    return sorted(out)


def test_every_exercise_is_covered():
    assert sorted(e.id for e in EXERCISES) == sorted(RIGHT)


@pytest.mark.parametrize("eid", sorted(RIGHT))
def test_right_answer_passes(eid, capsys):
    assert check(eid, right_answer(eid)), capsys.readouterr().out
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("eid", sorted(RIGHT))
def test_wrong_answer_gets_a_hint_without_the_answer(eid, capsys):
    ex = {e.id: e for e in EXERCISES}[eid]
    truth = right_answer(eid)
    for wrong in wrong_answers(eid):
        hint = ex.grade(wrong)
        assert isinstance(hint, str) and len(hint) > 10, (wrong, hint)
        for text in renderings(truth):
            word = re.escape(text)
            pattern = rf"\b{word}\b" if isinstance(truth, str) else rf"(?<![\d.]){word}(?!\d)"
            assert not re.search(pattern, hint, re.IGNORECASE), \
                f"{eid}: hint for {wrong!r} gives {text!r}: {hint}"
        assert not check(eid, wrong)
        assert "✗ not yet" in capsys.readouterr().out
    if eid not in CHOICES and eid != "L5.4":      # the hint says on which side (L5.4 has no high side)
        low, high = sorted(wrong_answers(eid))
        assert re.search(r"too (low|few)", ex.grade(low)), ex.grade(low)
        assert re.search(r"too (high|many)", ex.grade(high)), ex.grade(high)


@pytest.mark.parametrize("eid", sorted(RIGHT))
def test_malformed_answer_gets_the_clear_message(eid, capsys):
    ex = {e.id: e for e in EXERCISES}[eid]
    bad = [None, 3.5, ["a"]] if eid in CHOICES else ["0.5", None, True, float("nan")]
    if eid in UNIT_INTERVAL: bad.append(1.5)
    if eid == "L3.3": bad.append(99.5)
    for answer in bad:
        with pytest.raises((TypeError, ValueError)):
            ex.grade(answer)
        assert not check(eid, answer)
        out = capsys.readouterr().out
        assert f"malformed answer: expected {ex.expects}" in out and repr(answer) in out, out


def test_unit_interval_message_names_value_and_range():
    ex = {e.id: e for e in EXERCISES}["L4.2"]
    with pytest.raises(ValueError, match=r"\[0, 1\], got 1\.5"):
        ex.grade(1.5)


# ----- the lessons themselves

def cells(lesson: int) -> list[dict]:
    return json.loads((COURSE / LESSONS[lesson]).read_text())["cells"]


def tagged(cs, tag): return [i for i, c in enumerate(cs) if tag in c["metadata"].get("tags", [])]


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_lesson_has_the_tagged_cells(lesson):
    cs = cells(lesson)
    assert len(tagged(cs, "parameters")) == 1
    params = "".join(cs[tagged(cs, "parameters")[0]]["source"])
    for line in params.strip().splitlines():             # every parameter annotated and explained
        assert re.match(r"\w+: \w+ = .+  # \S", line), line
    predicts, reveals = tagged(cs, "predict"), tagged(cs, "reveal")
    assert len(predicts) >= 2 and len(predicts) == len(reveals)
    for p, r in zip(predicts, reveals):
        guess = re.search(r"^(\w+) = None", "".join(cs[p]["source"]), re.M).group(1)
        reveal_src = "".join(cs[r]["source"])
        assert r == p + 1 and "reveal(" in reveal_src and guess in reveal_src
    exercises = tagged(cs, "exercise")
    assert len(exercises) >= 3
    for i in exercises:
        src = "".join(cs[i]["source"])
        eid = re.search(r'check\("(L\d+\.\d+)"', src).group(1)
        assert eid.startswith(f"L{lesson}.") and eid in RIGHT
        sol = cs[i + 1]
        assert "solution" in sol["metadata"].get("tags", []), f"no solution after {eid}"
        assert sol["metadata"].get("jupyter") == {"source_hidden": True, "outputs_hidden": True}
        assert f'check("{eid}"' in "".join(sol["source"])
    text = "\n".join("".join(c["source"]) for c in cs if c["cell_type"] == "markdown")
    for heading in ("**You will learn**", "**You need**", "## What you learned", "**Next:**",
                    "## Checks"):
        assert heading in text, heading
