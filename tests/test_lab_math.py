"""A lesson's formulas typeset in JupyterLab (`make lab`) with no network.

JupyterLab ships its own MathJax in its static files; this checks that it really is what typesets the
course offline. Lesson 3 (the norm-placement derivation) is opened, without running it, in headless
Chromium with every request that leaves 127.0.0.1 aborted; after MathJax has worked, the rendered
markdown must hold typeset formulas and no raw TeX fragment (the same RAW_TEX the site's check counts).
The negative control renders a markdown cell with TeX outside any delimiter: it stays raw and is counted,
while its $x^2$ beside it typesets.
Skipped only when chromium or playwright is missing and CI is not "true".
"""
import json
import re
from pathlib import Path

import pytest

from browser_support import ARTIFACTS, RAW_TEX, chromium, jupyter_lab

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "nbs" / "course" / "03_norm_placement.ipynb"

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Rendered markdown as a reader sees it: typeset formulas (mjx-container) removed, code removed.
MARKDOWN_TEXT_JS = r"""() => {
  const cells = [...document.querySelectorAll('.jp-MarkdownOutput')];
  const formulas = cells.reduce((n, c) => n + c.querySelectorAll('mjx-container').length, 0);
  const text = cells.map(c => { const k = c.cloneNode(true);
      k.querySelectorAll('mjx-container, code, pre, script').forEach(e => e.remove());
      return k.innerText; }).join('\n');
  return {cells: cells.length, formulas, text};
}"""

CONTROL = {"cells": [{"cell_type": "markdown", "id": "c0", "metadata": {},
                      "source": "raw on purpose: \\frac{a}{b} outside any delimiter, and $x^2$"}],
           "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _rendered(page, lab, name, wait_formulas):
    "Open `name` in lab offline; return the markdown's text and formula count once MathJax is done."
    page.goto(f"{lab['url']}/lab/tree/{name}?reset&token={lab['token']}", timeout=120_000)
    page.locator(".jp-MarkdownOutput").first.wait_for(timeout=120_000)
    page.wait_for_function(f"""() => document.querySelectorAll('.jp-MarkdownOutput mjx-container').length
                                    >= {wait_formulas}""", timeout=120_000)
    page.wait_for_timeout(1500)                           # the last cells' typesetting settles
    return page.evaluate(MARKDOWN_TEXT_JS)


def test_lesson_formulas_typeset_in_jupyterlab_offline(tmp_path):
    lesson = json.loads(LESSON.read_text())
    source = "\n".join("".join(c["source"]) for c in lesson["cells"] if c["cell_type"] == "markdown")
    expected = len(re.findall(r"(?<!\\)\$", source)) // 2 // 2      # at least a quarter of the $ pairs
    with jupyter_lab(tmp_path, {"lesson.ipynb": lesson, "control.ipynb": CONTROL}) as lab, chromium() as b:
        page = b.new_page(viewport={"width": 1280, "height": 900})
        failed = []
        page.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/]|data:|blob:)"),
                   lambda route: (failed.append(route.request.url), route.abort()))
        got = _rendered(page, lab, "lesson.ipynb", max(1, expected))
        page.screenshot(path=ARTIFACTS / "lab_lesson_math.png")
        raw = RAW_TEX.findall(got["text"])
        assert got["formulas"] >= expected, got["formulas"]
        assert not raw, f"raw TeX left in the lesson as JupyterLab renders it: {raw[:10]}"
        assert not failed, f"requests off the machine (aborted): {failed[:5]}"
        control = _rendered(page, lab, "control.ipynb", 1)  # $x^2$ typesets; the bare \\frac stays TeX
        assert control["formulas"] == 1 and RAW_TEX.findall(control["text"]) == ["\\frac"], control
