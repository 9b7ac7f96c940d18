"""The shape of the package: the style check, no import cycles, a domain order (each domain's `MAY_IMPORT`) no import climbs,
the shipped files as links to their one source, and typed papermill parameters.

`scripts/run_tests.sh` runs this file as its own step of `make test`, before the notebooks run.
"""
import ast, importlib, json, subprocess, sys, tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from import_graph import PKG, cycles, domain, import_graph  # noqa: E402

LIMIT = 120   # characters per line of code we write (ruff allows nbdev's generated `__all__` 130: pyproject.toml)


def domains() -> dict[str, tuple[str, ...]]:
    """Each domain (a folder of the package with an `__init__.py`) -> the domains its `__init__` says it may
    import (`MAY_IMPORT`), read from the source: the layer order is the tree, not a table kept here."""
    out = {}
    for init in sorted(PKG.glob("*/__init__.py")):
        for node in ast.parse(init.read_text()).body:
            target = getattr(node, "target", None) or (node.targets[0] if isinstance(node, ast.Assign) else None)
            if getattr(target, "id", None) == "MAY_IMPORT":
                out[init.parent.name] = tuple(ast.literal_eval(node.value))
        assert init.parent.name in out, f"{init} declares no MAY_IMPORT"
    return out


def test_every_module_lives_in_a_domain():
    "No module at the top of the package: each belongs to a domain folder (the top holds only `__init__`)."
    top = sorted(p.name for p in PKG.glob("*.py") if p.name not in ("__init__.py", "_modidx.py"))
    assert not top, f"modules outside every domain (move them into one): {top}"
    assert set(map(domain, import_graph())) == set(domains())


def test_domains_form_an_order():
    "MAY_IMPORT names real domains and has no cycle: every domain sits above the ones it may import."
    decl = domains()
    unknown = {d: sorted(set(m) - set(decl)) for d, m in decl.items() if set(m) - set(decl) or d in m}
    assert not unknown, f"MAY_IMPORT names unknown domains or the domain itself: {unknown}"
    as_graph = {d: set(m) for d, m in decl.items()}
    assert not cycles(as_graph), f"the domains' MAY_IMPORT has a cycle: {cycles(as_graph)}"
    for d, m in decl.items():       # "below" is transitive: what a lower domain may import, d may too
        for lower in m:
            assert set(decl[lower]) <= set(m), f"{d} may import {lower} but not all that {lower} may: {decl[lower]}"


def test_no_import_cycles():
    "Lazy imports inside functions count: a cycle that only bites later is still a cycle."
    found = [" -> ".join(c) for c in cycles(import_graph())]
    assert not found, f"import cycles between the package's modules: {found}"


def upward_imports(graph: dict[str, set[str]], decl: dict[str, tuple[str, ...]]) -> list[str]:
    "Each import of a module into a domain its own domain may not import."
    return [f"{m} imports {d} ({domain(m)} may import: {', '.join(decl[domain(m)]) or 'nothing'})"
            for m in sorted(graph) for d in sorted(graph[m]) if domain(d) not in (domain(m), *decl[domain(m)])]


def test_no_module_imports_above_its_domain():
    upward = upward_imports(import_graph(), domains())
    assert not upward, "imports that climb the domain order (move the shared code down): " + "; ".join(upward)


def test_domain_order_check_can_fail():
    "The checker itself: a module of a low domain importing a high one is reported."
    graph = import_graph()
    graph["core.validation"] = graph["core.validation"] | {"web.site"}
    assert upward_imports(graph, domains()) == [
        "core.validation imports web.site (core may import: nothing)"]


def test_import_graph_sees_lazy_and_relative_imports(tmp_path):
    "The checker itself: an import inside a function, relative imports at two levels and import_module count."
    pkg = tmp_path / "autonorm_explorer"
    (pkg / "x").mkdir(parents=True)
    (pkg / "y").mkdir()
    for f in ("__init__.py", "x/__init__.py", "y/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "x" / "a.py").write_text("def f():\n    from autonorm_explorer.x.b import g\n    return g\n")
    (pkg / "x" / "b.py").write_text("from ..y.c import h\n")
    (pkg / "y" / "c.py").write_text("import importlib\nm = importlib.import_module('autonorm_explorer.x.a')\n")
    (pkg / "y" / "d.py").write_text("import autonorm_explorer.core.validation\nfrom . import c\n")
    graph = import_graph(pkg)
    assert graph == {"x": set(), "y": set(), "x.a": {"x.b"}, "x.b": {"y.c"}, "y.c": {"x.a"}, "y.d": {"y", "y.c"}}
    assert cycles(graph) == [["x.a", "x.b", "y.c", "x.a"]]


@pytest.mark.parametrize("name", sorted(domains()))
def test_domain_reexports_resolve(name):
    """Importing a domain imports none of its modules; each name it re-exports is the object its one defining
    module holds (a fresh interpreter per domain, so nothing was imported before)."""
    code = (f"import importlib, pathlib, sys, autonorm_explorer.{name} as pkg\n"
            "from autonorm_explorer.core.exports import public_names\n"
            "loaded = [m for m in sys.modules if m.startswith(pkg.__name__ + '.') and m != 'autonorm_explorer.core.exports']\n"
            "assert not loaded, loaded\n"
            "names = public_names(pathlib.Path(pkg.__file__).parent)\n"
            "for n in pkg.__all__:\n"
            "    (m,) = names[n]\n"
            "    assert getattr(pkg, n) is getattr(importlib.import_module(f'{pkg.__name__}.{m}'), n), n\n"
            "print(len(pkg.__all__))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert int(r.stdout.split()[-1]) > 0


def test_first_names_resolve_and_import_lazily():
    "`import autonorm_explorer` imports no torch; each first name resolves to its defining module's object."
    code = ("import sys, importlib, autonorm_explorer as ae\n"
            "assert 'torch' not in sys.modules and 'papermill' not in sys.modules, sorted(sys.modules)[:50]\n"
            "for n, m in ae.FIRST_NAMES.items():\n"
            "    assert getattr(ae, n) is getattr(importlib.import_module('autonorm_explorer.' + m), n), n\n"
            "assert sorted(ae.__all__) == sorted(ae.FIRST_NAMES)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


def test_ruff_is_clean():
    "No semicolon chains, the line limit, no undefined or unused local names (rules in pyproject.toml)."
    ruff = Path(sys.executable).with_name("ruff")
    r = subprocess.run([str(ruff), "check", "--no-cache", "autonorm_explorer"], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, f"ruff check autonorm_explorer:\n{r.stdout[-6000:]}{r.stderr[-2000:]}"


def _generated_all_lines(path: Path) -> set[int]:
    "Line numbers of the `__all__ = [...]` that nbdev writes."
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return set(range(node.lineno, node.end_lineno + 1))
    return set()


def test_written_lines_within_the_limit():
    long = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name == "_modidx.py" or path == PKG / "__init__.py":   # nbdev writes the docstring
            continue
        skip = _generated_all_lines(path)
        long += [f"{path.relative_to(PKG)}:{i} ({len(line)})" for i, line in enumerate(path.read_text().splitlines(), 1)
                 if len(line) > LIMIT and i not in skip]
    assert not long, f"lines over {LIMIT} characters: {long[:40]}{' ...' if len(long) > 40 else ''}"


def test_shipped_files_are_links_to_their_one_source():
    "autonorm_explorer/shipped holds only relative links into the checkout: no second copy to keep in step."
    shipped = PKG / "shipped"
    entries = [p for p in shipped.rglob("*") if p.is_symlink() or not p.is_dir()]
    assert entries
    for p in entries:
        assert p.is_symlink(), f"{p} is a copy, not a link: link it to its source instead"
        target = p.readlink()
        assert not target.is_absolute(), f"{p} -> {target} must be relative (it is committed)"
        assert ROOT in p.resolve().parents and p.resolve().exists(), f"{p} -> {target} leaves the checkout or dangles"


def test_package_data_patterns_match_resources():
    "pyproject's package-data and resources.NOTEBOOK_GLOBS name the same files (the wheel test builds one)."
    from autonorm_explorer.core.resources import NOTEBOOK_GLOBS, RESULTS_GLOBS
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = set(data["autonorm_explorer"])
    assert patterns == ({"shipped/manifest.json"} | {f"shipped/notebooks/{g}" for g in NOTEBOOK_GLOBS}
                        | {f"shipped/results/{g}" for g in RESULTS_GLOBS})


def _parameters_cells():
    for nb in sorted((ROOT / "nbs").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb.parts:
            continue
        for cell in json.loads(nb.read_text())["cells"]:
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                yield nb, "".join(cell["source"])


@pytest.mark.parametrize("nb,source", list(_parameters_cells()), ids=lambda x: getattr(x, "name", ""))
def test_parameters_are_typed_and_explained(nb, source):
    """papermill reads every parameter of the cell with its annotated type and its comment as help (a line it
    cannot parse, such as one with a second `=` in the comment, it skips silently: then `run_notebook` would
    refuse that parameter as undeclared)."""
    import papermill as pm
    tree = ast.parse(source)
    assert all(isinstance(n, ast.AnnAssign) for n in tree.body), f"unannotated: {ast.unparse(tree)[:300]}"
    declared = {n.target.id: ast.unparse(n.annotation) for n in tree.body}
    seen = pm.inspect_notebook(str(nb))
    assert {k: v["inferred_type_name"] for k, v in seen.items()} == declared
    assert all(v["help"] for v in seen.values()), [k for k, v in seen.items() if not v["help"]]


def test_index_library_map_lists_every_module():
    "The landing page's library map links every module, by its dotted name, to the notebook that defines it."
    import re
    defined = {}
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        m = re.search(r"#\|\s*default_exp\s+([\w.]+)", nb.read_text())
        if m:
            defined[m.group(1)] = nb.name
    index = "".join("".join(c["source"]) for c in json.loads((ROOT / "nbs" / "index.ipynb").read_text())["cells"])
    linked = dict(re.findall(r"\[`([\w.]+)`\]\((\d\d_\w+\.ipynb)\)", index))
    assert linked == defined, {"missing": sorted(set(defined) - set(linked)),
                               "wrong or extra": sorted(k for k in linked if linked[k] != defined.get(k))}
