"""The README's screenshots, taken from a built site (make docs) in headless Chromium, offline.

    .venv/bin/python docs/images/screenshots.py site docs/images [OFFSET]

lesson.png: the top of lesson 1 (or, with OFFSET, its first figure OFFSET pixels below the top of the window);
explorer.png: the rank explorer's snapshot on the explorers page. Each is quantized to stay under 300 kB.
"""
import io, sys
from pathlib import Path
from PIL import Image
from playwright.sync_api import sync_playwright

site, out = Path(sys.argv[1]), Path(sys.argv[2])
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]

def save(png: bytes, dest: Path, width: int = 1000):
    im = Image.open(io.BytesIO(png)).convert("RGB")
    if im.width > width: im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
    for colors in (256, 128, 64):
        buf = io.BytesIO(); im.quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(buf, "PNG", optimize=True)
        if buf.tell() < 290_000: break
    dest.write_bytes(buf.getvalue()); print(dest, buf.tell(), im.size)

with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
    pg = b.new_page(viewport={"width": 1280, "height": 820})
    pg.goto((site / "course" / "01_effective_rank.html").as_uri()); pg.wait_for_load_state("networkidle")
    # a derivation with its figure: scroll to the first figure of the lesson, a little above it
    offset = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    if offset >= 0:
        pg.evaluate(f"""() => {{ const im = document.querySelector('article img');
                           if (im) window.scrollTo(0, im.getBoundingClientRect().top + window.scrollY - {offset}); }}""")
    pg.wait_for_timeout(500)
    save(pg.screenshot(), out / "lesson.png")
    pg.goto((site / "explorers.html").as_uri()); pg.wait_for_load_state("networkidle")
    el = pg.query_selector("img[alt='explorer figure']")
    el.scroll_into_view_if_needed(); pg.wait_for_timeout(300)
    box = el.bounding_box()
    save(pg.screenshot(clip=dict(x=max(0, box["x"] - 20), y=box["y"], width=min(box["width"] + 40, 1280),
                                 height=box["height"] + 80)), out / "explorer.png")
    b.close()
