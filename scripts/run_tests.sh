#!/usr/bin/env bash
# The steps of `make test`, in order. Each failure names its step and exits non-zero.
set -uo pipefail
cd "$(dirname "$0")/.."
V=.venv/bin
# Time-keeping: each step's start; the step times go to .make/last-test.json (the site's measurements page).
MARKS=(); mark() { MARKS+=("$1=$SECONDS"); }
times() { $V/python -c 'import sys; from autonorm_explorer.web.guide import write_test_times as w; w(".make/last-test.json", sys.argv[3:], float(sys.argv[2]), sys.argv[1])' "$1" "$SECONDS" "${MARKS[@]}" || true; }
fail() { times "failed at $1"; echo; echo "make test FAILED at step: $1"; [ -n "${2:-}" ] && echo "$2"; exit 1; }
snapshot() { find nbs autonorm_explorer -type f \( -name '*.ipynb' -o -name '*.py' \) -not -path '*/.ipynb_checkpoints/*' -print0 | sort -z | xargs -0 sha256sum; }
t0=$SECONDS

echo "== 1/5 nbdev-clean: notebooks must already be clean"; mark nbdev-clean
before=$(snapshot)
$V/nbdev-clean || fail "nbdev-clean" "nbdev-clean itself crashed (see above)."
after=$(snapshot)
if [ "$before" != "$after" ]; then
  diff <(echo "$before") <(echo "$after") | grep '^>' | awk '{print "   cleaned: " $3}'
  fail "nbdev-clean" "Notebooks were not clean (outputs or metadata). They are cleaned now: review and commit them."
fi
if [ "${CI:-}" = "true" ] && [ -n "$(git status --porcelain)" ]; then
  git status --porcelain; fail "nbdev-clean" "git status is not clean in CI."
fi

echo "== 2/5 nbdev-export: the library must be in sync with the notebooks"; mark nbdev-export
before=$(snapshot)
$V/nbdev-export || fail "nbdev-export" "nbdev-export crashed (see above)."
after=$(snapshot)
if [ "$before" != "$after" ]; then
  diff <(echo "$before") <(echo "$after") | grep '^>' | awk '{print "   changed: " $3}'
  fail "nbdev-export" "Notebooks and library are not in sync: autonorm_explorer/ was regenerated from nbs/. Never edit generated modules; run 'make export' and commit notebooks and library together."
fi

echo "== 3/5 style and import layers: ruff, no import cycles, no import above its layer"; mark style
$V/ruff check --no-cache autonorm_explorer || fail "style" "ruff found the problems above (rules in pyproject.toml's [tool.ruff]); fix them in the notebooks and re-export."
$V/python -m pytest -q -p no:cacheprovider -n "${PYTEST_WORKERS:-2}" tests/test_package_shape.py || fail "style" "See tests/test_package_shape.py: each domain's MAY_IMPORT (in its __init__.py) is the declared import order."

echo "== 4/5 nbdev-test: every notebook runs and its tests pass"; mark nbdev-test
$V/nbdev-test --n-workers 2 --timing || fail "nbdev-test" "A notebook failed (its name is listed above)."

echo "== 5/5 pytest (two workers, each test file whole on one of them)"; mark pytest
# --dist loadfile: a file's tests run in one worker, so a module-scoped fixture (the docs site, the private Slurm
# cluster, the installed wheel) is built once; --dist loadgroup would also honour @pytest.mark.xdist_group (none
# is needed now: tests/conftest.py says why). PYTEST_WORKERS=0 runs it in this process, serially (xdist off).
$V/python -m pytest -q -ra -n "${PYTEST_WORKERS:-2}" --dist loadfile --ignore=tests/test_package_shape.py \
  || fail "pytest" "See the failing tests above."
times passed
echo; echo "make test passed in $((SECONDS - t0)) s (after set-up)."
