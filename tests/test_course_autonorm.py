"""Course lessons 6–9: every exercise's grader accepts the right answer, gives a hint that hides the
answer to a typical wrong one, and a clear message to a malformed one. tests/test_course.py checks
the frame of every lesson (tagged predictions, reveals, exercises, collapsed solutions)."""
import contextlib, io, math

import pytest
from scipy.optimize import brentq

from autonorm_explorer.course.checking import check, get_exercise
from autonorm_explorer.rank.propagation import rank_profile
from autonorm_explorer.rank.resmlp import ResMLPConfig


def _h(p):            # two-choice entropy in nats, written out here (not the package's)
    return -(p * math.log(p) + (1 - p) * math.log(1 - p))


def _gate_at_tau(h, tau):
    p = brentq(lambda q: _h(q) - h, 0.5, 1 - 1e-15)
    # softmax of logits/τ for the logits (log p, log(1 − p))
    return 1 / (1 + ((1 - p) / p) ** (1 / tau))


def _post_norm_erank():
    cfg = ResMLPConfig(width=32, depth=32, beta=1.0, placement="post", branch="two", seed=0)
    return float(rank_profile(cfg, n_jacobian_inputs=1).jacobian_erank.iloc[-1])


# id -> (right answer, a wrong answer, a malformed answer). Right answers come from closed forms or
# from hand counts, never from the graders.
CASES = {
    "L6.1": (lambda: round(_post_norm_erank(), 2), 0.9, "0.14"),
    "L6.2": ("not_reproduced_at_this_scale", "refuted", "maybe"),
    "L6.3": ("fewer_epochs_or_harder_task", "more_epochs", 3),
    "L7.1": (3 / math.sqrt(3.5), 1.389, [1.6]),
    "L7.2": (0.25, 4.0, "1/4"),
    "L7.3": ("ln", "rms", "batchnorm"),
    "L7.4": (0.7 * 3, 3.0, None),
    "L8.1": (_h(0.85), _h(0.85) / math.log(2), "0.42"),
    "L8.2": (lambda: _gate_at_tau(0.2, 0.5), 0.949, float("nan")),
    "L8.3": (16, 17, 16.5),
    "L8.4": ("one_hot_forward_soft_backward", "soft_forward_soft_backward", "hard"),
    "L9.1": ("frozen", "kept_training", True),
    "L9.2": ("identical", "different", "same"),
    "L9.3": (0.06, 0.03, "0.06"),
    "L9.4": ("outcome", "mechanism", 1),
}


def _run_check(ex_id, answer):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf): ok = check(ex_id, answer)
    return ok, buf.getvalue()


def _answer_strings(right):
    if isinstance(right, str): return [right]
    return [f"{right:.{n}f}" for n in (2, 3, 4)]


@pytest.mark.parametrize("ex_id", sorted(CASES))
def test_exercise_right_wrong_malformed(ex_id):
    right, wrong, malformed = CASES[ex_id]
    right = right() if callable(right) else right
    ok, out = _run_check(ex_id, right)
    assert ok and out.startswith("✓"), (ex_id, out)
    ok, out = _run_check(ex_id, wrong)
    assert not ok and "not yet" in out, (ex_id, out)
    hint = get_exercise(ex_id).grade(wrong)
    assert hint and not any(s in hint for s in _answer_strings(right)), (ex_id, hint)
    ok, out = _run_check(ex_id, malformed)
    assert not ok and "malformed answer" in out and get_exercise(ex_id).expects in out, (ex_id, out)


def test_every_autonorm_exercise_is_tested():
    from autonorm_explorer.course.exercises_autonorm import EXERCISES
    assert sorted(e.id for e in EXERCISES) == sorted(CASES)
