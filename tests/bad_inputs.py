"""The walker for the bad-input tables: every public entry point answers a bad argument with a clear error.

Each `tests/test_bad_inputs_*.py` module defines `CASES`, a list of `Bad` rows, and parametrizes one test over
them with `check`. A row says which entry point it calls, what the bad input is, and what the message must
name (the bad value, and the allowed values or range). `check` fails when:

- nothing is raised (the bad input was accepted silently), or the wrong kind of warning/error comes out;
- the exception is one a user should never see for a bad argument (an `AttributeError`, `RuntimeError`,
  `IndexError`, `ZeroDivisionError`, `EOFError`, `UnboundLocalError` or `KeyError` from inside the package);
- the message does not contain every string in `names`.

`python tests/bad_inputs.py` prints how many bad inputs each entry point handles, for the closing notes.
"""
from __future__ import annotations

import importlib.util
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

# What a user may see for a bad argument; subclasses count (FileNotFoundError is an OSError, ...).
CLEAR_ERRORS = (ValueError, TypeError, OSError, SystemExit)
# Errors that mean a bad argument travelled into the package's insides instead of being stopped at the door.
INTERNAL_ERRORS = (AttributeError, RuntimeError, IndexError, ZeroDivisionError, EOFError, UnboundLocalError,
                   KeyError, AssertionError, NameError)


@dataclass
class Bad:
    "One bad input: `call()` must raise a clear error (or warn, when `warns` is set) whose text holds `names`."
    entry: str                       # the public entry point, as a user writes it: "rank_profile", "autonorm-sweep run"
    what: str                        # the bad input in words: "config passed as a string"
    call: Callable[[], Any]          # does the bad thing
    names: tuple[str, ...] = ()      # substrings the message must contain: the bad value, the allowed set
    raises: tuple[type, ...] = CLEAR_ERRORS
    warns: type | None = None        # a Warning class: accepting is right, but the user is told
    message: Callable[[BaseException], str] | None = field(default=None, repr=False)  # text of e.g. SystemExit

    def __str__(self):
        return f"{self.entry}: {self.what}"


def error_text(case: Bad, exc: BaseException) -> str:
    "The text a user reads: the exception's message (a CLI's SystemExit carries it in `case.message`)."
    return case.message(exc) if case.message else str(exc)


def check(case: Bad):
    "Run one row of a table; fail with a message that says which row and what went wrong."
    if case.warns is not None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            case.call()
        hits = [w for w in caught if issubclass(w.category, case.warns)]
        assert hits, f"{case}: expected a {case.warns.__name__}, got {[w.category.__name__ for w in caught]}"
        text = " ".join(str(w.message) for w in hits)
    else:
        try:
            case.call()
        except INTERNAL_ERRORS as e:
            if not isinstance(e, case.raises):
                pytest.fail(f"{case}: an internal {type(e).__name__} reached the user: {e}")
            text = error_text(case, e)
        except case.raises as e:
            text = error_text(case, e)
        else:
            pytest.fail(f"{case}: accepted silently (no error raised)")
    missing = [s for s in case.names if s not in text]
    assert not missing, f"{case}: the message does not name {missing}: {text!r}"


def case_ids(cases: list[Bad]) -> list[str]:
    "Readable pytest ids: entry point and bad input."
    return [f"{c.entry}|{c.what}" for c in cases]


def load_tables() -> dict[str, list[Bad]]:
    "Every `CASES` table in tests/test_bad_inputs_*.py, keyed by file name."
    tables = {}
    for path in sorted(Path(__file__).parent.glob("test_bad_inputs_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        tables[path.name] = list(getattr(mod, "CASES", []))
    return tables


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    per_entry = Counter()
    for name, cases in load_tables().items():
        per_entry.update(c.entry for c in cases)
    for entry, n in sorted(per_entry.items()):
        print(f"{n:4d}  {entry}")
    print(f"{sum(per_entry.values()):4d}  in all, over {len(per_entry)} entry points")
