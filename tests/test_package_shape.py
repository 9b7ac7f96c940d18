"""The shape of the package: the style check, no import cycles, a declared layer order no import climbs,
the shipped files as links to their one source, and typed papermill parameters.

`scripts/run_tests.sh` runs this file as its own step of `make test`, before the notebooks run.
"""
import ast, json, subprocess, sys, tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from import_graph import PKG, cycles, import_graph  # noqa: E402

# Lowest first. A module may import modules of its own layer and of the layers below, never of a layer
# above; within a layer the cycle test keeps the imports one-way. A new module gets a row here.
LAYERS = [
    ("foundation", ["utils", "resources", "claims", "checking"]),
    ("commands", ["cli", "runner"]),
    ("rank", ["norm_registry", "spectra", "resmlp", "branch", "propagation", "paths"]),
    ("norms", ["norms", "autonorm", "schedule", "gates", "autonormify"]),
    ("models", ["models", "block_rank"]),
    ("data", ["datasources", "formats", "metrics", "data", "augment", "corruptions"]),
    ("training", ["stats", "train", "report", "experiment", "sweep"]),
    ("teaching", ["exercises_rank", "exercises_depth", "exercises_autonorm", "diagrams", "webfigures"]),
    ("interfaces", ["widget_core", "widgets", "gate_widgets", "app", "demo", "docsite"]),
]
LAYER_OF = {m: i for i, (_, mods) in enumerate(LAYERS) for m in mods}
LIMIT = 120   # characters per line of code we write (ruff allows nbdev's generated `__all__` 130: pyproject.toml)


def test_layer_table_names_each_module_once():
    listed = [m for _, mods in LAYERS for m in mods]
    assert len(listed) == len(set(listed)), "a module is listed in two layers"


def test_every_module_has_a_layer():
    missing = sorted(set(import_graph()) - set(LAYER_OF))
    assert not missing, f"modules without a row in LAYERS (tests/test_package_shape.py): {missing}"


def test_no_import_cycles():
    "Lazy imports inside functions count: a cycle that only bites later is still a cycle."
    found = [" -> ".join(c) for c in cycles(import_graph())]
    assert not found, f"import cycles between the package's modules: {found}"


def test_no_module_imports_above_its_layer():
    graph = import_graph()
    upward = [f"{m} ({LAYERS[LAYER_OF[m]][0]}) imports {d} ({LAYERS[LAYER_OF[d]][0]})"
              for m in sorted(graph) for d in sorted(graph[m])
              if m in LAYER_OF and d in LAYER_OF and LAYER_OF[d] > LAYER_OF[m]]
    assert not upward, "imports that climb the layer order (move the shared code down): " + "; ".join(upward)


def test_import_graph_sees_lazy_and_relative_imports(tmp_path):
    "The checker itself: an import inside a function, a relative import and import_module all count."
    pkg = tmp_path / "autonorm_explorer"
    pkg.mkdir()
    (pkg / "a.py").write_text("def f():\n    from autonorm_explorer.b import g\n    return g\n")
    (pkg / "b.py").write_text("from .c import h\n")
    (pkg / "c.py").write_text("import importlib\nm = importlib.import_module('autonorm_explorer.a')\n")
    (pkg / "d.py").write_text("import autonorm_explorer.utils\n")
    graph = import_graph(pkg)
    assert graph == {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert cycles(graph) == [["a", "b", "c", "a"]]


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
    for path in sorted(PKG.glob("*.py")):
        if path.name in ("_modidx.py", "__init__.py"):     # nbdev writes both whole
            continue
        skip = _generated_all_lines(path)
        long += [f"{path.name}:{i} ({len(line)})" for i, line in enumerate(path.read_text().splitlines(), 1)
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
    from autonorm_explorer.resources import NOTEBOOK_GLOBS
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = set(data["autonorm_explorer"])
    assert patterns == {"shipped/manifest.json"} | {f"shipped/notebooks/{g}" for g in NOTEBOOK_GLOBS}


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
