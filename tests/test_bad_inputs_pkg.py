"""Bad inputs of the packaging and command-line entry points: shipped files, the notebook runner, the demo, the
docs site, the app and the `autonorm-explorer` command. Nothing here executes a notebook or trains."""
import contextlib, io, json, os, sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from bad_inputs import Bad, case_ids, check  # noqa: E402

from autonorm_explorer.core import cli, notebooks, resources  # noqa: E402
from autonorm_explorer.experiments import demo  # noqa: E402
from autonorm_explorer.web import app, site  # noqa: E402
from autonorm_explorer.data.sources import DatasetFormatError, load_manifest  # noqa: E402

TMP = Path(__import__("tempfile").mkdtemp(prefix="bad_inputs_pkg_"))


def tiny_notebook() -> Path:
    "A notebook whose parameters cell declares `n` and `out_dir`."
    p = TMP / "tiny.ipynb"
    if not p.exists():
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("n: int = 2  # how many\nout_dir: str = '.'  # where",
                                              metadata={"tags": ["parameters"]})]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, p)
    return p


def a_file(name: str, text: str = "x") -> Path:
    p = TMP / name
    p.write_text(text)
    return p


def copied_once(name: str) -> Path:
    "A folder that already holds a copy of the shipped notebooks."
    d = TMP / name
    if not d.exists():
        resources.copy_notebooks(d, log=lambda s: None)
    return d


def cli_run(main, *argv):
    "Run a console entry point; its SystemExit comes back carrying the exit code and what it wrote on stderr."
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            main([str(a) for a in argv])
    except SystemExit as e:
        raise SystemExit(f"exit {e.code}: {err.getvalue()}") from None


def truncated_manifest() -> Path:
    return a_file("manifest.json", resources.shipped_path("manifest.json").read_text()[:300])


CASES = [
    # resources
    Bad("shipped_path", "a file the package does not ship", lambda: resources.shipped_path("nothing.json"),
        ("nothing.json", "not shipped")),
    Bad("copy_notebooks", "dest is None", lambda: resources.copy_notebooks(None), ("dest=None", "folder path")),
    Bad("copy_notebooks", "dest is a file", lambda: resources.copy_notebooks(a_file("plain.txt")),
        ("plain.txt", "is a file")),
    Bad("copy_notebooks", "files already there, no force", lambda: resources.copy_notebooks(copied_once("twice")),
        ("twice", "force", "nothing was copied")),
    Bad("copy_notebooks", "force='no' (a string)", lambda: resources.copy_notebooks(TMP / "x", force="no"),
        ("force='no'", "True or False")),
    # autonorm-explorer
    Bad("autonorm-explorer", "no subcommand", lambda: cli_run(cli.explorer_main), ("exit 2", "required")),
    Bad("autonorm-explorer", "unknown subcommand", lambda: cli_run(cli.explorer_main, "notebook", "d"),
        ("exit 2", "'notebook'", "notebooks")),
    Bad("autonorm-explorer notebooks", "no DIR", lambda: cli_run(cli.explorer_main, "notebooks"), ("exit 2", "DIR")),
    Bad("autonorm-explorer notebooks", "DIR already holds them",
        lambda: cli_run(cli.explorer_main, "notebooks", copied_once("again")), ("exit 2", "again", "--force")),
    Bad("autonorm-explorer notebooks", "DIR is a file",
        lambda: cli_run(cli.explorer_main, "notebooks", a_file("file.txt")), ("exit 2", "file.txt", "is a file")),
    # runner
    Bad("notebook_parameters", "a notebook that does not exist", lambda: notebooks.notebook_parameters(TMP / "no.ipynb"),
        ("no.ipynb", "does not exist")),
    Bad("notebook_parameters", "path is None", lambda: notebooks.notebook_parameters(None), ("path=None",)),
    Bad("validate_parameters", "a misspelled parameter", lambda: notebooks.validate_parameters(tiny_notebook(), {"m": 1}),
        ("'m'", "'n'", "'out_dir'")),
    Bad("validate_parameters", "parameters as a string", lambda: notebooks.validate_parameters(tiny_notebook(), "n=3"),
        ("parameters='n=3'", "dict")),
    Bad("run_notebook", "a misspelled kernel", lambda: notebooks.run_notebook(tiny_notebook(), TMP / "o.ipynb",
                                                                          kernel_name="pyhton3"),
        ("'pyhton3'", "python3")),
    Bad("run_notebook", "timeout 0", lambda: notebooks.run_notebook(tiny_notebook(), TMP / "o.ipynb", timeout=0),
        ("timeout", "0")),
    Bad("check_kernel", "a kernel that is not installed", lambda: notebooks.check_kernel("nope"), ("'nope'", "python3")),
    # demo
    Bad("demo_notebooks", "a folder that does not exist", lambda: demo.demo_notebooks(TMP / "absent"),
        ("absent", "autonorm-explorer notebooks DIR")),
    Bad("demo_notebooks", "tutorials as one string", lambda: demo.demo_notebooks(TMP, "rank_claims"),
        ("tutorials='rank_claims'", "list")),
    Bad("demo_experiments", "a grid that does not exist", lambda: demo.demo_experiments(TMP / "demo", grid="nope"),
        ("'nope'", "cpu-small")),
    Bad("autonorm-demo", "--nbs folder missing", lambda: cli_run(demo.demo_main, "--nbs", TMP / "absent"),
        ("exit 2", "absent")),
    Bad("autonorm-demo", "an unknown flag", lambda: cli_run(demo.demo_main, "--fast"), ("exit 2", "--fast")),
    # docsite
    Bad("autonorm-docs", "--figures huge", lambda: cli_run(site.docs_main, "--figures", "huge"),
        ("exit 2", "'huge'", "full", "small", "none")),
    Bad("autonorm-docs", "--workers two", lambda: cli_run(site.docs_main, "--workers", "two"),
        ("exit 2", "'two'")),
    Bad("build_site", "workers=0", lambda: site.build_site(TMP / "site", workers=0), ("workers", "0")),
    Bad("build_site", "figures='huge'", lambda: site.build_site(TMP / "site", figures="huge"),
        ("'huge'", "full")),
    Bad("repository_url", "pyproject without [project.urls]",
        lambda: site.repository_url(a_file("pyproject.toml", "[project]\nname = 'x'\n")), ("Repository", "OWNER")),
    # app
    Bad("autonorm-app", "--notebook missing", lambda: cli_run(app.app_main, "--notebook", TMP / "no_app.ipynb"),
        ("exit 2", "no_app.ipynb", "does not exist")),
    Bad("autonorm-app", "--port 70000", lambda: cli_run(app.app_main, "--port", "70000"), ("exit 2", "70000")),
    Bad("autonorm-app", "--port abc", lambda: cli_run(app.app_main, "--port", "abc"), ("exit 2", "'abc'")),
    Bad("voila_command", "port 0", lambda: app.voila_command("app.ipynb", 0), ("port", "0")),
    Bad("voila_command", "cull_idle -1", lambda: app.voila_command("app.ipynb", 8866, cull_idle=-1),
        ("cull_idle", "-1")),
    # the manifest (datasources' manifest cell)
    Bad("load_manifest", "a truncated manifest", lambda: load_manifest(truncated_manifest()),
        ("manifest.json", "not valid JSON"), raises=(DatasetFormatError,)),
    Bad("load_manifest", "JSON that is not a manifest", lambda: load_manifest(a_file("other.json", json.dumps([1]))),
        ("other.json", "'datasets'"), raises=(DatasetFormatError,)),
    Bad("load_manifest", "a manifest path that does not exist", lambda: load_manifest(TMP / "gone.json"),
        ("gone.json",), raises=(FileNotFoundError,)),
]


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bad_input(case):
    check(case)
