"""The static site (make docs): built offline from a small set of executed notebooks, every course page present with
its figures and no error output, the library reference, launch links, the kernel-free figures driven in headless
Chromium, and every page checked in Chromium offline (file:// and served): no console error or failed request, no
raw TeX, images loaded, internal links resolving, no sideways scroll at 1280 px; plus autonorm-docs' folder safety.

The build runs the landing notebook, the course and the explorers notebook with papermill at their test sizes
(IN_TEST=1), the reproduction report on a hand-written two-seed sweep, and the movable figures on their small grid;
the tutorials are left out (make docs adds them). Screenshots go to tests/artifacts/ (gitignored).
Skipped only when chromium or playwright is missing and CI is not "true".
"""
import json, os, re, subprocess, time
from pathlib import Path

import nbformat
import pytest

from browser_support import (ARTIFACTS, broken_internal_links, chromium, need_browser, offline, page_problems,
                             raw_tex, watch)

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    "A site built from the landing notebook, every course notebook, the explorers and a report of a small sweep."
    from autonorm_explorer.core.notebooks import run_notebook
    from autonorm_explorer.web.site import build_site, site_sections
    from test_report_rules import REPORT, gate_rows, write_cell
    tmp = tmp_path_factory.mktemp("docs")
    sweep = tmp / "sweep"                  # the report of a hand-written two-seed sweep, as make demo would leave it
    vision = dict(task="image_classification", epochs=2, train_size=1000, test_size=200, num_classes=10)
    for seed in (0, 1):
        write_cell(sweep, "fashion_mnist", "frozen_ln", seed, dict(vision, test_accuracy=0.8 + 0.01 * seed))
        write_cell(sweep, "fashion_mnist", "autonorm", seed, dict(vision, test_accuracy=0.81 + 0.01 * seed),
                   gate_rows(0.3, 0.2))
    (tmp / "demo" / "notebooks").mkdir(parents=True)
    run_notebook(REPORT, tmp / "demo" / "notebooks" / "report.ipynb", {"sweep_dir": str(sweep),
                                                                        "out_dir": str(tmp / "report")})
    sections = site_sections(ROOT / "nbs")
    small = dict(course=sections["course"], explorers=sections["explorers"], tutorials=[],
                 reproduction=sections["reproduction"])
    summary = build_site(out=tmp / "site", nbs=ROOT / "nbs", demo=tmp / "demo", build=tmp / "build",
                         pyproject=ROOT / "pyproject.toml", sections=small, figures="small", quick=True,
                         workers=1)   # one kernel start at a time: two at once stalled here now and then
    executed = {rel: nbformat.read(tmp / "build" / "executed" / rel, as_version=4)
                for rel in ["index.ipynb", *small["course"], *small["explorers"]]}
    return dict(summary=summary, out=tmp / "site", executed=executed, sections=small)


def _article(page: str) -> str:
    "The main content of a rendered page (without the theme's navigation)."
    m = re.search(r'<article class="bd-article".*?</article>', page, re.S)
    assert m, "no article element in the page"
    return m.group(0)


def _figures_in(nb) -> int:
    "How many figures an executed notebook shows: image outputs, and explorer snapshots taken from widget state."
    n = 0
    for c in nb.cells:
        for o in c.get("outputs", []):
            data = o.get("data", {})
            n += any(k.startswith("image/") for k in data) or "application/vnd.jupyter.widget-view+json" in data
    return n


def test_every_page_exists_with_its_figures_and_no_error(site):
    out = site["out"]
    for rel, nb in site["executed"].items():
        page = out / rel.replace(".ipynb", ".html")
        assert page.exists(), f"{rel}: no page {page}"
        article = _article(page.read_text())
        assert "Traceback (most recent call last)" not in article and "output traceback" not in article, rel
        assert 'class="output error' not in article and "cell_output stderr" not in article, rel
        want = _figures_in(nb)
        got = len(re.findall(r"<img\b", article))
        assert got >= want, f"{rel}: {got} figures on the page, {want} in the executed notebook"
    explorers = _article((out / "explorers.html").read_text())
    assert explorers.count("data:image/png;base64,") >= 3, "the explorers page lacks its three static snapshots"
    assert "A static snapshot of the live explorer" in explorers


def test_every_lesson_ran_under_papermill_and_its_solutions_passed(site):
    """Every lesson in nbs/course ran under papermill at its test size (IN_TEST=1) for the site, with papermill
    finding its parameters, and each exercise's solution printed its own check's ✓: one execution of the course
    serves the site and this test."""
    from autonorm_explorer.core.notebooks import notebook_parameters
    from test_course import LESSONS, cells, tags
    assert len(LESSONS) >= 10, LESSONS
    missing = [nb.name for nb in LESSONS if f"course/{nb.name}" not in site["executed"]]
    assert not missing, f"lessons the site did not execute: {missing}"
    for nb in LESSONS:
        assert notebook_parameters(nb), f"{nb.name}: papermill finds no parameters"
        executed = site["executed"][f"course/{nb.name}"]
        printed = "".join("".join(o.get("text", "")) for c in executed.cells for o in c.get("outputs", []))
        n_ex = sum("exercise" in tags(c) for c in cells(nb))
        assert n_ex and printed.count("✓ L") >= n_ex, f"{nb.name}: {printed.count('✓ L')} checks passed of {n_ex}"


def test_navigation_search_launch_links_and_reference(site):
    out, index = site["out"], (site["out"] / "index.html").read_text()
    for rel in [*site["sections"]["course"], *site["sections"]["explorers"], "figures.ipynb", "api/explore.rank.ipynb"]:
        assert f'href="{rel.replace(".ipynb", ".html")}' in index, f"the navigation does not link {rel}"
    assert (out / "search.html").exists() and (out / "searchindex.js").exists()
    explorers = (out / "explorers.html").read_text()
    assert "https://mybinder.org/v2/gh/autonorm/autonorm_explorer/main" in explorers, "no Binder launch link"
    assert "colab.research.google.com/github/autonorm/autonorm_explorer/blob/main/nbs/explorers.ipynb" in explorers
    widgets = _article((out / "api" / "explore.rank.html").read_text())
    assert "RankExplorer" in widgets and "beta_param" in widgets and "nbs/41_widgets.ipynb" in widgets
    resmlp = _article((out / "api" / "rank.resmlp.html").read_text())
    assert "branch scale, multiplies the branch" in resmlp, "a documented parameter of ResMLPConfig is missing"
    assert "autonorm.github.io" not in index + explorers, "a link to the documentation host nothing builds"


@pytest.mark.browser
def test_kernel_free_figures_in_chromium(site):
    need_browser()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    figures = sorted((site["out"] / "figures").glob("*.html"))
    assert [f.name for f in figures] == ["gate.html", "jacobian.html", "threshold.html"], figures
    with chromium() as browser:
        for fig in figures:
            page = browser.new_page(viewport={"width": 1000, "height": 760})
            errors, requests = [], []
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: not r.url.startswith(("file:", "data:")) and requests.append(r.url))
            page.goto(fig.as_uri())
            page.wait_for_function("() => window.sliderFigure !== undefined")
            points = lambda: page.evaluate(
                "() => [...document.querySelectorAll('polyline')].map(p => p.getAttribute('points'))")
            before, readout0 = points(), page.inner_text("#readout")
            assert before[0] and len(before[0].split()) > 2, (fig.name, before[:1])
            slider = page.locator("input[type=range]").first
            slider.focus()
            page.keyboard.press("ArrowRight")                 # like a person: the keyboard moves the slider
            if points() == before: page.keyboard.press("ArrowLeft"); page.keyboard.press("ArrowLeft")
            after = points()
            assert after != before, f"{fig.name}: moving the slider did not change the plotted data"
            assert page.inner_text("#readout") != readout0, f"{fig.name}: the readout did not follow the slider"
            select = page.locator("select").first
            options = select.locator("option").count()
            select.select_option(index=(int(select.input_value()) + 1) % options)
            assert points() != after, f"{fig.name}: choosing another option did not change the plotted data"
            page.screenshot(path=ARTIFACTS / f"site_figure_{fig.stem}.png", full_page=True)
            assert not errors, f"{fig.name}: console errors {errors}"
            assert not requests, f"{fig.name}: the page fetched {requests} (it must be self-contained)"
            page.close()
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((site["out"] / "explorers.html").as_uri())
        page.locator("article img").first.scroll_into_view_if_needed()
        page.screenshot(path=ARTIFACTS / "site_explorers_snapshot.png", full_page=False)
        page.goto((site["out"] / "figures.html").as_uri())
        page.screenshot(path=ARTIFACTS / "site_figures_page.png", full_page=False)
        page.goto((site["out"] / "api" / "explore.rank.html").as_uri())
        page.screenshot(path=ARTIFACTS / "site_api_widgets.png", full_page=False)
        page.goto((site["out"] / "index.html").as_uri())
        page.screenshot(path=ARTIFACTS / "site_index_page.png", full_page=False)


# ---- autonorm-docs never destroys: small builds of a one-page site (no notebook runs: its executed copy is given)

def _tiny_project(tmp: Path) -> dict:
    "An nbs/ with a one-cell landing notebook and a 'make demo' folder holding its executed copy (nothing to run)."
    nbs, demo = tmp / "nbs", tmp / "demo" / "notebooks"
    nbs.mkdir(parents=True)
    demo.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Tiny\n\nA page.")])
    nbformat.write(nb, nbs / "index.ipynb")
    nb.metadata["papermill"] = {"input_path": str(nbs / "index.ipynb")}
    nbformat.write(nb, demo / "index.ipynb")
    return dict(nbs=nbs, demo=tmp / "demo", build=tmp / "build", pyproject=ROOT / "pyproject.toml", sections={},
                figures="none", api=False, log=lambda *a: None)


def test_docs_refuses_a_folder_it_did_not_make_and_a_link(tmp_path):
    from autonorm_explorer.web.site import build_site
    kw = _tiny_project(tmp_path)
    mine = tmp_path / "my_website"
    mine.mkdir()
    (mine / "index.html").write_text("a user's page")
    with pytest.raises(FileExistsError, match="my_website is not empty and was not made by autonorm-docs"):
        build_site(out=mine, **kw)
    assert [p.name for p in mine.iterdir()] == ["index.html"] and (mine / "index.html").read_text() == "a user's page"
    assert not kw["build"].exists(), "refused only after it had started working"
    (tmp_path / "link").symlink_to(mine)
    with pytest.raises(ValueError, match="is a symbolic link"):
        build_site(out=tmp_path / "link", **kw)
    theirs = tmp_path / "their_build"
    theirs.mkdir()
    (theirs / "data.csv").write_text("1,2")
    with pytest.raises(FileExistsError, match="their_build is not empty"):
        build_site(out=tmp_path / "site", **{**kw, "build": theirs})
    assert [p.name for p in theirs.iterdir()] == ["data.csv"]
    with pytest.raises(TypeError, match="force='yes'"):
        build_site(out=tmp_path / "site", force="yes", **kw)


def test_docs_read_only_parent_is_a_clear_error(tmp_path, monkeypatch):
    from autonorm_explorer.web import site as web_site
    parent = tmp_path / "ro"
    parent.mkdir()
    if os.geteuid() == 0:           # root writes through any mode bits: the refusal the kernel would give, raised
        def refuse(*a, **k): raise PermissionError(13, "Permission denied")
        monkeypatch.setattr(web_site.tempfile, "mkdtemp", refuse)
    else:
        parent.chmod(0o500)
    try:
        with pytest.raises(PermissionError, match=r"cannot write in .*ro \(the folder of --out .*site\)"):
            web_site.staging_folder(parent / "site")
    finally:
        parent.chmod(0o700)


def test_docs_second_build_replaces_its_own_site_and_a_failed_build_keeps_it(tmp_path, monkeypatch):
    from autonorm_explorer.web import site as web_site
    from autonorm_explorer.core.files import folder_owner
    kw, out = _tiny_project(tmp_path), tmp_path / "site"
    web_site.build_site(out=out, **kw)
    assert folder_owner(out) == "autonorm-docs" and (out / "index.html").exists()
    (out / "stale.html").write_text("a page an earlier build wrote")
    web_site.build_site(out=out, **kw)                                    # its own folder: replaced whole
    assert (out / "index.html").exists() and not (out / "stale.html").exists()
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    real_run = subprocess.run
    def sphinx_fails(cmd, **k):     # Sphinx writes its whole output, then exits 1 (as a late error would)
        r = real_run(cmd, **k)
        return subprocess.CompletedProcess(r.args, 1, r.stdout, r.stderr + "\nsimulated late failure")
    monkeypatch.setattr(web_site.subprocess, "run", sphinx_fails)
    with pytest.raises(RuntimeError, match="the previous site in .* is unchanged"):
        web_site.build_site(out=out, **kw)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before, "a failed build changed the previous site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build", "demo", "nbs", "site"], "staging left behind"
    # (--force on someone else's folder adds and deletes nothing: publish_site's test in nbs/71_docsite.ipynb)


# ---- every page of the site in Chromium, offline: file:// and served

def site_pages(out: Path) -> list[Path]:
    "Every HTML page of a built site (not the theme's or MathJax's own files, not the kernel-free figures)."
    return sorted(p for p in out.rglob("*.html") if not {"_static", "figures", "jupyter_execute"} & set(p.parts))


def problems_of(rep: dict) -> list[str]:
    "What is wrong with a page, from its `page_problems` report (empty: nothing)."
    out = [f"{k}: {rep[k][:5]}" for k in ("raw_tex", "broken_links", "broken_images", "console_errors",
                                          "failed_requests") if rep.get(k)]
    if rep.get("mathjax_errors"): out.append(f"{rep['mathjax_errors']} formulas MathJax could not read")
    if rep["overflow"]["box"] > 0 or rep["overflow"]["page"] > 0:
        out.append(f"the main column scrolls sideways at 1280 px ({rep['overflow']})")
    return out


NEGATIVE = {
    "raw_tex.html": "<p>Its rank is $\\operatorname{rank}(A)$ and \\(x\\).</p>",
    "broken_link.html": "<p><a href='no_such_page.html'>gone</a> <a href='#nowhere'>here</a></p>",
    "wide_code.html": "<pre style='overflow:visible;white-space:pre'>" + "x = 1; " * 60 + "</pre>",
}


@pytest.mark.browser
def test_the_page_checker_flags_raw_tex_a_broken_link_and_a_wide_line(tmp_path):
    "Negative controls: each synthetic page has one fault, and the checker names exactly that one."
    need_browser()
    for name, body in NEGATIVE.items():
        (tmp_path / name).write_text(f"<!doctype html><html><body><main>{body}</main></body></html>")
    (tmp_path / "fine.html").write_text("<!doctype html><html><body><main><p id='a'>x<sub>1</sub></p>"
                                        "<a href='#a'>a</a></main></body></html>")
    # a stylesheet asked for at load, answered 404 after 0.4 s (as a MathJax font arrives after load): its fault is
    # this page's, not the next page's (served over HTTP, since only a server can answer late)
    (tmp_path / "late_fault.html").write_text(
        "<!doctype html><html><body><main><p>late</p></main><script>addEventListener('load', () => {"
        "const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = 'slow_missing.css';"
        "document.head.append(l); });</script></body></html>")
    import functools, http.server, threading
    class Slow(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            if self.path.endswith("slow_missing.css"): time.sleep(0.4)
            super().do_GET()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Slow, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            offline(page)
            seen = watch(page)
            found = {p.name: problems_of(page_problems(page, base + p.name if p.name == "late_fault.html" else p.as_uri(),
                                                       p, seen)) for p in sorted(tmp_path.glob("*.html"))}
    finally:
        server.shutdown()
    assert found["fine.html"] == [], found
    late = found["late_fault.html"]                    # the 404 shows as a failed request and as a console error
    assert any("slow_missing.css (HTTP 404)" in x for x in late) and all("404" in x or "slow_missing" in x for x in late), found
    assert len(found["raw_tex.html"]) == 1 and found["raw_tex.html"][0].startswith("raw_tex"), found
    assert len(found["broken_link.html"]) == 1 and "no_such_page.html" in found["broken_link.html"][0], found
    assert "#nowhere" in found["broken_link.html"][0]
    assert len(found["wide_code.html"]) == 1 and "scrolls sideways" in found["wide_code.html"][0], found


@pytest.mark.browser
def test_every_page_offline_in_chromium_file_and_served(site):
    """Every page, from disk and from a local web server, with every request off the machine refused: no console
    error, no failed request, no TeX left in the text, every image loaded, every internal link resolving, no
    sideways scroll at 1280 px. Screenshots of a derivation, a figure page and the report."""
    need_browser()
    import http.server, threading, functools
    out = site["out"]
    pages = site_pages(out)
    assert len(pages) > 40 and (out / "experiments" / "report.html") in pages, len(pages)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
    handler = functools.partial(Quiet, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    bad, timing = {}, {}
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            offline(page)
            seen = watch(page)
            for p in pages:
                rel = p.relative_to(out).as_posix()
                for how, url in (("file", p.as_uri()), ("http", base + rel)):
                    rep = page_problems(page, url, p, seen)
                    if problems_of(rep): bad[f"{how} {rel}"] = problems_of(rep)
                    if how == "file": timing[rel] = rep
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            for rel, shot in (("course/03_norm_placement.html", "site_lesson_derivation.png"),
                              ("experiments/report.html", "site_report.png")):
                page.goto((out / rel).as_uri())
                page.evaluate("() => MathJax && MathJax.startup && MathJax.startup.promise")
                page.locator("mjx-container[display=true], .math.notranslate").first.scroll_into_view_if_needed()
                page.screenshot(path=ARTIFACTS / shot)
            page.goto((out / "figures" / "jacobian.html").as_uri())
            page.screenshot(path=ARTIFACTS / "site_figure_page.png", full_page=True)
    finally:
        server.shutdown()
    assert not bad, f"{len(bad)} of {2 * len(pages)} page loads have problems: {dict(list(bad.items())[:8])}"
    lesson = timing["course/03_norm_placement.html"]
    assert lesson["mathjax"] and lesson["formulas"] > 10, lesson
    report = (out / "experiments" / "report.html").read_text()
    assert "tag_hide-input" in report, "the report's code cells are not collapsed"
    (ARTIFACTS / "site_pages.json").write_text(json.dumps(
        {rel: dict(formulas=r["formulas"], mathjax_ready_ms=r["mathjax_ready_ms"], seconds=round(r["seconds"], 2))
         for rel, r in timing.items()}, indent=1))
