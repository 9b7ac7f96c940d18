"""The learner pages' content checks (`autonorm_explorer.web.checks`) on every learner page: code lines that
fit the site's column, symbols with real sub- and superscripts, nothing internal, comments not split around
code. A failure lists each problem as page:cell:line."""
import json
from pathlib import Path

import pytest

from autonorm_explorer.web.checks import (CHECKS, control_character_problems, learner_page_problems, learner_pages,
                                          problems_report)

NBS = Path(__file__).resolve().parents[1] / "nbs"


def test_every_learner_page_passes_every_check():
    found = learner_page_problems(NBS)
    assert not any(found.values()), problems_report(found)


def test_no_notebook_holds_a_control_character_in_its_prose():
    "Every notebook, library ones included (the site renders them too): no TeX backslash lost to a JSON escape."
    notebooks = sorted(NBS.rglob("*.ipynb"))
    assert len(notebooks) > 60, len(notebooks)
    found = {p.relative_to(NBS).as_posix(): control_character_problems(p) for p in notebooks
             if ".ipynb_checkpoints" not in p.parts}
    assert not any(found.values()), problems_report(found)


def test_the_pages_checked_are_the_learner_pages():
    pages = {p.relative_to(NBS).as_posix() for p in learner_pages(NBS)}
    expected = {"index.ipynb", "explorers.ipynb", "course/01_effective_rank.ipynb", "course/glossary.ipynb",
                "tutorials/rank_claims.ipynb", "experiments/report.ipynb"}
    assert expected <= pages, expected - pages
    assert not any(p[0].isdigit() for p in pages), "library notebooks are not learner pages"


@pytest.mark.parametrize("check, cell", [
    ("code_width_problems", ("code", "x = " + "1" * 90)),
    ("prose_script_problems", ("markdown", "the ratio ρ_ℓ falls like 1/√ℓ")),
    ("internal_text_problems", ("markdown", "Under the test runner (`IN_TEST=1`) it shrinks.")),
    ("wrapped_comment_problems", ("code", "# full rank for every m ≥ d\nassert ok\n# and no jump either")),
    ("control_character_problems", ("markdown", "the budget $0.85\\,\text{rtol}$")),
])
def test_each_check_can_fail_on_a_page(tmp_path, check, cell):
    "Negative control: a learner page with one planted problem fails exactly that check, at its cell."
    (tmp_path / "course").mkdir()
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# A page"},
                    {"cell_type": cell[0], "metadata": {}, "source": cell[1]}]}
    (tmp_path / "course" / "planted.ipynb").write_text(json.dumps(nb))
    found = learner_page_problems(tmp_path)["course/planted.ipynb"]
    assert found and {p.cell for p in found} == {1}, found
    assert {f.__name__ for f in CHECKS if f(nb)} == {check}
    assert "course/planted.ipynb:1:" in problems_report({"course/planted.ipynb": found})
