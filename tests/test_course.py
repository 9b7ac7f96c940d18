"""The course in nbs/course: every lesson has its tagged cells (predictions with reveals, exercises
with collapsed solutions), every checker grades right / wrong / malformed answers as promised, the
lessons run under papermill, and nothing in the product points outside the repository or cites an
unknown claim.

The rank lessons (1-5) are held to the second edition's frame as well: each prediction comes before
the text that answers it, exercises and recap questions are numbered in order, a recap of 5-8 checked
questions and a references section in the bibliography's format close each lesson, claimed statements
name their source, code lines fit the site's column, and nothing internal is left on the page. The
checkers of lessons 1-2 are graded here with answers computed independently of their module (closed
forms, scipy, sampled matrices); tests/test_course_depth.py does the same for lessons 3-5."""
import contextlib, io, json, math, os, re, subprocess, sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.integrate
import scipy.special
import scipy.stats

from autonorm_explorer.course import checking
from autonorm_explorer.course.checking import check, load_exercises, get_exercise, lesson_of
from autonorm_explorer.course.claims import CLAIMS, cited_claim_ids
from autonorm_explorer.course.diagrams import Diagram, legibility, path_expansion_diagram, placement_diagram

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "nbs" / "course"
# The course's lessons in order, at their planned names; a lesson file must be one of these.
PLANNED = ["01_effective_rank", "02_depth_and_skips", "03_norm_placement", "04_mean_spike",
           "05_width_expansion", "06_trainability", "07_normalization_layers", "08_autonorm",
           "09_autonorm_s", "10_norms_and_rank"]
LESSONS = sorted(COURSE.glob("[0-9][0-9]_*.ipynb"))
RANK_LESSONS = [COURSE / f"{n}.ipynb" for n in PLANNED[:5]]     # the second edition's frame
ID = r"L\d+\.Q?\d+"                                           # an exercise or recap id


def cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]

def source(cell):
    return "".join(cell["source"])

def tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))

def markdown(path):
    return "\n".join(source(c) for c in cells(path) if c["cell_type"] == "markdown")

def graded(exercise_id, answer):
    "check()'s return value and what it printed."
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf): ok = check(exercise_id, answer)
    return ok, buf.getvalue()


# ---------------------------------------------------------------- lesson structure

def test_the_course_has_lessons_at_their_planned_names():
    assert [p.stem for p in LESSONS][:5] == PLANNED[:5]
    unplanned = [p.name for p in LESSONS if p.stem not in PLANNED]
    assert not unplanned, f"lessons must use the planned names {PLANNED}: {unplanned}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_has_predictions_with_reveals(lesson):
    tagged = [(i, c) for i, c in enumerate(cells(lesson)) if tags(c) & {"predict", "reveal"}]
    predicts = [i for i, c in tagged if "predict" in tags(c)]
    assert len(predicts) >= 2, f"{lesson.name}: {len(predicts)} predict cells, need at least 2"
    for (i, c), nxt in zip(tagged, tagged[1:] + [(None, None)]):
        if "predict" in tags(c):
            assert nxt[1] is not None and "reveal" in tags(nxt[1]), \
                f"{lesson.name}: predict cell {i} has no reveal cell before the next prediction"
            assert "guess" in source(c) and "reveal(" in source(nxt[1]), (lesson.name, i)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_has_checked_exercises_each_followed_by_a_collapsed_solution(lesson):
    cs = cells(lesson)
    n = int(lesson.stem[:2])
    exercises = [i for i, c in enumerate(cs) if "exercise" in tags(c)]
    assert len(exercises) >= 3, f"{lesson.name}: {len(exercises)} exercise cells, need at least 3"
    for i in exercises:
        ids = re.findall(r'check\(\s*"(L\d+\.\d+)"', source(cs[i]))
        assert len(ids) == 1 and lesson_of(ids[0]) == n, \
            f"{lesson.name} cell {i}: one check('L{n}.k', ...) expected"
        sol = cs[i + 1] if i + 1 < len(cs) else {}
        assert "solution" in tags(sol), \
            f"{lesson.name}: exercise cell {i} is not followed by a solution cell"
        hidden = sol.get("metadata", {}).get("jupyter", {})
        assert hidden.get("source_hidden") is True and hidden.get("outputs_hidden") is True, \
            f"{lesson.name}: the solution of cell {i} is not collapsed (jupyter.source_hidden, " \
            "outputs_hidden)"
        assert f'check("{ids[0]}"' in source(sol), \
            f"{lesson.name}: the solution of {ids[0]} does not check itself"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_frame_parameters_and_links(lesson):
    cs = cells(lesson)
    text = markdown(lesson)
    for part in ("You will learn", "You need", "What you learned"):
        assert part in text, f"{lesson.name}: no '{part}' section"
    assert sum("parameters" in tags(c) for c in cs) == 1, \
        f"{lesson.name}: exactly one papermill parameters cell"
    kernel = json.loads(lesson.read_text(encoding="utf-8"))["metadata"].get("kernelspec", {})
    assert kernel.get("language") == "python", \
        f"{lesson.name}: no kernelspec in the notebook metadata (papermill reads the language there)"
    k = PLANNED.index(lesson.stem)
    if k + 1 < len(PLANNED):
        assert f"{PLANNED[k + 1]}.ipynb" in text, \
            f"{lesson.name}: no link to the next lesson {PLANNED[k + 1]}"
    assert re.search(r"\]\(\.\./\d\d_\w+\.ipynb\)", text), \
        f"{lesson.name}: no link to a library notebook"


def test_links_in_the_course_resolve():
    "Glossary anchors exist; linked notebooks exist (or are planned lessons not written yet)."
    glossary = (COURSE / "glossary.ipynb").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id=\\"([\w-]+)\\"', glossary))
    assert {"effective-rank", "branch-to-skip-ratio", "dyt", "autonorm", "autonorm-s",
            "gumbel-softmax", "tau", "gate-probabilities", "w-dyt", "jacobian", "ensemble-regime",
            "mean-spike", "t-freeze", "eps-h", "detachnorm", "projection-terms", "output-norm",
            "survival-rate", "marchenko-pastur", "straight-through", "nats", "stationary",
            "cct-layout", "layerscale", "droppath", "path-order"} <= anchors
    bad = []
    for nb in sorted(COURSE.glob("*.ipynb")) + [ROOT / "nbs" / "index.ipynb"]:
        for c in cells(nb):
            for target in re.findall(r"\]\(([^)\s]+\.ipynb(?:#[\w-]+)?)\)", source(c)):
                path, _, anchor = target.partition("#")
                file = (nb.parent / path).resolve()
                if not file.exists() and file.stem not in PLANNED:
                    bad.append(f"{nb.name}: {target} (no such notebook)")
                if anchor and file.name == "glossary.ipynb" and anchor not in anchors:
                    bad.append(f"{nb.name}: {target} (no such glossary anchor)")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- the rank lessons' frame

def predictions(lesson):
    "[(index of the predict cell, its id 'P<n>.<k>')] in order; the id is the reveal's first argument."
    cs, out = cells(lesson), []
    for i, c in enumerate(cs):
        if "predict" in tags(c):
            m = re.search(r'reveal\(\s*"(P\d+\.\d+)"', source(cs[i + 1]))
            out.append((i, m.group(1) if m else None))
    return out


@pytest.mark.parametrize("lesson", RANK_LESSONS, ids=lambda p: p.stem)
def test_each_prediction_is_revealed_by_the_very_next_cell_and_numbered_in_order(lesson):
    cs, n = cells(lesson), int(lesson.stem[:2])
    preds = predictions(lesson)
    assert len(preds) >= 3, f"{lesson.name}: {len(preds)} predictions; the second edition asks 3+"
    assert [p for _, p in preds] == [f"P{n}.{k}" for k in range(1, len(preds) + 1)], preds
    for i, pid in preds:
        guess = re.search(r"^(\w+) = None", source(cs[i]), re.M).group(1)
        assert "reveal" in tags(cs[i + 1]) and guess in source(cs[i + 1]), (lesson.name, pid)
        assert pid in source(cs[i]), f"{lesson.name}: the predict cell does not say it is {pid}"


# For each prediction, what the text that answers it says. None of it may be on the page (the "You
# will learn" list included) before the learner has committed to a guess.
ANSWERS = {
    "P1.1": [r"0\.80?5", r"quarter.circle law\)? (says|gives)", r"about 80%"],
    "P1.2": [r"grouping", r"falls only to about half"],
    "P1.3": [r"inherit", r"same effective rank as"],
    "P2.1": [r"ℓ\^\(?−1/2", r"\\ell\^\{-1/2\}", r"Fuss", r"1/ℓ"],
    "P2.2": [r"ℓ\s?ρ\^?2|\\ell\\rho\^2", r"four times the depth", r"4× the depth"],
    "P2.3": [r"L/3", r"q = \\tfrac13|q = 1/3", r"binomial law"],
    "P3.1": [r"1/√ℓ|1/\\sqrt\{\\ell\}|\\propto\\; ?\\frac\{1\}\{\\sqrt", r"slope of −½", r"grows like √ℓ"],
    "P3.2": [r"Sixteen times the depth", r"the clock, not the depth"],
    "P3.3": [r"saturat", r"keeps much more rank than Post-Norm"],
    "P4.1": [r"linear in depth", r"grows linearly", r"add their lengths"],
    "P4.2": [r"Centering Z", r"does not destroy", r"hides the bulk"],
    "P4.3": [r"ℓ\^?\* ?=|\\ell\^\*", r"delays", r"input's own energy"],
    "P5.1": [r"hitting d exactly", r"a little over one half"],
    "P5.2": [r"ill-conditioned at the bottom", r"square random matrix is always"],
    "P5.3": [r"full rank d for every m ≥ d", r"switches no unit off", r"already full rank"],
}


@pytest.mark.parametrize("lesson", RANK_LESSONS, ids=lambda p: p.stem)
def test_no_prediction_is_answered_before_it_is_asked(lesson):
    cs = cells(lesson)
    preds = predictions(lesson)
    assert {p for _, p in preds} <= set(ANSWERS), f"no answer phrases listed for {preds}"
    for i, pid in preds:
        before = "\n".join(source(c) for c in cs[:i] if c["cell_type"] == "markdown")
        after = "\n".join(source(c) for c in cs[i:])
        for phrase in ANSWERS[pid]:
            hit = re.search(phrase, before)
            assert not hit, f"{lesson.name}: {pid}'s answer ({hit.group(0)!r}) is on the page " \
                            "before the prediction is asked"
        assert any(re.search(p, after) for p in ANSWERS[pid]), \
            f"{lesson.name}: none of {pid}'s answer phrases is found after it: the table is stale"


def test_the_answer_check_can_fail():
    "Negative control: a prediction whose answer is stated before it is caught by the same rule."
    fake = [{"cell_type": "markdown", "source": ["With one matrix the spike grows linearly."],
             "metadata": {}},
            {"cell_type": "code", "source": ["guess = None"], "metadata": {"tags": ["predict"]}}]
    before = "\n".join(source(c) for c in fake[:1])
    assert any(re.search(p, before) for p in ANSWERS["P4.1"])


def ids_in(lesson, tag):
    return [i for c in cells(lesson) if tag in tags(c) for i in re.findall(rf'check\(\s*"({ID})"',
                                                                            source(c))]


@pytest.mark.parametrize("lesson", RANK_LESSONS, ids=lambda p: p.stem)
def test_exercises_and_recap_questions_are_numbered_in_order(lesson):
    n = int(lesson.stem[:2])
    ex, rc = ids_in(lesson, "exercise"), ids_in(lesson, "recap")
    assert ex == [f"L{n}.{k}" for k in range(1, len(ex) + 1)], ex
    assert rc == [f"L{n}.Q{k}" for k in range(1, len(rc) + 1)], rc
    assert 5 <= len(rc) <= 8, f"{lesson.name}: {len(rc)} recap questions; 5-8 asked"
    cs = cells(lesson)
    first_recap = min(i for i, c in enumerate(cs) if "recap" in tags(c))
    last_exercise = max(i for i, c in enumerate(cs) if "exercise" in tags(c))
    learned = min(i for i, c in enumerate(cs) if "## What you learned" in source(c))
    assert last_exercise < first_recap < learned, \
        f"{lesson.name}: the recap must close the lesson, before its summary"
    for c in cs:
        if "recap" in tags(c):
            assert c["cell_type"] == "code" and "answer = None" in source(c), source(c)


REFERENCE = re.compile(r"^- \*\*\[(?P<key>[A-Z][A-Za-z]*\d{4}[a-z]?)\]\*\* (?P<authors>[^()]+?) "
                       r"\((?P<year>\d{4})\)\. \*(?P<title>[^*]+)\*\. (?P<venue>.+?)\. — (?P<use>.+)$")


def references_cells(lesson):
    return [source(c) for c in cells(lesson) if "references" in tags(c)]


def test_the_reference_format_accepts_the_spec_and_refuses_slips():
    good = ("- **[RoyVetterli2007]** Roy, O. & Vetterli, M. (2007). *The effective rank: a measure "
            "of effective dimensionality*. EUSIPCO 2007. — the definition.")
    assert REFERENCE.match(good)
    for bad in (good.replace("**[RoyVetterli2007]**", "[RoyVetterli2007]"),   # not bold
                good.replace("(2007).", "2007."),                              # no parentheses
                good.replace("*The", "The").replace("dimensionality*", "dimensionality"),
                good.replace(" — the definition.", ""),                       # no use
                good.replace("RoyVetterli2007", "roy2007")):
        assert not REFERENCE.match(bad), bad


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_references_cells_are_in_the_bibliography_format(lesson):
    "Whichever lessons have one: a markdown cell starting '## References', one line per source."
    for text in references_cells(lesson):
        lines = text.strip().splitlines()
        assert lines[0] == "## References", f"{lesson.name}: {lines[0]!r}"
        entries = [ln for ln in lines[1:] if ln.strip()]
        assert entries, f"{lesson.name}: an empty references section"
        for ln in entries:
            m = REFERENCE.match(ln)
            assert m, f"{lesson.name}: not in the format '- **[Key]** Authors (Year). *Title*. " \
                      f"Venue. — use.': {ln}"
            assert m["key"].endswith(m["year"]) or m["key"][:-1].endswith(m["year"]), ln


@pytest.mark.parametrize("lesson", RANK_LESSONS, ids=lambda p: p.stem)
def test_rank_lessons_close_with_references_that_the_text_cites(lesson):
    cs = cells(lesson)
    refs = [i for i, c in enumerate(cs) if "references" in tags(c)]
    assert len(refs) == 1 and cs[refs[0]]["cell_type"] == "markdown", lesson.name
    assert refs[0] == len(cs) - 1, f"{lesson.name}: the references cell must close the lesson"
    body = "\n".join(source(c) for c in cs[:refs[0]] if c["cell_type"] == "markdown")
    for ln in source(cs[refs[0]]).splitlines()[1:]:
        if not ln.strip(): continue
        first_author = REFERENCE.match(ln)["authors"].split(",")[0].strip()
        assert first_author in body, f"{lesson.name}: {first_author} is listed but never cited"


def test_a_key_means_the_same_source_in_every_lesson():
    seen, clash = {}, []
    for lesson in LESSONS:
        for text in references_cells(lesson):
            for ln in text.splitlines()[1:]:
                m = REFERENCE.match(ln)
                if not m: continue
                entry = (m["authors"], m["year"], m["title"], m["venue"])
                if seen.setdefault(m["key"], entry) != entry: clash.append((m["key"], lesson.name))
    assert not clash, f"one key, two different entries: {clash}"


@pytest.mark.parametrize("lesson", RANK_LESSONS, ids=lambda p: p.stem)
def test_claimed_statements_name_their_source_and_choices_say_our_reading(lesson):
    text = markdown(lesson)
    for para in re.split(r"\n\s*\n", text):
        if "*claimed*" in para:
            assert re.search(r"Everett|TR-\d+|\[[A-Z]\w*\d{4}\]", para), \
                f"{lesson.name}: a claimed statement without its source: {para[:200]}"
    assert "*our reading*" in text or "our reading" in text, \
        f"{lesson.name}: a choice the paper leaves open must say 'our reading'"


# Code width (≤ 88 characters) is checked for every learner page by tests/test_page_checks.py
# (autonorm_explorer.web.checks); the lessons add the stricter rule below: no papermill, GPU
# command or test-runner word at all (tutorials may show papermill commands, lessons do not).
INTERNAL = re.compile(r"IN_TEST|papermill|test runner|test harness|being revised|-p device|nbdev|\bCI\b")

@pytest.mark.parametrize("lesson", RANK_LESSONS, ids=lambda p: p.stem)
def test_nothing_internal_on_the_learners_page(lesson):
    cs = cells(lesson)
    for i, c in enumerate(cs):
        text = source(c) if c["cell_type"] == "markdown" else \
            "\n".join(ln.partition("#")[2] for ln in source(c).splitlines())      # comments only
        hit = INTERNAL.search(text)
        assert not hit, f"{lesson.name} cell {i}: {hit.group(0)!r} on a learner's page"
    params = [i for i, c in enumerate(cs) if "parameters" in tags(c)][0]
    intro = source(cs[params - 1])
    assert cs[params - 1]["cell_type"] == "markdown" and len(intro.splitlines()) == 1, \
        f"{lesson.name}: one plain sentence before the parameters cell says what it is for"
    for line in source(cs[params]).strip().splitlines():        # every parameter annotated
        assert re.match(r"\w+: \w+ = .+  # \S", line), line


@pytest.mark.parametrize("lesson", RANK_LESSONS, ids=lambda p: p.stem)
def test_rank_lessons_link_the_notation_page_and_keep_their_checks_collapsed(lesson):
    cs = cells(lesson)
    assert "](notation.ipynb)" in markdown(lesson), lesson.name
    heading = [i for i, c in enumerate(cs) if source(c).startswith("## Checks")]
    assert len(heading) == 1, f"{lesson.name}: one '## Checks' section"
    checks = [c for c in cs[heading[0] + 1:] if c["cell_type"] == "code"]
    assert checks and all(c["metadata"].get("jupyter", {}).get("source_hidden") for c in checks)
    assert all("assert " in source(c) for c in checks)


# ---------------------------------------------------------------- diagrams and notation

@pytest.mark.parametrize("lesson, call", [("02_depth_and_skips", "path_expansion_diagram(3)"),
                                          ("03_norm_placement", "placement_diagram()")])
def test_the_structural_diagrams_are_drawn_in_their_lessons(lesson, call):
    cs = cells(COURSE / f"{lesson}.ipynb")
    assert any(source(c).strip() == call for c in cs if c["cell_type"] == "code"), (lesson, call)


@pytest.mark.parametrize("make", [placement_diagram, lambda: path_expansion_diagram(3)],
                         ids=["placements", "paths"])
def test_diagrams_read_at_the_site_width_and_carry_alt_text(make):
    d = make()
    assert legibility(d) == [], legibility(d)
    html = d._repr_html_()
    assert re.search(r'<img alt="[^"]{80,}" src="data:image/svg\+xml;base64,', html)
    assert d.fig.get_figwidth() <= 8.0


def test_legibility_catches_a_bad_diagram():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(10, 2))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.text(0.1, 0.5, "tiny", fontsize=5)
    problems = legibility(Diagram(fig, "A deliberately unreadable figure for the negative control."))
    assert any("wide" in p for p in problems) and any("5 pt" in p for p in problems)


def test_the_notation_page_lists_each_symbol_once_and_resolves_the_overloaded_ones():
    nb = COURSE / "notation.ipynb"
    rows = [ln for c in cells(nb) if c["cell_type"] == "markdown" for ln in source(c).splitlines()
            if ln.startswith("| ") and not ln.startswith("| symbol") and not ln.startswith("|---")]
    symbols = [ln.split(" | ")[0].strip("| ").strip() for ln in rows]
    dupes = sorted({s for s in symbols if symbols.count(s) > 1})
    assert not dupes, f"symbols listed twice: {dupes}"
    by_symbol = dict(zip(symbols, rows))
    for sym, meanings in {"q": ("path probability", "pre-activation variance"),
                          "p": ("shares", "survival rate"), "σ": ("singular values", "activation"),
                          "β": ("branch scale", "FiLM"), "α": ("initialization scale", "DyT")}.items():
        assert sym in by_symbol, f"{sym} missing from the notation page"
        for m in meanings: assert m in by_symbol[sym], (sym, m)
    for row in rows: assert re.search(r"\| lesson \d+ \|$", row), f"no first use: {row}"


# ---------------------------------------------------------------- checkers of lessons 1-2

def erank_of(svals, power=1):
    "Roy–Vetterli effective rank of a spectrum, written with scipy (not the package's)."
    w = np.asarray(svals, float) ** power
    return float(np.exp(scipy.stats.entropy(w[w > 0])))


def quarter_circle_erank():
    rho = lambda x: math.sqrt(4 - x * x) / math.pi
    e_s = scipy.integrate.quad(lambda x: x * rho(x), 0, 2)[0]
    e_sls = scipy.integrate.quad(lambda x: x * math.log(x) * rho(x), 0, 2)[0]
    return e_s * math.exp(-e_sls / e_s)


def fuss_catalan_slope():
    "Log-log slope of the Fuss–Catalan erank/d between 1 and 16 factors, from a sampled product."
    g = np.random.default_rng(7)
    d, J, e = 400, np.eye(400), {}
    for l in range(1, 17):
        J = g.standard_normal((d, d)) / math.sqrt(d) @ J
        J /= np.linalg.norm(J)
        if l in (1, 16): e[l] = erank_of(np.linalg.svd(J, compute_uv=False)) / d
    return math.log(e[16] / e[1]) / math.log(16)


EVEN = np.arange(1, 100001) / 100000                 # an even spectrum, large d
HALF_SPIKE = [63.0] + [1.0] * 63
PRE_GAINS = [Fraction(1, l + 1) for l in range(1, 25)]
# id -> (right answer, {slip answer: a word its hint must contain}, (wrong low, wrong high)).
# Right answers come from closed forms, scipy or sampled matrices, never from the graders' module.
CASES = {
    "L1.1": (erank_of([3, 1]), {2: "rank", erank_of([3, 1], 2): "σ²",
                                math.log(erank_of([3, 1])): "entropy",
                                math.log2(erank_of([3, 1])): "bits"}, (1.2, 1.95)),
    "L1.2": (erank_of(EVEN) / len(EVEN), {1.0: "every direction", 0.5: "mean singular value",
                                          math.exp(0.5): "cannot exceed 1",
                                          0.5 * math.exp(-0.5): "sign",
                                          erank_of(EVEN, 2) / len(EVEN): "energy shares",
                                          0.805: "quarter-circle"}, (0.7, 0.95)),
    "L1.3": (erank_of(HALF_SPIKE), {32: "half the share", 64: "rank", 2: "bulk",
                                    erank_of(HALF_SPIKE, 2): "σ²",
                                    math.log(erank_of(HALF_SPIKE)): "entropy"}, (8, 24)),
    "L1.4": (8, {64: "row space", 1000: "dimensions"}, (3, 20)),
    "L1.Q1": (5, {math.log(5): "entropy", 1: "equal directions"}, (3, 8)),
    "L1.Q2": (quarter_circle_erank(), {1: "quarter-circle", math.exp(-0.5): "energy variant",
                                       math.sqrt(math.e) / 2: "even spread"}, (0.3, 0.9)),
    "L1.Q3": (1, {1000: "shares", 1e6: "shares", 1e-3: "shares"}, (0.5, 2)),
    "L1.Q4": (math.log(10), {1: "base 10", math.log2(10): "bits", 10: "effective rank itself"},
              (1.5, 5)),
    "L1.Q5": (1, {2: "energy variant"}, (0, 3)),
    "L1.Q6": (10, {100: "energies", 1: "isotropic"}, (5, 30)),
    "L2.1": (math.comb(10, 2), {90: "set of branches", 100: "at most once", 1024: "every order"},
             (20, 60)),
    "L2.2": (36 * 0.125 / 1.125, {36 * 0.25 / 1.25: "β enters squared", 36 * 0.125: "probability",
                                  18: "L/2"}, (2, 6)),
    "L2.3": (float(sum(g / (1 + g) for g in PRE_GAINS)), {float(sum(PRE_GAINS)): "summed the gains",
                                                          8: "own q_ℓ", 12: "L/2"}, (1, 4)),
    "L2.Q1": (math.sqrt(0.5), {0.5: "ρ²", 1: "half", 0.25: "second matrix"}, (0.4, 0.9)),
    "L2.Q2": (2, {1: "averages out"}, (0, 3)),
    "L2.Q3": (math.comb(6, 3), {120: "ordered", 64: "every order", 18: "binomial coefficient"},
              (10, 40)),
    "L2.Q4": (0.5, {1: "share"}, (0.2, 0.8)),
    "L2.Q5": (3, {15: "L/2", 0.1: "one block's"}, (1.5, 6)),
    "L2.Q6": (round(fuss_catalan_slope(), 2), {-1: "far-deep", 0: "does fall"}, (-2, 0.5)),
}


def spellings(x):
    "Ways the answer could appear in a hint."
    out = {f"{x:g}", f"{x:.3g}", f"{x:.2f}"}
    if abs(x) >= 1: out.add(f"{x:.1f}")
    if float(x).is_integer(): out.add(str(int(x)))
    return out


def leaks(answer, hint):
    return [s for s in spellings(answer) if re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", hint)]


def test_every_checker_of_lessons_1_and_2_is_tested_here():
    mine = {i for i in load_exercises() if lesson_of(i) in (1, 2)}
    assert mine == set(CASES)


def test_the_independent_answers_are_what_the_lessons_derive():
    "The oracles above agree with the closed forms the lessons teach (a check on the test itself)."
    assert abs(CASES["L1.2"][0] - math.sqrt(math.e) / 2) < 1e-4
    assert abs(CASES["L1.3"][0] - 2 * math.sqrt(63)) < 1e-9
    assert abs(CASES["L1.Q2"][0] - 0.805) < 1e-3
    assert abs(CASES["L2.3"][0] - (sum(1 / n for n in range(1, 27)) - 1.5)) < 1e-12
    assert -0.6 < CASES["L2.Q6"][0] < -0.4


@pytest.mark.parametrize("exercise_id", sorted(CASES))
def test_checker_right_slips_wrong_and_malformed(exercise_id):
    right, slips, (low, high) = CASES[exercise_id]
    ok, out = graded(exercise_id, right)
    assert ok and out.startswith(f"✓ {exercise_id}"), out
    for slip, word in slips.items():
        ok, out = graded(exercise_id, slip)
        assert not ok and out.startswith("✗ not yet: "), (exercise_id, slip, out)
        assert word in out, f"{exercise_id}: the slip {slip!r} should get its hint ({word!r}): {out}"
        assert not leaks(right, out), f"{exercise_id}: the hint gives the answer away: {out}"
    for wrong, side in ((low, "too low"), (high, "too high")):
        ok, out = graded(exercise_id, wrong)
        assert not ok and side in out, (exercise_id, wrong, out)
        assert len(out.split(":", 2)[-1].split()) >= 4, f"{exercise_id}: a bare '{side}': {out}"
        assert not leaks(right, out), f"{exercise_id}: the hint gives the answer away: {out}"
    ok, out = graded(exercise_id, "a word")
    ex = get_exercise(exercise_id)
    assert not ok and out == f"✗ malformed answer: expected {ex.expects}, got 'a word'\n", out


def test_integer_checker_refuses_a_fraction_and_numbers_refuse_bools():
    assert graded("L1.4", 8.5) == (False, "✗ malformed answer: expected an integer, got 8.5\n")
    assert graded("L2.1", True)[0] is False and "malformed" in graded("L2.1", True)[1]


def test_every_registered_exercise_is_asked_in_a_lesson_and_refuses_malformed_answers():
    "Whatever lessons exist: an id asked in a lesson is registered, and a registered one is asked."
    asked = {i for nb in LESSONS for c in cells(nb) if tags(c) & {"exercise", "recap"}
             for i in re.findall(rf'check\(\s*"({ID})"', source(c))}
    known = set(load_exercises())
    assert asked <= known, f"lessons ask unregistered exercises: {sorted(asked - known)}"
    written = {int(p.stem[:2]) for p in LESSONS}
    unasked = sorted(i for i in known if lesson_of(i) in written and i not in asked)
    assert not unasked, f"registered but asked in no lesson: {unasked}"
    for i in sorted(known):
        ok, out = graded(i, object())
        expected = f"✗ malformed answer: expected {get_exercise(i).expects}, got <object"
        assert not ok and out.startswith(expected), (i, out)


def test_recap_ids_are_accepted_and_bad_ids_refused():
    assert lesson_of("L1.Q3") == 1 and lesson_of("L12.Q1") == 12
    for bad in ("L1.Q", "L1.q1", "LQ.1", "L1.QQ1", "1.Q1"):
        with pytest.raises(ValueError, match="not of the form"):
            lesson_of(bad)


def test_unknown_exercise_id_names_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown exercise id 'L1\.99'.*L1\.1"):
        check("L1.99", 1)
    with pytest.raises(ValueError, match="not of the form"):
        check("1.1", 1)


def test_checking_imports_no_exercise_module_at_import_time():
    code = ("import sys, autonorm_explorer.course.checking; "
            "print(sorted(m for m in sys.modules if m.startswith('autonorm_explorer.course.exercises')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert out.strip() == "[]", out


def test_reveal_compares_and_handles_a_missing_prediction():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert checking.reveal("P", 0.8, 0.803, tol=0.05) is True
        assert checking.reveal("P", 0.5, 0.803, tol=0.05) is False
        assert checking.reveal("P", None, 0.803) is None
        assert checking.reveal("P", "Post", "post") is True
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("✓ P") and lines[1].startswith("✗ P")
    assert "no prediction made" in lines[2]
    assert "0.803" in lines[2]


# ---------------------------------------------------------------- self-contained product

OUTSIDE = re.compile(r"spec §|§ ?\d|shared/|papers\.md|stack\.md|landscape\.md|[Pp]itfall"
                     r"|\b[Tt]he spec\b|spec's|/work/|\b[Cc]laims? \d+\b")

def product_texts():
    "(name, text) of every notebook cell, module, README, test, benchmark and script."
    for p in sorted((ROOT / "nbs").rglob("*")):
        if ".ipynb_checkpoints" in p.parts or not p.is_file(): continue
        if p.suffix == ".ipynb":
            for i, c in enumerate(cells(p)): yield f"{p.relative_to(ROOT)} cell {i}", source(c)
        elif p.suffix in (".md", ".toml", ".txt", ".yml", ".yaml"):
            yield str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    files += sorted((ROOT / "autonorm_explorer").rglob("*.py"))
    files += sorted((ROOT / "benchmarks").glob("*.py"))
    files += sorted((ROOT / "scripts").glob("*")) + sorted(p for p in (ROOT / "tests").glob("*.py")
                                                          if p.name != Path(__file__).name)
    for p in files:
        if p.is_file(): yield str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")


def test_the_outside_pattern_catches_what_it_should_and_only_that():
    for bad in ("spec §2.11", "(§1.7.4)", "see shared/spec", "papers.md", "pitfall 6", "claims 5, 6",
                "the spec predicts", "/work/main"):
        assert OUTSIDE.search(bad), bad
    for fine in ("TR-5 and AN-12", "spec = json.loads(x)", "run_notebook(spec[\"notebook\"])",
                 "the claims table", "inspect(spec)"):
        assert not OUTSIDE.search(fine), fine


def test_nothing_refers_to_a_document_outside_the_repository():
    hits = [f"{name}: …{text[max(0, m.start() - 40):m.end() + 40]}…".replace("\n", " ")
            for name, text in product_texts() for m in OUTSIDE.finditer(text)]
    assert not hits, f"{len(hits)} references to documents outside the repository (or bare " \
                     f"claim numbers; cite the claims table's ids):\n" + "\n".join(hits[:40])


def test_every_cited_claim_id_is_in_the_claims_table():
    unknown = sorted({f"{name}: {cid}" for name, text in product_texts()
                      for cid in cited_claim_ids(text) if cid not in CLAIMS})
    assert not unknown, "claim ids not in the claims table:\n" + "\n".join(unknown)


# ---------------------------------------------------------------- the lessons run

# Every lesson runs under papermill at its test size (IN_TEST=1) once, for the site, and its solutions' checks are
# asserted on that execution: tests/test_docs_site.py::test_every_lesson_ran_under_papermill_and_its_solutions_passed.
# (A second execution here cost about 170 s of make test for the same notebooks, kernel and parameters.)
