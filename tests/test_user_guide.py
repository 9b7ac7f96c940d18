"""The user guide (docs/guide/*.md) and the README stay true: every command they show runs, every link they
make resolves, every `autonorm_explorer.…` name they mention exists, and the layout page's import order is
the package's.

Convention: a fenced ```bash or ```python block runs; one fenced ```bash no-run (or ```python no-run) is shown
but not run (it needs a GPU, a cluster, the network or an hour). Each page's blocks run in order in one scratch
folder (so a `status` can follow a `run`) that links the checkout's top-level entries (`.venv`, `nbs`, `data`,
`pyproject.toml`, ...), with the venv's `bin/` first on PATH and IN_TEST=1 (notebooks shrink to their test
sizes). Anything a block writes (`runs/`, `my-notebooks/`) lands in the scratch folder, never in the checkout.
A negative control shows each check failing on a page with a broken command, link or name.
"""
import importlib, json, os, re, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"^(`{3,})(\w+)([^\n]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")
NAME = re.compile(r"\bautonorm_explorer(?:\.[A-Za-z_]\w*)+")
RUNNABLE = {"bash": "bash", "sh": "bash", "python": "python"}
BLOCK_TIMEOUT = 900          # seconds: the sweep blocks train one epoch in a fresh kernel


def code_blocks(text: str) -> list[tuple[str, str, bool]]:
    "(language, code, runnable) of every fenced block; runnable unless its info string says `no-run`."
    return [(lang, code, lang in RUNNABLE and "no-run" not in info.split())
            for _, lang, info, code in FENCE.findall(text)]


def prose(text: str) -> str:
    "`text` without its fenced blocks (links and names are checked in prose and in code alike; this is for spans)."
    return FENCE.sub("", text)


def sandbox(tmp: Path) -> Path:
    "A scratch folder that sees the checkout's top-level entries through links (writes stay in the folder)."
    tmp.mkdir(parents=True, exist_ok=True)
    for entry in ROOT.iterdir():
        if entry.name in (".git", "runs", "build", "site", "dist", "my-notebooks") or (tmp / entry.name).exists():
            continue
        (tmp / entry.name).symlink_to(entry)
    return tmp


def run_block(lang: str, code: str, cwd: Path, timeout: float = BLOCK_TIMEOUT) -> subprocess.CompletedProcess:
    "Run one block in `cwd` as the guide's reader would (bash -eu, or the venv's python)."
    env = dict(os.environ, IN_TEST="1", MPLBACKEND="Agg",
               PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    if RUNNABLE[lang] == "bash":
        cmd = ["bash", "-eu", "-c", code]
    else:
        (cwd / "_block.py").write_text(code)
        cmd = [str(ROOT / ".venv" / "bin" / "python"), "_block.py"]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def broken_links(page: Path, text: str | None = None) -> list[str]:
    "Relative link targets of `page` that name no file or folder of the repository."
    text = page.read_text() if text is None else text
    bad = []
    for target in (a or b for a, b in LINK.findall(text)):
        if re.match(r"^([a-z][a-z0-9+.-]*:|#)", target):
            continue
        path = target.partition("#")[0]
        if path and not (page.parent / path).exists():
            bad.append(target)
    return bad


def resolves(name: str) -> bool:
    "True if `autonorm_explorer.a.b.c` is a module, or an attribute reached from the longest module prefix."
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
            return True
        except AttributeError:
            return False
    return False


def unknown_names(text: str) -> list[str]:
    "Every `autonorm_explorer.…` name in `text` that does not resolve (a trailing sentence dot excluded)."
    return sorted({n.rstrip(".") for n in NAME.findall(text) if not resolves(n.rstrip("."))})


def missing_paths(text: str) -> list[str]:
    "Repository paths written as code spans (`nbs/…`, `tests/test_*.py`, …) that match no file."
    spans = re.findall(r"`((?:nbs|scripts|tests|benchmarks|docs|data)/[\w./*<>-]+)`", prose(text))
    return [s for s in spans if "<" not in s and not list(ROOT.glob(s.rstrip("/"))) and not ignored(s)]


def ignored(path: str) -> bool:
    "True for a path git ignores (made by a run, such as `tests/artifacts/`): it need not exist in a checkout."
    return subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", path]).returncode == 0


BLOCKS = [(page, i, lang, code) for page in PAGES
          for i, (lang, code, runnable) in enumerate(code_blocks(page.read_text())) if runnable]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    "One scratch folder per page, made on first use (its blocks run in order there)."
    made = {}
    def get(page: Path) -> Path:
        if page not in made:
            made[page] = sandbox(tmp_path_factory.mktemp(page.stem))
        return made[page]
    return get


@pytest.mark.slow
@pytest.mark.parametrize("page,i,lang,code", BLOCKS, ids=[f"{p.name}:{i}" for p, i, _, _ in BLOCKS])
def test_block_runs(page, i, lang, code, scratch):
    r = run_block(lang, code, scratch(page))
    assert r.returncode == 0, (f"{page.relative_to(ROOT)}, block {i} ({lang}) exited {r.returncode}:\n{code}\n"
                               f"--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}")


def test_every_page_has_runnable_or_marked_blocks():
    "The convention is applied: every shell/python block is either run or says `no-run`; pages show commands."
    langs = {lang for page in PAGES for lang, _, _ in code_blocks(page.read_text())}
    assert langs <= {"bash", "python", "text", "toml"}, langs
    assert len(BLOCKS) >= 10, f"only {len(BLOCKS)} runnable blocks in the guide"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_links_names_and_paths_resolve(page):
    text = page.read_text()
    assert not broken_links(page), f"{page.relative_to(ROOT)}: broken relative links {broken_links(page)}"
    assert not unknown_names(text), f"{page.relative_to(ROOT)}: no such names {unknown_names(text)}"
    assert not missing_paths(text), f"{page.relative_to(ROOT)}: no such files {missing_paths(text)}"


def test_layout_page_lists_every_domain_with_its_imports():
    "The layout page's table of domains says what each `__init__` declares (`MAY_IMPORT`), one row per domain."
    text = (GUIDE / "layout.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", text, re.M))
    domains = sorted(p.parent.name for p in (ROOT / "autonorm_explorer").glob("*/__init__.py")
                     if p.parent.name != "shipped")
    assert sorted(rows) == domains, (sorted(rows), domains)
    for d in domains:
        declared = importlib.import_module(f"autonorm_explorer.{d}").MAY_IMPORT
        written = tuple(re.findall(r"`(\w+)`", rows[d]))
        assert written == tuple(declared), f"layout.md says {d} may import {written}; its __init__ says {declared}"


def test_the_guide_in_the_site_is_the_guide_and_one_measured_page():
    from autonorm_explorer.web.guide import guide_pages
    pages = dict(guide_pages(ROOT, "https://github.com/me/fork"))
    assert set(pages) == {f"guide/{p.stem}" for p in GUIDE.glob("*.md")} | {"guide/measured"}
    for name, text in pages.items():
        assert "](../../" not in text, f"{name}: a link leaving the guide was not pointed at the repository"
        assert not re.search(r"^`{3,}\w+[ \t]+no-run", text, re.M), f"{name}: a `no-run` fence tag left in the site"


def test_committed_measurements_page_is_generated_from_results():
    "docs/guide/measured.md is what `measured_page` makes of benchmarks/results.json (run_all.py writes both)."
    from autonorm_explorer.web.guide import measured_page
    res = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    assert res["date"] and res["commit"] and res["machine"]["cpu"], "results.json says when, where and at what commit"
    assert res["benchmarks"] and all(b["returncode"] == 0 for b in res["benchmarks"]), "a committed run that failed"
    assert (GUIDE / "measured.md").read_text() == measured_page(ROOT, last_test=False) + "\n", \
        "docs/guide/measured.md is stale: run python benchmarks/run_all.py --page-only"


def test_prose_quotes_no_measured_times():
    "Times measured on a machine (ms, s, minutes) live on the measurements page only, not in hand-written prose."
    pattern = re.compile(r"\d+(?:\.\d+)?[–-]\d+(?:\.\d+)?\s?(?:ms|s)\b"          # a measured range: 66–76 ms
                         r"|\d+(?:\.\d+)?\s?(?:ms|s|min) measured|\d+ min \d+ s"  # 177 s measured, 14 min 7 s
                         r"|measured[^.]{0,40}?\d+(?:\.\d+)?\s?(?:ms|s|MiB|MB)\b")
    for page in PAGES:
        if page.name == "measured.md":
            continue
        hits = pattern.findall(prose(page.read_text()))
        assert not hits, f"{page.relative_to(ROOT)} quotes measured times {hits}: link to measured.md instead"


def test_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 130, f"README.md has {len(text.splitlines())} lines"
    first = code_blocks(text)[0][1].split()
    assert first[:2] == ["make", "demo"] and "make" in first[2:] and "test" in first, first
    images = re.findall(r"(?:!\[[^\]]+\]\(|<img src=\")([^)\"]+\.png)", text)
    assert len(images) >= 2, images
    for img in images:
        size = (ROOT / img).stat().st_size
        assert 0 < size < 300_000, f"{img}: {size} bytes"
        assert (ROOT / img).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", img
    for page in sorted(GUIDE.glob("*.md")):
        assert f"docs/guide/{page.name}" in text or page.stem in ("index", "measured", "background"), \
            f"the README does not link docs/guide/{page.name}"


def test_negative_control_a_broken_page_fails_every_check(tmp_path):
    "Each check fails on a page that breaks it, so a green run means something."
    page = tmp_path / "docs" / "guide" / "broken.md"
    page.parent.mkdir(parents=True)
    (tmp_path / "docs" / "guide" / "real.md").write_text("# real\n")
    page.write_text("# Broken\n\n[fine](real.md) [gone](nowhere.md) [web](https://example.org/x.md)\n\n"
                    "`autonorm_explorer.rank.propagation.rank_profile` and `autonorm_explorer.rank.no_such_name`\n\n"
                    "```bash\nautonorm-sweep run no-such-grid --workers 1\n```\n\n"
                    "```bash no-run\nexit 3\n```\n\n```python\nimport autonorm_explorer.no_such_module\n```\n")
    text = page.read_text()
    assert broken_links(page) == ["nowhere.md"]
    assert unknown_names(text) == ["autonorm_explorer.no_such_module", "autonorm_explorer.rank.no_such_name"]
    assert missing_paths("`nbs/no_such_notebook.ipynb` and `nbs/index.ipynb`") == ["nbs/no_such_notebook.ipynb"]
    blocks = code_blocks(text)
    assert [(lang, runnable) for lang, _, runnable in blocks] == [("bash", True), ("bash", False), ("python", True)]
    box = sandbox(tmp_path / "box")
    for lang, code, runnable in blocks:
        if runnable:
            r = run_block(lang, code, box, timeout=300)
            assert r.returncode != 0, f"a broken block passed:\n{code}\n{r.stdout}{r.stderr}"
    assert not (ROOT / "runs" / "sweeps" / "no-such-grid").exists()
    ok = run_block("bash", "test -L nbs && test ! -e runs && echo $IN_TEST", box)
    assert ok.returncode == 0 and ok.stdout.strip() == "1", ok


@pytest.mark.slow
def test_the_site_renders_the_guide_under_its_own_section(tmp_path):
    "build_site puts every guide page in the site, in a 'User guide' section, with links that resolve there."
    import nbformat
    from autonorm_explorer.web.site import build_site
    # the landing page as a finished `make demo` copy of itself (its code unchanged), so nothing needs a kernel
    nb = nbformat.read(ROOT / "nbs" / "index.ipynb", as_version=4)
    nb.metadata["papermill"] = {"input_path": str(ROOT / "nbs" / "index.ipynb")}
    (tmp_path / "demo" / "notebooks").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "demo" / "notebooks" / "index.ipynb")
    summary = build_site(out=tmp_path / "site", nbs=ROOT / "nbs", demo=tmp_path / "demo", build=tmp_path / "build",
                         pyproject=ROOT / "pyproject.toml", sections={}, figures="none", api=False, log=lambda *_: None)
    site = tmp_path / "site"
    want = sorted(f"guide/{p.stem}.html" for p in GUIDE.glob("*.md"))
    assert [p for p in summary["pages"] if p.startswith("guide/")] == want
    index = (site / "index.html").read_text()
    assert "User guide" in index and 'href="guide/slurm.html"' in index
    for page in want:
        html = (site / page).read_text()
        for href in re.findall(r'href="([^"#:]+\.html)', html):
            assert (site / page).parent.joinpath(href).resolve().exists(), f"{page}: broken link {href} in the site"
    slurm = re.sub(r"<[^>]+>", "", (site / "guide" / "slurm.html").read_text())
    assert "autonorm-sweep run paper --executor submitit" in slurm and "no-run" not in slurm
    assert "What is measured here" in (site / "guide" / "measured.html").read_text()
