"""Measure the shape of the exported code: the figures house-keeping reviews track.

    python scripts/style_report.py            # a table on stdout
    python scripts/style_report.py --json     # the same, machine-readable

Per exported cell (a code cell whose first line is `#| export` or `#| exporti`): its line count and how
many top-level definitions (def / class / assignment to an UPPER_CASE or public name) it holds.
Per generated module: semicolon-joined statements and lines over 100 characters. Import cycles between
the package's modules (any import, lazy ones inside functions included).
"""
import ast, json, statistics, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_graph import cycles, import_graph  # noqa: E402  (the graph tests/test_package_shape.py checks)

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "autonorm_explorer"
EXPORT_FLAGS = ("#| export", "#|export", "#| exporti", "#|exporti", "#| exports", "#|exports")


def exported_cells(nb_path):
    nb = json.loads(nb_path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        first = src.lstrip().splitlines()[0] if src.strip() else ""
        if first.startswith(EXPORT_FLAGS):
            yield src


def top_level_definitions(src):
    body = "\n".join(l for l in src.splitlines() if not l.lstrip().startswith("#|"))
    try:
        tree = ast.parse(body)
    except SyntaxError:
        return 0
    n = 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            n += 1
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            n += sum(1 for name in names if not name.startswith("_"))
    return n


def semicolon_statements(path):
    tree = ast.parse(path.read_text())
    lines = path.read_text().splitlines()
    count = 0
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for a, b in zip(stmts, stmts[1:]):
                if isinstance(a, ast.stmt) and isinstance(b, ast.stmt) and a.end_lineno == b.lineno:
                    count += 1
    return count


def measure():
    cells = [c for nb in sorted((ROOT / "nbs").glob("*.ipynb")) for c in exported_cells(nb)]
    sizes = [len([l for l in c.splitlines() if l.strip() and not l.lstrip().startswith("#|")]) for c in cells]
    multi = [top_level_definitions(c) > 1 for c in cells]
    mods = [p for p in sorted(PKG.rglob("*.py")) if p.name != "_modidx.py" and "shipped" not in p.parts]
    lines = [l for p in mods for l in p.read_text().splitlines()]
    graph = import_graph(PKG)
    return {
        "exported cells": len(cells),
        "median lines per exported cell": statistics.median(sizes) if sizes else 0,
        "share of exported cells defining more than one thing": round(sum(multi) / max(len(cells), 1), 3),
        "semicolon-joined statements": sum(semicolon_statements(p) for p in mods),
        "lines in modules": len(lines),
        "share of lines over 100 characters": round(sum(len(l) > 100 for l in lines) / max(len(lines), 1), 3),
        "longest line": max(len(l) for l in lines),
        "import cycles": [" -> ".join(c) for c in cycles(graph)],
    }


if __name__ == "__main__":
    figures = measure()
    if "--json" in sys.argv:
        print(json.dumps(figures, indent=1))
    else:
        for k, v in figures.items():
            print(f"{k:55s} {v}")
