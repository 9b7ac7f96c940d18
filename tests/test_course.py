"""The course in nbs/course: every lesson has its tagged cells (predictions with reveals, exercises
with collapsed solutions), every checker grades right / wrong / malformed answers as promised, the
lessons run under papermill, and nothing in the product points outside the repository or cites an
unknown claim."""
import contextlib, io, json, math, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from autonorm_explorer.course import checking
from autonorm_explorer.course.checking import check, load_exercises, get_exercise, lesson_of
from autonorm_explorer.course.claims import CLAIMS, cited_claim_ids

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "nbs" / "course"
# The course's lessons in order, at their planned names; a lesson file must be one of these.
PLANNED = ["01_effective_rank", "02_depth_and_skips", "03_norm_placement", "04_mean_spike",
           "05_width_expansion", "06_trainability", "07_normalization_layers", "08_autonorm",
           "09_autonorm_s", "10_norms_and_rank"]
LESSONS = sorted(COURSE.glob("[0-9][0-9]_*.ipynb"))


def cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]

def source(cell):
    return "".join(cell["source"])

def tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))

def graded(exercise_id, answer):
    "check()'s return value and what it printed."
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf): ok = check(exercise_id, answer)
    return ok, buf.getvalue()


# ---------------------------------------------------------------- lesson structure

def test_the_course_has_lessons_at_their_planned_names():
    assert [p.stem for p in LESSONS][:2] == PLANNED[:2]
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
    text = "\n".join(source(c) for c in cs if c["cell_type"] == "markdown")
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


# ---------------------------------------------------------------- checkers

# Independent answers (closed forms here, not the module's) for every exercise of lessons 1-2,
# with a typical wrong answer.
RIGHT_AND_WRONG = {
    "L1.1": (math.exp(scipy.stats.entropy([3, 1])), 2.0),
    "L1.2": (10.0, 10000.0),
    "L1.3": (8, 64),
    "L2.1": (math.comb(10, 2), 90),
    "L2.2": (36 * (0.5**2 * 0.5) / (1 + 0.5**2 * 0.5), 36 * 0.25 / 1.25),
    "L2.3": (16 * 4, 32),
}

def spellings(x):
    "Ways the answer could appear in a hint."
    out = {f"{x:g}", f"{x:.3g}", f"{x:.2f}", f"{x:.1f}"}
    if float(x).is_integer(): out.add(str(int(x)))
    return out


def test_every_checker_of_lessons_1_and_2_is_tested_here():
    mine = {i for i in load_exercises() if lesson_of(i) in (1, 2)}
    assert mine == set(RIGHT_AND_WRONG)


@pytest.mark.parametrize("exercise_id", sorted(RIGHT_AND_WRONG))
def test_checker_right_wrong_and_malformed(exercise_id):
    right, wrong = RIGHT_AND_WRONG[exercise_id]
    ok, out = graded(exercise_id, right)
    assert ok and out.startswith(f"✓ {exercise_id}"), out
    ok, out = graded(exercise_id, wrong)
    assert not ok and out.startswith("✗ not yet: ") and len(out) > len("✗ not yet: ") + 5, out
    leaked = [s for s in spellings(right) if s in out]
    assert not leaked, f"{exercise_id}: the hint gives the answer away ({leaked}): {out}"
    ok, out = graded(exercise_id, "a word")
    ex = get_exercise(exercise_id)
    assert not ok and out == f"✗ malformed answer: expected {ex.expects}, got 'a word'\n", out


def test_integer_checker_refuses_a_fraction_and_numbers_refuse_bools():
    assert graded("L1.3", 8.5) == (False, "✗ malformed answer: expected an integer, got 8.5\n")
    assert graded("L2.1", True)[0] is False and "malformed" in graded("L2.1", True)[1]


def test_every_registered_exercise_is_asked_in_a_lesson_and_refuses_malformed_answers():
    "Whatever lessons exist: an id asked in a lesson is registered, and a registered one is asked."
    asked = {i for nb in LESSONS for c in cells(nb) if tags(c) & {"exercise", "recap"}
             for i in re.findall(r'check\(\s*"(L\d+\.Q?\d+)"', source(c))}
    known = set(load_exercises())
    assert asked <= known, f"lessons ask unregistered exercises: {sorted(asked - known)}"
    written = {int(p.stem[:2]) for p in LESSONS}
    unasked = sorted(i for i in known if lesson_of(i) in written and i not in asked)
    assert not unasked, f"registered but asked in no lesson: {unasked}"
    for i in sorted(known):
        ok, out = graded(i, object())
        expected = f"✗ malformed answer: expected {get_exercise(i).expects}, got <object"
        assert not ok and out.startswith(expected), (i, out)


def test_unknown_exercise_id_names_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown exercise id 'L1\.99'.*L1\.1"):
        check("L1.99", 1)
    with pytest.raises(ValueError, match="not of the form"):
        check("1.1", 1)


def test_checking_imports_no_exercise_module_at_import_time():
    code = ("import sys, autonorm_explorer.course.checking; "
            "print(sorted(m for m in sys.modules if m.startswith('autonorm_explorer.exercises')))")
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

@pytest.mark.slow
def test_every_lesson_runs_under_papermill_at_tiny_size(tmp_path):
    """All lessons in nbs/course, two at a time (one papermill process each: two executions in
    threads of one process can stall each other), shrunk by IN_TEST; each solution asserts its
    own check."""
    from autonorm_explorer.core.notebooks import default_kernel, notebook_parameters
    exe, kernel = Path(sys.executable).with_name("papermill"), default_kernel()
    env = {**os.environ, "IN_TEST": "1", "PYTHONPATH": str(ROOT)}
    def run(nb):
        assert notebook_parameters(nb), f"{nb.name}: papermill finds no parameters"
        out = tmp_path / nb.name
        r = subprocess.run([str(exe), str(nb), str(out), "-k", kernel, "--cwd", str(nb.parent),
                            "--execution-timeout", "300", "--no-progress-bar"],
                           capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, f"{nb.name} failed under papermill:\n{r.stderr[-3000:]}"
        return nb, json.loads(out.read_text(encoding="utf-8"))
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(run, LESSONS))
    for nb, executed in done:
        printed = "".join("".join(o.get("text", "")) for c in executed["cells"]
                          for o in c.get("outputs", []))
        n_ex = sum("exercise" in tags(c) for c in cells(nb))
        assert printed.count("✓ L") >= n_ex, f"{nb.name}: a solution did not pass its own check"
