"""The import graph between the package's modules, for `style_report.py` and `tests/test_package_shape.py`.

Modules are named by their dotted path inside the package (`rank.spectra`); a module's domain is the first
part (`rank`). Every import counts, lazy ones inside functions included (an import cycle hidden in a function
body is still a cycle: it only fails later, and in a different order of imports), relative imports at any
level, and `importlib.import_module("autonorm_explorer.x.y")` with a literal name.

    python scripts/import_graph.py     # each module and what it imports; then the cycles, if any
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "autonorm_explorer"
GENERATED = ("_modidx.py",)


def package_modules(pkg: Path = PKG) -> dict[str, Path]:
    "Dotted module name -> file, for every module of the package but `_modidx` (a package is its `__init__`)."
    out = {}
    for p in sorted(pkg.rglob("*.py")):
        rel = p.relative_to(pkg)
        if p.name in GENERATED or "shipped" in rel.parts or rel == Path("__init__.py"):
            continue
        parts = rel.with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _resolve(current: str, is_package: bool, level: int, module: str | None) -> str:
    "The absolute dotted name (inside the package) that a relative import of `level` dots means in `current`."
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *(module.split(".") if module else [])])


def module_imports(path: Path, name: str = "", package: str = "autonorm_explorer") -> set[str]:
    "Dotted names inside the package that the module `name` (at `path`) imports anywhere; may name non-modules."
    tree = ast.parse(path.read_text())
    is_pkg, found = path.name == "__init__.py", set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level >= 1:
                mod = _resolve(name, is_pkg, node.level, node.module)
            elif (node.module or "") == package or (node.module or "").startswith(package + "."):
                mod = node.module[len(package) + 1:]
            else:
                continue
            found.update(f"{mod}.{a.name}" if mod else a.name for a in node.names)
            if mod: found.add(mod)
        elif isinstance(node, ast.Import):
            found.update(a.name[len(package) + 1:] for a in node.names if a.name.startswith(package + "."))
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and node.args[0].value.startswith(package + ".")):
            found.add(node.args[0].value[len(package) + 1:])
    return found


def import_graph(pkg: Path = PKG) -> dict[str, set[str]]:
    "Module -> the package's modules it imports (itself left out). `from .x import name` counts as importing x."
    mods = package_modules(pkg)
    return {name: (module_imports(path, name) & set(mods)) - {name} for name, path in mods.items()}


def domain(module: str) -> str:
    "The domain of a dotted module name: its first part (`rank.spectra` -> `rank`)."
    return module.split(".")[0]


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    "Tarjan's strongly connected components with more than one module: each is a set of modules in a cycle."
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def cycle_through(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    "One shortest import cycle inside `component`, as a path that ends where it starts."
    comp, best = set(component), []
    for start in sorted(comp):
        paths, seen = [[start]], {start}
        while paths:                                     # breadth first: the first way back is a shortest one
            path = paths.pop(0)
            nxt = sorted(graph[path[-1]] & comp)
            if start in nxt:
                if not best or len(path) + 1 < len(best):
                    best = path + [start]
                break
            for w in nxt:
                if w not in seen:
                    seen.add(w)
                    paths.append(path + [w])
    return best


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    "One shortest cycle per strongly connected component (each module set in a cycle is reported once)."
    return [cycle_through(graph, comp) for comp in strongly_connected(graph)]


if __name__ == "__main__":
    g = import_graph()
    for name in sorted(g):
        print(f"{name:20s} -> {', '.join(sorted(g[name])) or '-'}")
    for c in cycles(g):
        print("cycle:", " -> ".join(c))
