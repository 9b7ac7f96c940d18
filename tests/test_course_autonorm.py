"""Course lessons 6–10: every exercise and recap grader accepts the right answer (computed here, from
closed forms, scipy or sampling, never from the graders' module), names the likely slips without
giving the answer away, and answers a malformed answer with the expected form; the lessons keep the
second edition's frame (predictions before the text that answers them, numbered exercises and recap
questions, a collapsed Checks section, references last); and `progress()` counts what a learner did.
tests/test_course.py checks the frame every lesson shares; tests/test_course_sources.py the sources."""
import contextlib, io, json, math, os, re
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import expit

from autonorm_explorer.course import checking
from autonorm_explorer.course.checking import check, get_exercise, load_exercises, lesson_of
from autonorm_explorer.rank.propagation import rank_profile
from autonorm_explorer.rank.resmlp import ResMLPConfig

from test_course import COURSE, cells, source, tags

MINE = [COURSE / f"{n}.ipynb" for n in ("06_trainability", "07_normalization_layers", "08_autonorm",
                                         "09_autonorm_s", "10_norms_and_rank")]


def _h(p):            # two-choice entropy in nats, written out here (not the package's)
    return -(p * math.log(p) + (1 - p) * math.log(1 - p))


def _gate_at_tau(h, tau):
    p = brentq(lambda q: _h(q) - h, 0.5, 1 - 1e-15)
    return 1 / (1 + ((1 - p) / p) ** (1 / tau))           # softmax of (log p, log(1 − p)) / τ


def _post_norm_erank(depth):
    cfg = ResMLPConfig(width=64, depth=depth, beta=1.0, placement="post", branch="two", seed=0)
    return float(rank_profile(cfg, n_jacobian_inputs=1).jacobian_erank.iloc[-1])


_dens = lambda l: expit(l) * (1 - expit(l))                # logistic density
_mean_w = lambda gap, tau: quad(lambda l: expit((gap + l) / tau) * _dens(l), -60, 60, limit=400)[0]
_mean_g = lambda gap, tau: quad(lambda l: _dens((gap + l) / tau) / tau * _dens(l), -60, 60, limit=400)[0]
_t30 = math.radians(30)
_sech = lambda x: 2 * math.exp(-abs(x)) / (1 + math.exp(-2 * abs(x)))
_sech4 = lambda v, a: quad(lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
                           * _sech(a * math.sqrt(v) * z) ** 4, -40, 40, points=[0])[0]

# id -> (right answer, {slip answer: a word its hint must contain}, a malformed answer).
# Right answers and slips are computed here.
EXERCISES = {
    "L6.1": (2 * 100 * (0.75 / (2 * math.sqrt(100))) ** 2,
             {100 * (0.75 / 20) ** 2: "two residual additions", 200 * 0.5625 / math.sqrt(200): "α only",
              200 * 0.5625 / math.sqrt(800): "β only", 112.5: "plain Post-Norm"}, "0.28"),
    "L6.2": ((math.cos(_t30) - math.sin(_t30)) / (math.cos(_t30) + math.sin(_t30)),
             {1.0: "parameter axes", 0.01: "gradient descent", math.tan(_t30): "tan θ"}, [0.27]),
    "L6.3": (lambda: round(_post_norm_erank(48), 2),
             {lambda: round(_post_norm_erank(24), 3): "two residual additions",
              lambda: round(_post_norm_erank(12), 3): "BERT-base"}, "0.12"),
    "L7.1": (3 / math.sqrt(3.5), {3 / math.sqrt(14 / 3): "biased", 3.0: "centred",
                                  6 / math.sqrt(12.5): "RMSNorm"}, [1.6]),
    "L7.2": (0.25, {4.0: "σ itself", 2.0: "√σ"}, "1/4"),
    "L7.3": (1 / math.sqrt(20), {0.25: "LayerNorm's slope", 0.5: "1/μ", 1 / 20: "1/RMS²",
                                 1 / 6: "adds squares"}, "0.22"),
    "L7.4": (0.7 * 3, {3.0: "plain normalized", 1.3 * 3: "shrinks", 0.7: "factor"}, None),
    "L8.1": (_h(0.85), {_h(0.85) / math.log(2): "bits", -0.85 * math.log(0.85): "first term"}, "0.42"),
    "L8.2": (lambda: _gate_at_tau(0.2, 0.5), {lambda: _gate_at_tau(0.2, 1.0): "π itself",
                                               lambda: _gate_at_tau(0.2, 2.0): "multiplied"}, float("nan")),
    "L8.3": (math.e / (math.e + 2), {1 / 3: "uniform", expit(1.0): "three terms"}, "e/(e+2)"),
    "L8.4": (expit(0.6) * (1 - expit(0.6)) / 0.5,
             {0.0: "no gradient of its own", expit(0.6) * (1 - expit(0.6)): "1/τ",
              expit(1.2) * (1 - expit(1.2)): "hard gate's mean", 1.0: "forward value"}, True),
    "L8.5": (lambda: _mean_g(1.0, 1.0), {expit(1.0) * (1 - expit(1.0)): "τ → 0 limit", 0.25: "one sample"},
             "0.15"),
    "L9.1": (math.floor(5 * math.log(0.1 / math.log(2)) / math.log(0.05 / math.log(2))),
             {4: "already below", 5: "within 5 epochs", 10: "paper looks"}, 3.5),
    "L9.2": (0.45 + 0.24 * math.exp(-10 / 3), {0.45: "plateau", 0.1: "paper's ε_H", 0.3: "raise"}, "0.46"),
    "L9.3": (lambda: _mean_w(2.0, 0.5), {expit(4.0): "drop_noise=True", expit(2.0): "π"}, "0.85"),
    "L9.4": ("outcome", {"mechanism": "explains why"}, 1),
    "L10.1": (0.8 * math.sqrt(0.5), {math.sqrt(0.5): "Pre-LN's first ratio", 0.5 * math.sqrt(0.5): "α = 0.5",
                                     0.64 * math.sqrt(0.5): "homogeneous", 0.8: "c = √(1/2)"}, "0.57"),
    "L10.2": (math.log(1 / (0.64 * 0.1)) / math.log(1 + 0.32),
              {math.log(15.625) / 0.32: "too rough", math.log(15.625) / math.log(1 + 0.8 * math.sqrt(0.5)):
               "not (1 + ρ)", math.log(10) / math.log(1.32): "v = 1/α²"}, "10"),
    "L10.3": ((4 * 0.8 / 3) / math.sqrt(200 * math.pi), {0.01: "Pre-LN's gain", 0.64: "at h = 0",
                                                 (4 / 3) / math.sqrt(200 * math.pi): "one factor α"}, "0.04"),
    "L10.4": (lambda: brentq(lambda v: (4 * 0.8 / 3) / math.sqrt(2 * math.pi * v) - 1 / v, 0.5, 100),
              {(3 * math.sqrt(2 * math.pi) / 2) ** 2: "α = 0.5", 3 * math.sqrt(2 * math.pi) / 3.2: "√v"}, "5.5"),
}
def _study_accuracy(regime: str) -> float:
    "Mean test accuracy (%) of one regime of the committed study's grid, read from its CSV with pandas."
    import pandas as pd
    t = pd.read_csv(Path(__file__).resolve().parents[1] / "results" / "trainability" / "trainability.csv")
    g = t[t.sweep == "grid"]
    return 100 * g[g.init_jacobian_erank < 0.1 if regime == "collapsed" else g.init_jacobian_erank >= 0.1
                   ].final_test_accuracy.mean()


# id -> (right answer, a wrong answer whose hint must not give the right one away, a malformed answer)
RECAP = {
    "L6.Q1": ("input-output Jacobian", "weight", 3), "L6.Q2": (0.1, 0.5, "0.1"),
    "L6.Q3": (lambda: round(_study_accuracy("plateau") - _study_accuracy("collapsed")),
              lambda: round(_study_accuracy("plateau")), "41"),
    "L6.Q4": ("parameter coordinates", "singular", None), "L6.Q5": ("the skip", "branch", 1),
    "L6.Q6": (12, 6, 12.5),
    "L7.Q1": (-1 / 2, 0.0, "-0.5"), "L7.Q2": (0.5, 1.0, "a half"), "L7.Q3": (math.sqrt(16), math.sqrt(17), None),
    "L7.Q4": ("DyT", "LayerNorm", 4), "L7.Q5": ("the gradient", "the mean", 5), "L7.Q6": ("affine", "mean", 6),
    "L8.Q1": (-math.log(-math.log(math.exp(-1))), 1.0, "0"), "L8.Q2": ("logistic", "Gumbel", 2),
    "L8.Q3": (0.75, 0.5, "3/4"), "L8.Q4": (0.5, 1.0, "0.5"), "L8.Q5": (0.0, 0.25, "zero"),
    "L8.Q6": ("selector entropy", "mean sample entropy", "entropy"), "L8.Q7": (expit(2.0), expit(1.0), "0.88"),
    "L9.Q1": (10, 5, 10.5), "L9.Q2": (0.1, math.log(2), "0.1"), "L9.Q3": ("backbone", "selectors", 3),
    "L9.Q4": ("keep training", "freeze", 0), "L9.Q5": ("unfrozen AutoNorm", "FrozenLN", 5),
    "L9.Q6": (expit(4.0), expit(2.0), "0.98"),
    "L10.Q1": (0.5, 1.0, "0.5"), "L10.Q2": ("no norm", "pre norm", 2), "L10.Q3": (-0.5, -1.0, "-1/2"),
    "L10.Q4": (-1.0, -0.5, "-1"), "L10.Q5": (1e-4, 1e4, "1e-4"), "L10.Q6": (0.5, 0.0, "√L"),
}


def _value(x):
    return x() if callable(x) else x


def _graded(ex_id, answer):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf): ok = check(ex_id, answer, solution=True)
    return ok, buf.getvalue()


def _spellings(right):
    if isinstance(right, str): return [right]
    out = {f"{right:.{n}f}" for n in (2, 3, 4)}
    return sorted(out | ({str(int(right))} if float(right).is_integer() else set()))


def test_every_exercise_and_recap_question_of_lessons_6_to_10_is_tested_here():
    mine = {i for i in load_exercises() if 6 <= lesson_of(i) <= 10}
    assert mine == set(EXERCISES) | set(RECAP)


@pytest.mark.parametrize("ex_id", sorted(EXERCISES, key=lambda i: (lesson_of(i), i)))
def test_exercise_right_slips_and_malformed(ex_id):
    right, slips, malformed = EXERCISES[ex_id]
    right = _value(right)
    ok, out = _graded(ex_id, right)
    assert ok and out.startswith(f"✓ {ex_id}"), (ex_id, out)
    for slip, word in slips.items():
        slip = _value(slip)
        hint = get_exercise(ex_id).grade(slip)
        assert hint and word in hint, (ex_id, slip, hint)
        assert not any(s in hint for s in _spellings(right)), (ex_id, hint)
    ok, out = _graded(ex_id, malformed)
    assert not ok and "malformed answer" in out and get_exercise(ex_id).expects in out, (ex_id, out)


@pytest.mark.parametrize("ex_id", sorted(RECAP, key=lambda i: (lesson_of(i), i)))
def test_recap_right_wrong_and_malformed(ex_id):
    right, wrong, malformed = (_value(x) for x in RECAP[ex_id])
    assert _graded(ex_id, right)[0], ex_id
    ok, out = _graded(ex_id, wrong)
    assert not ok and out.startswith("✗ not yet: "), (ex_id, out)
    assert not any(s in out for s in _spellings(right)), (ex_id, out)
    ok, out = _graded(ex_id, malformed)
    assert not ok and "malformed answer" in out, (ex_id, out)


def test_the_independent_answers_are_the_lessons_closed_forms():
    "A check on the test's own oracles: sampling agrees with the integrals and the limits."
    g = np.random.default_rng(0)
    L = np.log(u := g.random(400_000)) - np.log1p(-u)       # logistic samples
    assert abs(expit((2 + L) / 0.5).mean() - _mean_w(2.0, 0.5)) < 3e-3
    w = expit(1 + L)
    assert abs((w * (1 - w)).mean() - _mean_g(1.0, 1.0)) < 3e-3
    assert abs(_mean_g(1.0, 0.02) - expit(1) * (1 - expit(1))) < 3e-3          # τ → 0: π(1 − π)
    assert abs(0.64 * _sech4(100, 0.8) - (4 * 0.8 / 3) / math.sqrt(200 * math.pi)) < 1e-3


# ---------------------------------------------------------------- the frame of lessons 6–10

def _ids(lesson, tag):
    return [i for c in cells(lesson) if tag in tags(c)
            for i in re.findall(r'check\(\s*"(L\d+\.Q?\d+)"', source(c))]


def _predictions(lesson):
    "[(index of the predict cell, the id of the reveal that answers it)]."
    cs, out = cells(lesson), []
    for i, c in enumerate(cs):
        if "predict" in tags(c):
            nxt = next(j for j in range(i + 1, len(cs)) if "reveal" in tags(cs[j]))
            out.append((i, re.search(r'reveal\(\s*"(P\d+\.\d+)"', source(cs[nxt])).group(1)))
    return out


@pytest.mark.parametrize("lesson", MINE, ids=lambda p: p.stem)
def test_predictions_exercises_and_recaps_are_numbered_in_order(lesson):
    n = int(lesson.stem[:2])
    preds = [p for _, p in _predictions(lesson)]
    assert len(preds) >= 3 and preds == [f"P{n}.{k}" for k in range(1, len(preds) + 1)], preds
    ex, rc = _ids(lesson, "exercise"), _ids(lesson, "recap")
    assert ex == [f"L{n}.{k}" for k in range(1, len(ex) + 1)] and len(ex) >= 3, ex
    assert rc == [f"L{n}.Q{k}" for k in range(1, len(rc) + 1)] and 5 <= len(rc) <= 8, rc
    cs = cells(lesson)
    first_recap = min(i for i, c in enumerate(cs) if "recap" in tags(c))
    last_exercise = max(i for i, c in enumerate(cs) if "exercise" in tags(c))
    learned = min(i for i, c in enumerate(cs) if "## What you learned" in source(c))
    assert last_exercise < first_recap < learned
    for c in cs:
        if "recap" in tags(c): assert c["cell_type"] == "code" and "answer = None" in source(c)


# For each prediction, phrases of the text that answers it. None may be on the page before the
# learner commits to a guess (the "You will learn" list included); one must follow it.
ANSWERS = {
    "P6.1": [r"diagonal in the\s+parameter coordinates", r"\(cos θ − sin θ\)/\(cos θ \+ sin θ\)"],
    "P6.2": [r"collapsed networks average", r"36\.3 %"],
    "P6.3": [r"the correlation is the cliff", r"rank orders\s+nothing"],
    "P7.1": [r"√\(d − 1\)", r"bounded channel by channel"],
    "P7.2": [r"absorbs the shift", r"a constant shift of every channel changes"],
    "P7.3": [r"passes through W2 = 0", r"W2 moves first"],
    "P8.1": [r"near-hard coin flip", r"one-hot\s+samples"],
    "P8.2": [r"always\s+more decided than π", r"doubles the logit gap"],
    "P8.3": [r"the bias vanishes", r"approaches π\(1 − π\)"],
    "P9.1": [r"long been below ε_H", r"inert where the paper says it matters"],
    "P9.2": [r"0\.45 ≥ 0\.1 at epoch 10", r"would act where the paper says it must"],
    "P9.3": [r"Frozen means the selector stops", r"π moves a\s+little"],
    "P9.4": [r"Final mean selector entropy", r"drifted\s+towards LN"],
    "P9.5": [r"Mean over datasets of AutoNorm's final H", r"left the undecided state at very\s+different speeds"],
    "P9.6": [r"Random selector minus AutoNorm", r"does not beat the learned gate"],
    "P10.1": [r"the linear regime, a constant ratio", r"ρ = βcα, \*\*constant\*\*", r"Pre-DyT starts above"],
    "P10.2": [r"identity to within its LayerScale", r"nothing to collapse"],
    "P10.3": [r"Spearman ρ\(w_DyT", r"gates have\s+barely left ½"],
}


@pytest.mark.parametrize("lesson", MINE, ids=lambda p: p.stem)
def test_no_prediction_is_answered_before_it_is_asked(lesson):
    cs = cells(lesson)
    for i, pid in _predictions(lesson):
        before = "\n".join(source(c) for c in cs[:i] if c["cell_type"] == "markdown")
        after = "\n".join(source(c) for c in cs[i:])
        for phrase in ANSWERS[pid]:
            hit = re.search(phrase, before)
            assert not hit, f"{lesson.name}: {pid}'s answer ({hit.group(0)!r}) precedes the question"
        assert any(re.search(p, after) for p in ANSWERS[pid]), f"{lesson.name}: {pid}'s phrases are stale"


def test_the_answer_rule_can_fail():
    "Negative control: the old lesson 8 stated P8.2's answer before asking it."
    old = "Dividing by τ = 0.5 doubles the logit gap, so the *applied* gate is sharper than π."
    assert any(re.search(p, old) for p in ANSWERS["P8.2"])


@pytest.mark.parametrize("lesson", MINE, ids=lambda p: p.stem)
def test_checks_section_collapsed_and_references_close_the_lesson(lesson):
    cs = cells(lesson)
    heading = [i for i, c in enumerate(cs) if source(c).startswith("## Checks")]
    assert len(heading) == 1, f"{lesson.name}: one '## Checks' section"
    checks = [c for c in cs[heading[0] + 1:] if c["cell_type"] == "code"]
    assert checks and all(c["metadata"].get("jupyter", {}).get("source_hidden") for c in checks)
    assert all("assert " in source(c) for c in checks)
    assert "references" in tags(cs[-1]) and source(cs[-1]).startswith("## References"), lesson.name


from test_course import INTERNAL   # one rule for every lesson


@pytest.mark.parametrize("lesson", MINE, ids=lambda p: p.stem)
def test_nothing_internal_on_the_page_and_parameters_explained(lesson):
    cs = cells(lesson)
    for i, c in enumerate(cs):
        text = source(c) if c["cell_type"] == "markdown" else \
            "\n".join(ln.partition("#")[2] for ln in source(c).splitlines())        # comments only
        hit = INTERNAL.search(text)
        assert not hit, f"{lesson.name} cell {i}: {hit.group(0)!r} on a learner's page"
    p = [i for i, c in enumerate(cs) if "parameters" in tags(c)][0]
    assert cs[p - 1]["cell_type"] == "markdown" and len(source(cs[p - 1]).splitlines()) == 1
    for line in source(cs[p]).strip().splitlines():
        assert re.match(r"\w+: \w+ = .+  # \S", line), line
    assert re.search(r"^> About (\d+) minutes\.", source(cs[0]), re.M), f"{lesson.name}: no time"


def test_the_internal_pattern_catches_a_gpu_command_and_a_status_line():
    assert INTERNAL.search("papermill nbs/x.ipynb out.ipynb -p device cuda")
    assert INTERNAL.search("the experiment is being revised")
    assert not INTERNAL.search("the experiment's notebook, in the appendix")


# Code width (≤ 88 characters) for these pages: tests/test_page_checks.py (web.checks).


# ---------------------------------------------------------------- progress()

def test_progress_counts_answers_per_lesson_but_not_solutions(tmp_path, monkeypatch):
    f = tmp_path / "progress.json"
    monkeypatch.setenv(checking.PROGRESS_ENV, str(f))
    monkeypatch.setattr(checking, "_ANSWERS", {})
    with contextlib.redirect_stdout(io.StringIO()):
        check("L8.1", 0.61)                                   # wrong (bits)
        check("L8.1", _h(0.85))                                # right
        check("L8.Q4", 0.5)                                    # recap, right
        check("L8.2", None)                                    # not answered yet
        check("L8.3", math.e / (math.e + 2), solution=True)    # a worked solution
        checking.reveal("P8.2", "smaller", "smaller")
    monkeypatch.setattr(checking, "_ANSWERS", {})              # a new kernel: only the file remains
    row = checking.progress().loc[8]
    assert row["exercises"] == 5 and row["exercises answered"] == 1 and row["exercises right"] == 1
    assert row["recap"] == 7 and row["recap answered"] == 1 and row["recap right"] == 1
    assert row["predictions made"] == 1 and row["predictions right"] == 1
    assert json.loads(f.read_text())["answers"]["L8.1"]["attempts"] == 2


def test_progress_leaves_a_foreign_file_alone(tmp_path, monkeypatch):
    f = tmp_path / "mine.json"
    f.write_text('{"not": "a progress record"}')
    monkeypatch.setenv(checking.PROGRESS_ENV, str(f))
    monkeypatch.setattr(checking, "_ANSWERS", {})
    monkeypatch.setattr(checking, "_WARNED", set())
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf): check("L7.2", 0.25)
    assert json.loads(f.read_text()) == {"not": "a progress record"}
    assert "not a progress record" in buf.getvalue()
    assert checking.progress().loc[7, "exercises right"] == 1          # kept in memory
