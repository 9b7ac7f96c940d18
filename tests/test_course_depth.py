"""Lessons 3-5 of the course and their checked exercises and recap questions
(`autonorm_explorer.course.exercises_depth`).

For every id: the right answer (computed here independently of the grader: closed forms, exact
binomial sums, scipy quadrature, plain-torch forward passes with their own weights) passes; every
slip the grader names gets that slip's hint; a wrong answer on either side gets a hint that says which
side and why, never a bare "too low"; no hint contains the answer; malformed answers get the clear
message. Then the numbers the lessons' corrected statements rest on, recomputed the same independent
way. tests/test_course.py checks the frame of every lesson (predictions before their answers, recaps,
references, line lengths) and runs them under papermill.
"""
import math, re
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
import scipy.integrate
import scipy.optimize
import scipy.stats
import torch
import torch.nn.functional as F

from autonorm_explorer.course.checking import check
from autonorm_explorer.course.exercises_depth import EXERCISES, RECAP
from autonorm_explorer.rank.propagation import sample_inputs
from autonorm_explorer.rank.resmlp import ResMLPConfig, sample_weights

torch.set_num_threads(1)
BY_ID = {e.id: e for e in EXERCISES + RECAP}


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


def pre_norm_run(branch, activation, beta, depth, d=64, n=64, seed=0, m=256):
    "Pre-Norm forward pass with weights drawn here: per block ρ_ℓ (mean over inputs), and the streams."
    g = torch.Generator().manual_seed(1000 + seed)
    act = {"relu": torch.relu, "gelu": F.gelu}[activation]
    h = torch.randn(n, d, generator=g, dtype=torch.float64)
    h = h * math.sqrt(d) / h.norm(dim=1, keepdim=True)
    rhos, shares = [], []
    for _ in range(depth):
        u = F.layer_norm(h, (d,), eps=1e-6)
        if branch == "single":
            f = act(u @ torch.randn(d, d, generator=g, dtype=torch.float64).T / math.sqrt(d))
        else:
            up = torch.randn(m, d, generator=g, dtype=torch.float64) / math.sqrt(d)
            down = torch.randn(d, m, generator=g, dtype=torch.float64) / math.sqrt(m)
            f = act(u @ up.T) @ down.T
        rhos.append(float((beta * f.norm(dim=1) / h.norm(dim=1)).mean()))
        h = h + beta * f
        sv = torch.linalg.svdvals(h)
        shares.append(float(sv[0] ** 2 / (sv ** 2).sum()))
    return np.array(rhos), np.array(shares)


def gaussian_mean(f):
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    return scipy.integrate.quad(lambda z: f(z) * phi(z), -math.inf, math.inf, limit=200)[0]


Phi = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))
phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
gelu = lambda x: x * Phi(x)
dgelu = lambda x: Phi(x) + x * phi(x)


def gelu_threshold_reference(q: float) -> float:
    "1 / E[GELU'(√q z)²] by scipy quadrature of the closed-form derivative Φ(x) + x φ(x)."
    return 1 / gaussian_mean(lambda z: dgelu(math.sqrt(q) * z) ** 2)


MU, VAR = 1 / math.sqrt(2 * math.pi), 0.5 - 1 / (2 * math.pi)          # E[ReLU(z)], Var ReLU(z)
C = math.sqrt(0.5)
GELU_C2 = gaussian_mean(lambda z: gelu(z) ** 2)
GELU_MEAN = gaussian_mean(gelu)


def single_ratio(mu, var, l, beta=1.0):
    n = l - 1
    return beta * math.sqrt(var + mu * mu) / math.sqrt(1 + beta ** 2 * (n * var + n * n * mu * mu))


def exact_width_for(d, prob):
    m = d
    while scipy.stats.binom.sf(d - 1, m, 0.5) < prob: m += 1
    return m / d


def normal_width(d, z, sd=0.5):
    x = (2 * sd * z + math.sqrt((2 * sd * z) ** 2 + 8 * d)) / 2
    return x * x / d


Z90 = scipy.stats.norm.ppf(0.9)
# id -> (right answer, {slip: a word its hint must contain}, (wrong low, wrong high) or None).
CASES = {
    "L3.1": (C / math.sqrt(1 + 0.5 * 63), {C: "first block", C / (1 + 0.5 * 63): "square root",
                                            0.5 / math.sqrt(1 + 0.5 * 63): "c = √(c²)"},
             (0.06, 0.3)),
    "L3.2": (0.5 / math.sqrt(1 + 0.25 * 99), {0.5: "first block", 0.5 / math.sqrt(50.5): "squared"},
             (0.04, 0.2)),
    "L3.3": (100, {8: "not 1/ℓ", 14: "square root"}, (50, 200)),
    "L3.4": ("a", {"b": "forward pass", "c": "backward pass"}, None),
    "L3.5": (GELU_C2, {0.5: "ReLU's", GELU_MEAN ** 2: "squared mean",
                       GELU_C2 - GELU_MEAN ** 2: "variance",
                       gaussian_mean(lambda z: dgelu(z) ** 2): "derivative's energy",
                       math.sqrt(GELU_C2): "that is c"}, (0.2, 0.7)),
    "L4.1": (100 * MU * 8, {10 * 8 * MU: "random walk", 100 * 0.5 * 8: "E[ReLU(z)²]",
                            100 * 64 * MU: "μ_σ√d"}, (150, 500)),
    "L4.2": (64 ** 2 * MU ** 2 / (64 ** 2 * MU ** 2 + 1 + 64 * VAR),
             {64 ** 2 * MU ** 2 / (64 ** 2 * MU ** 2 + 1 + 64 ** 2 * VAR): "random walk"},
             (0.5, 0.995)),
    "L4.3": (single_ratio(MU, VAR, 64), {C / math.sqrt(1 + 0.5 * 63): "two-matrix", C: "first block",
                                          C / math.sqrt(1 + 63 * VAR + 63 ** 2 * MU): "squared"},
             (0.005, 0.06)),
    "L4.4": (two_matrix_spike_growth_reference, {4.0: "aligned", 2.0: "random walk"}, (1.0, 3.2)),
    "L5.1": (float(Fraction(sum(math.comb(140, k) for k in range(64, 141)), 2 ** 140)),
             {0.5: "m = 2d exactly", float(scipy.stats.binom.sf(64, 140, 0.5)): "P(|S| > 64)"},
             (0.3, 0.99)),
    "L5.2": (exact_width_for(1024, 0.9), {2.0: "about half", normal_width(1024, Z90, sd=1.0): "√m/2",
                                          normal_width(1024, 1.645): "95%"}, (1.9, 2.3)),
    "L5.3": ((1 - math.sqrt(1 / 3)) / (1 + math.sqrt(1 / 3)),
             {(1 - math.sqrt(1 / 6)) / (1 + math.sqrt(1 / 6)): "active rows",
              ((1 - math.sqrt(1 / 3)) / (1 + math.sqrt(1 / 3))) ** 2: "squared edges"}, (0.1, 0.5)),
    "L5.4": (2 / (1 + 0.2 ** 2), {2.0: "negative side", 2 / 1.2: "squared",
                                  1 / 1.04: "half of the pre-activations"}, (1.2, 2.5)),
    "L3.Q1": (-0.5, {-1: "exponent of ρ_ℓ²", 0: "Post-Norm"}, (-2, 0.5)),
    "L3.Q2": (C, {1: "Output-Norm", 0.5: "c²"}, (0.3, 1.5)),
    "L3.Q3": (math.log(128), {254 * math.log(1.5): "telescopes", math.log10(128): "natural log",
                              128: "its logarithm"}, (2, 8)),
    "L3.Q4": (2, {1: "RMSNorm", 0: "rank-one"}, None),
    "L3.Q5": (4, {32: "not d", 16: "squared norm", 8: "scaled by β"}, (1, 6)),
    "L3.Q6": (math.log(1.49), {0.49: "small-ρ", 0.7: "second order", math.log10(1.49): "natural log"},
              (0.2, 0.6)),
    "L4.Q1": (MU, {0.5: "second moment", 2 * MU: "E|z|", 0: "positive"}, (0.2, 0.7)),
    "L4.Q2": (1, {0.5: "random walk"}, (0.2, 2)),
    "L4.Q3": (0.5, {1: "aligned"}, (0.2, 2)),
    "L4.Q4": (50 * MU * 10, {math.sqrt(50) * MU * 10: "√ℓ growth", 50 * 0.5 * 10: "E[ReLU(z)²]",
                             50 * MU * 100: "μ_σ√d"}, (100, 300)),
    "L4.Q5": ("uncentered", {"centered": "mean row"}, None),
    "L4.Q6": (0.0, {0.5: "odd"}, (-0.5, 0.2)),
    "L4.Q7": (1 / (0.1 * MU), {1 / MU: "ℓ = 1/(βμ_σ)", 1 / (0.01 * MU): "β enters once"}, (10, 60)),
    "L5.Q1": (0.5, {1: "negative half", 0.25: "P(z > 0)"}, (0.1, 0.8)),
    "L5.Q2": (2, {4: "conditioning", 0.5: "threshold is 1/p"}, (1, 3)),
    "L5.Q3": (256, {512: "switches off", 128: "once"}, (200, 300)),
    "L5.Q4": (1 / 3, {1 / 9: "squared edges", 0.5: "√λ",
                      (1 - math.sqrt(0.5)) / (1 + math.sqrt(0.5)): "that is 4×"}, (0.05, 0.6)),
    "L5.Q5": (lambda: gelu_threshold_reference(1.0), {2: "ReLU's", 1: "σ' ≠ 0",
                                                      1 / 0.5484: "another reading"}, (1.5, 3)),
    "L5.Q6": (1.0, {0.75: "active units"}, None),
    "L5.Q7": (2, {lambda: gelu_threshold_reference(4.0): "scale-free", 0.5: "threshold is 1/p"},
              (1, 3)),
}
CHOICES = {"L3.4": ("a", "b", "c"), "L4.Q5": ("centered", "uncentered")}
UNIT_INTERVAL = {"L4.2", "L5.1", "L5.Q6"}
INTEGER = {"L3.3", "L3.Q4"}


def value(x):
    return x() if callable(x) else x


def renderings(truth) -> list[str]:
    "The ways a hint could give the answer away."
    if isinstance(truth, str): return [truth]
    out = {f"{truth:.2f}", f"{truth:.3f}", f"{truth:.3g}"}
    if abs(truth) >= 0.1: out.add(f"{truth:.2g}")
    if float(truth).is_integer(): out.add(str(int(truth)))
    return sorted(out)


def gives_away(truth, hint):
    for text in renderings(truth):
        word = re.escape(text)
        pattern = rf"\b{word}\b" if isinstance(truth, str) else rf"(?<![\d.]){word}(?![\d])"
        if re.search(pattern, hint, re.IGNORECASE): return text
    return None


def test_every_exercise_and_recap_question_is_covered():
    assert sorted(BY_ID) == sorted(CASES)


@pytest.mark.parametrize("eid", sorted(CASES))
def test_right_answer_passes(eid, capsys):
    assert check(eid, value(CASES[eid][0])), capsys.readouterr().out
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("eid", sorted(CASES))
def test_each_named_slip_gets_its_own_hint(eid, capsys):
    truth, slips, _ = CASES[eid]
    truth = value(truth)
    assert slips, f"{eid}: every checker names at least one likely slip"
    for slip, word in slips.items():
        hint = BY_ID[eid].grade(value(slip))
        assert isinstance(hint, str) and word in hint, f"{eid}: slip {value(slip)!r} → {hint!r}"
        assert not gives_away(truth, hint), f"{eid}: the hint gives the answer away: {hint}"
        assert not check(eid, value(slip))
        assert "✗ not yet" in capsys.readouterr().out


@pytest.mark.parametrize("eid", sorted(e for e in CASES if CASES[e][2]))
def test_other_wrong_answers_are_told_the_side_and_why(eid):
    truth, _, (low, high) = CASES[eid]
    for wrong, side in ((low, r"too (low|few)"), (high, r"too (high|many)")):
        hint = BY_ID[eid].grade(wrong)
        assert re.search(side, hint), f"{eid}: {wrong} → {hint}"
        assert len(hint.split(":", 1)[-1].split()) >= 4, f"{eid}: a bare hint: {hint!r}"
        assert not gives_away(value(truth), hint), f"{eid}: the hint gives the answer away: {hint}"


def test_a_checker_without_side_hints_is_a_choice_or_bounded():
    "The ids without (low, high) wrong answers: choices, and answers at the edge of their range."
    assert {e for e in CASES if not CASES[e][2]} == {"L3.4", "L4.Q5", "L3.Q4", "L5.Q6"}
    assert re.search("too low", BY_ID["L5.Q6"].grade(0.5)) and BY_ID["L3.Q4"].grade(3)


@pytest.mark.parametrize("eid", sorted(CASES))
def test_malformed_answer_gets_the_clear_message(eid, capsys):
    ex = BY_ID[eid]
    bad = [None, 3.5, ["a"]] if eid in CHOICES else ["0.5", None, True, float("nan")]
    if eid in UNIT_INTERVAL: bad.append(1.5)
    if eid in INTEGER: bad.append(99.5)
    for answer in bad:
        with pytest.raises((TypeError, ValueError)):
            ex.grade(answer)
        assert not check(eid, answer)
        out = capsys.readouterr().out
        assert f"malformed answer: expected {ex.expects}" in out and repr(answer) in out, out


def test_unit_interval_message_names_value_and_range():
    with pytest.raises(ValueError, match=r"\[0, 1\], got 1\.5"):
        BY_ID["L4.2"].grade(1.5)


# ----- the numbers behind the lessons' corrected statements, recomputed here

def test_a_plain_forward_pass_confirms_the_one_matrix_ratio_and_the_gelu_c2():
    "L4.3's closed form and L3.5's c² against Pre-Norm networks whose weights are drawn here."
    single = np.mean([pre_norm_run("single", "relu", 1.0, 64, seed=s)[0][63] for s in range(4)])
    assert abs(single / CASES["L4.3"][0] - 1) < 0.05, single
    two = np.mean([pre_norm_run("two", "gelu", 1.0, 4, seed=s)[0][0] for s in range(4)])
    assert abs(two - math.sqrt(GELU_C2)) < 0.03, two                  # ρ_1 = βc


def test_the_spike_share_barely_moves_at_beta_03_but_drops_at_01():
    "Lesson 4's corrected statement, on networks drawn here (n = 256 inputs, d = 64, ℓ = 64)."
    share = {b: pre_norm_run("single", "relu", b, 64, n=256)[1][63] for b in (1.0, 0.3, 0.1)}
    formula = {b: b * b * 64 ** 2 * MU ** 2 / (b * b * 64 ** 2 * MU ** 2 + 1 + b * b * 64 * VAR)
               for b in share}
    for b in share: assert abs(share[b] - formula[b]) < 0.03, (b, share[b], formula[b])
    assert share[1.0] - share[0.3] < 0.03 and share[1.0] - share[0.1] > 0.08, share


def test_gelu_threshold_falls_below_relu_for_large_q_and_returns_from_below():
    "Lesson 5's corrected statement, by quadrature of GELU's closed-form derivative."
    assert abs(gelu_threshold_reference(1.0) - 2.1937) < 1e-3
    q_cross = scipy.optimize.brentq(lambda q: gelu_threshold_reference(q) - 2, 1.5, 6)
    assert 2.8 < q_cross < 2.95, q_cross
    assert gelu_threshold_reference(4.0) < 2 < gelu_threshold_reference(2.0)
    assert gelu_threshold_reference(10.0) < gelu_threshold_reference(100.0) < 2
    kappa = (scipy.integrate.quad(lambda x: dgelu(x) ** 2, -math.inf, 0)[0]
             + scipy.integrate.quad(lambda x: dgelu(x) ** 2 - 1, 0, math.inf)[0])
    assert abs(kappa - 0.141) < 1e-3
    assert abs(gelu_threshold_reference(400.0) - (2 - 4 * kappa / math.sqrt(2 * math.pi * 400))) < 2e-3


def test_the_rank_clock_and_lrho2_per_block_costs():
    "Lessons 2-3: log(1 + ρ²) ≈ ρ² for small ρ; at ρ = 0.7, 0.40 against 0.49."
    assert abs(math.log1p(0.01) / 0.01 - 1) < 0.01
    assert round(math.log1p(0.49), 2) == 0.40 and 0.49 / math.log1p(0.49) > 1.2
