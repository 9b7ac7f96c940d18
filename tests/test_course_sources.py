"""Where the course's statements come from, and the pages that collect them: every claimed number in
lessons 6–10, the glossary and the explorers names its source; every choice the package makes where
the papers are silent says "our reading"; every claim of the claims table names its source; the lessons'
References cells agree with the claims' sources and collect into the bibliography; the statements the
second edition corrected stay corrected; the diagrams carry alt text and read at the site's width; the
index opens with the course, lists every lesson with its own time, and keeps GPU commands in its appendix."""
import json, math, re, xml.etree.ElementTree as ET

import pytest

from autonorm_explorer.course.claims import (CLAIMS, SOURCES, SOURCE_KEY, bibliography, lesson_references,
                                             parse_references)
from autonorm_explorer.experiments.report import CLAIMS as CLAIMED_NUMBERS

from test_course import COURSE, LESSONS, cells, source, tags
from test_course_autonorm import MINE

ROOT = COURSE.parents[1]
GLOSSARY, EXPLORERS, INDEX = COURSE / "glossary.ipynb", ROOT / "nbs" / "explorers.ipynb", ROOT / "nbs" / "index.ipynb"


def markdown(path):
    return "\n\n".join(source(c) for c in cells(path) if c["cell_type"] == "markdown")


def paragraphs(path):
    return [p for p in re.split(r"\n\s*\n", markdown(path)) if p.strip()]


# ---------------------------------------------------------------- claimed numbers

PAPER_KEYS = {"AutoNorm2026", "AutoNormEarly2026", "AutoNormCode2025", "Everett2026"}
META = ('id="claimed"', "are **claimed**")        # the word defined, not a claim made
NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")


def unsourced_claims(text: str, known_keys: set[str]) -> list[str]:
    "Claimed paragraphs of `text` with a decimal that no cited claim, no paper key and no report row covers."
    table = {f"{v:g}" for v in CLAIMED_NUMBERS.claimed} | {f"{v:.2f}" for v in CLAIMED_NUMBERS.claimed}
    bad = []
    for para in re.split(r"\n\s*\n", text):
        if not re.search(r"\bclaimed\b", para, re.I) or any(m in para for m in META): continue
        ids = [m.group(0) for m in re.finditer(r"\b(?:TR|AN)-\d+\b", para)]
        keys = set(SOURCE_KEY.findall(para))
        if not ids and not keys & known_keys:
            bad.append(f"no source at all: {para[:120]}")
            continue
        cited = " ".join(CLAIMS[i].claim + " " + CLAIMS[i].note for i in ids if i in CLAIMS)
        for x in NUMBER.findall(para):
            if x in cited or x in table or keys & PAPER_KEYS: continue
            bad.append(f"{x} in: {para[:120]}")
    return bad


@pytest.mark.parametrize("page", MINE + [GLOSSARY, EXPLORERS], ids=lambda p: p.stem)
def test_every_claimed_number_names_its_source(page):
    keys = set(bibliography(COURSE).key)
    assert not unsourced_claims(markdown(page), keys), unsourced_claims(markdown(page), keys)


def test_the_claimed_rule_catches_a_bare_number():
    keys = set(bibliography(COURSE).key)
    assert unsourced_claims("The gate wins with 77.7 (claimed).", keys)
    assert unsourced_claims("AutoNorm-S reaches 77.7 (claimed, AN-4).", keys)          # not AN-4's number
    assert not unsourced_claims("AutoNorm-S reaches 86.35 (claimed, AN-4).", keys)
    assert not unsourced_claims("It scores 91.25 (claimed, [AutoNorm2026]).", keys)


def test_every_claim_names_its_source_and_the_missing_claims_are_in():
    for c in CLAIMS.values():
        keys = SOURCE_KEY.findall(c.source)
        assert keys and set(keys) <= set(SOURCES), (c.id, c.source)
    assert "91.10" in CLAIMS["AN-13"].claim and "89.38" in CLAIMS["AN-13"].claim
    assert "86.35" in CLAIMS["AN-14"].claim and "82.97" in CLAIMS["AN-14"].claim
    assert "stationary vision benchmarks" in CLAIMS["AN-3"].claim
    assert "trainability" in CLAIMS["TR-12"].measured                   # TR-12: the committed study


def test_lesson_6_reads_the_committed_study_not_a_copy_of_its_numbers():
    "The earlier reduced run's numbers, once typed into the lesson, are gone; its reveals read the published files."
    text = "\n".join(source(c) for c in cells(COURSE / "06_trainability.ipynb"))
    assert 'load_published("trainability")' in text
    for stale in ("REDUCED_RUN", "32.7 %", "74.1 %", "gap=41", "reduced run", "72 networks"):
        assert stale not in text, stale


# ---------------------------------------------------------------- our readings

OUR_READINGS = {   # page -> phrases whose paragraph must say "our reading" (a choice the papers leave open)
    "07_normalization_layers": [r"what its FiLM baseline reads", r"scale C is a\s+hyperparameter"],
    "08_autonorm": [r"reads the \*token mean\*", r"does not say what happens at evaluation",
                    r"earlier draft's \"10<sup>4</sup>\"", r"computing\s+it from π"],
    "09_autonorm_s": [r"What the `else` branch does", r"\(`drop_noise=True`\)", r"not freezing on text at all"],
    "06_trainability": [r"multiplies the skip by α = \(2N\)"],
    "glossary": [r'id="w-dyt"', r'id="selector"', r'id="film"', r'id="layerscale"', r'id="drop-noise"',
                 r'id="selector-entropy"'],
}


@pytest.mark.parametrize("page", sorted(OUR_READINGS))
def test_choices_the_papers_leave_open_say_our_reading(page):
    path = COURSE / f"{page}.ipynb"
    paras = paragraphs(path) if page != "glossary" else markdown(path).split("\n\n")
    for phrase in OUR_READINGS[page]:
        hits = [p for p in paras if re.search(phrase, p)]
        assert hits, f"{page}: no paragraph matches {phrase!r}"
        assert all(re.search(r"our\s+reading", p, re.I) for p in hits), (page, phrase, hits[0][:200])


# ---------------------------------------------------------------- references and the bibliography

@pytest.mark.parametrize("lesson", MINE, ids=lambda p: p.stem)
def test_references_are_cited_and_citations_are_referenced(lesson):
    refs = {r["key"] for r in lesson_references(lesson)}
    body = "\n".join(source(c) for c in cells(lesson) if c["cell_type"] == "markdown"
                     and "references" not in tags(c))
    cited = set(SOURCE_KEY.findall(body)) - {"AdaNorm", "AutoNorm", "AutoNorm-S", "DropPath", "DyT",
                                              "FiLM", "Freezing", "Gumbel", "Jacobian", "LayerNorm",
                                              "LayerScale", "Post-Norm", "Pre-Norm", "RMSNorm", "ViT-Lite"}
    cited = {k for k in cited if re.fullmatch(r"[A-Z][A-Za-z]*\d{4}[a-z]?", k)}
    assert cited == refs, {"cited, not listed": sorted(cited - refs), "listed, not cited": sorted(refs - cited)}


def test_the_claims_sources_are_written_alike_wherever_a_lesson_lists_them():
    for lesson in LESSONS:
        for r in lesson_references(lesson):
            if r["key"] not in SOURCES: continue
            s = SOURCES[r["key"]]
            assert (r["authors"], r["year"], r["title"], r["venue"]) == (s.authors, s.year, s.title, s.venue), \
                (lesson.name, r["key"])
    cited = set(bibliography(COURSE).key)
    assert {k for c in CLAIMS.values() for k in SOURCE_KEY.findall(c.source)} <= cited


def test_the_bibliography_collects_every_lesson_once_per_key():
    bib = bibliography(COURSE)
    assert bib.key.is_unique
    for lesson in LESSONS:
        for r in lesson_references(lesson):
            row = bib.set_index("key").loc[r["key"]]
            assert lesson.stem in row.lessons, (lesson.name, r["key"])
    page = cells(COURSE / "bibliography.ipynb")
    assert any("bibliography_markdown(course)" in source(c) for c in page if c["cell_type"] == "code")
    for must in ("Jang2017", "Maddison2017", "Bengio2013", "AutoNorm2026", "Everett2026"):
        assert must in set(bib.key), must


def test_a_references_line_out_of_format_is_refused():
    with pytest.raises(ValueError, match="is not of the form"):
        parse_references("## References\n- Jang et al. (2017), Gumbel-Softmax.")


# ---------------------------------------------------------------- statements corrected in this edition

def test_the_corrected_statements_stay_corrected():
    glossary = markdown(GLOSSARY)
    wdyt = re.search(r'id="w-dyt".*', glossary).group(0)
    assert "softmax(logits/τ) at evaluation" in wdyt and "π at evaluation" not in wdyt
    film = re.search(r'id="film".*', glossary).group(0)
    assert "without affine" in film and "starts as the identity" not in film
    l7 = markdown(COURSE / "07_normalization_layers.ipynb")
    assert "intercept −μ/σ" in l7 and "straight line through the origin with slope" not in l7
    l6 = markdown(COURSE / "06_trainability.ipynb")
    assert re.search(r"amplifies the\s+weak directions\" is not true in general", l6)
    assert "every network trained to 96" not in l6 and "96–99" not in CLAIMS["TR-12"].note
    explorers = markdown(EXPLORERS)
    assert "its mean leaves the exact gradient" not in explorers


def test_the_gate_explorer_numbers_are_the_relaxed_gradient_s():
    from autonorm_explorer.course.exercises_autonorm import relaxed_gradient_mean
    text = markdown(EXPLORERS)
    assert "0.048 at τ = 5, 0.196 at τ = 0.1, against π(1 − π) = 0.197" in " ".join(text.split())
    assert round(relaxed_gradient_mean(1.0, 5.0), 3) == 0.048
    assert round(relaxed_gradient_mean(1.0, 0.1), 3) == 0.196
    pi = 1 / (1 + math.exp(-1))
    assert round(pi * (1 - pi), 3) == 0.197


ENTROPIES = ("selector entropy", "evaluation-gate entropy", "mean sample entropy")


def test_each_entropy_has_one_name_everywhere():
    from autonorm_explorer.explore.gates import GateExplorer
    glossary = markdown(GLOSSARY)
    for anchor in ("selector-entropy", "evaluation-gate-entropy", "sample-entropy"):
        assert f'id="{anchor}"' in glossary, anchor
    pages = {"glossary": glossary.lower(), "lesson 8": markdown(COURSE / "08_autonorm.ipynb").lower(),
             "explorers": markdown(EXPLORERS).lower(),
             "GateExplorer": " ".join(v[1] for v in GateExplorer.LINES.values()).lower()
                             + " selector entropy h(π)"}        # the flat line's label is drawn in setup_axes
    for name, text in pages.items():
        for e in ENTROPIES: assert e in text, (name, e)
        assert "h(applied)" not in text and "other entropy" not in text, name


# ---------------------------------------------------------------- diagrams

IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>figures/[\w.-]+\.svg)\)")


def test_the_lesson_8_diagrams_are_there_with_alt_text_and_read_at_the_site_width():
    found = [m for lesson in MINE for m in IMAGE.finditer(markdown(lesson))]
    assert {m["src"] for m in found} >= {"figures/vit_lite_block.svg", "figures/autonorm_site.svg"}
    for m in found:
        assert len(" ".join(m["alt"].split())) >= 80, m["src"]
        svg = ET.parse(COURSE / m["src"]).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        assert svg.find(f"{ns}title") is not None and len(svg.find(f"{ns}desc").text) > 80, m["src"]
        width = float(svg.get("viewBox").split()[2])
        assert width <= 800, m["src"]
        sizes = [float(t.get("font-size", svg.get("font-size"))) for t in svg.iter(f"{ns}text")]
        assert sizes and min(sizes) >= 12, (m["src"], min(sizes))        # ≥ 12 px at ≤ 800 px wide


# ---------------------------------------------------------------- the index

def test_the_index_opens_with_the_course_and_times_agree_with_the_lessons():
    cs = cells(INDEX)
    first = source(cs[0])
    headings = re.findall(r"^## (.+)$", "\n".join(source(c) for c in cs if c["cell_type"] == "markdown"), re.M)
    assert headings[0].startswith("The course"), headings
    rows = re.findall(r"^\| (\d+) \| \[[^\]]+\]\(course/(\d\d_\w+)\.ipynb\) \| (\d+) \|", first, re.M)
    assert [r[1] for r in rows] == [p.stem for p in LESSONS], rows
    for n, stem, minutes in rows:
        head = "\n".join(source(c) for c in cells(COURSE / f"{stem}.ipynb")[:3])
        stated = re.search(r"About (\d+) minutes", head)
        assert stated and stated.group(1) == minutes, (stem, minutes, stated and stated.group(1))
    for page in ("course/glossary.ipynb", "course/bibliography.ipynb", "course/10_norms_and_rank.ipynb",
                 "explorers.ipynb"):
        assert f"]({page})" in "\n".join(source(c) for c in cs), page


def test_gpu_commands_live_in_the_appendix_only():
    for lesson in MINE:
        assert "papermill" not in "\n".join(source(c) for c in cells(lesson)), lesson.name
    text = "\n".join(source(c) for c in cells(INDEX))
    assert text.index("papermill nbs/experiments") > text.index("## Appendix")


def test_the_explorers_link_back_to_the_lessons_explaining_them():
    sections = re.split(r"\n(?=## )", markdown(EXPLORERS))
    want = {"Rank through depth": ["02_depth_and_skips", "03_norm_placement", "04_mean_spike"],
            "When is the branch Jacobian full rank?": ["05_width_expansion"],
            "Paths of every order": ["02_depth_and_skips"],
            "One AutoNorm gate": ["08_autonorm"], "AutoNorm-S live": ["09_autonorm_s"]}
    for title, lessons in want.items():
        sec = next(s for s in sections if s.startswith(f"## {title}"))
        for lesson in lessons: assert f"](course/{lesson}.ipynb)" in sec, (title, lesson)
