# autonorm_explorer: every target sets up what it needs and is fast when nothing changed.
#   make demo    set up, then run the main job headlessly into runs/demo/
#   make test    set up, then: nbdev-clean check, export-sync check, nbdev-test, pytest
#   make lab     JupyterLab on the notebooks
#   make export  nbdev-export + nbdev-clean (after editing notebooks)
#   make bench   run every benchmark in benchmarks/ (ratios measured side by side)
#   make docs    set up, then build the static site into site/ from executed notebooks (reuses make demo)
#   make app     set up, then serve the explorers as a web app (Voila) on 127.0.0.1:8866 (PORT=... to change)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PY      := .venv/bin/python
VENV    := .venv/bin
STAMP   := .make
KERNEL  := autonorm-explorer
PORT    ?= 8866
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: FORCE setup demo test lab export lock sysdeps data clean-venv bench docs app

setup: $(STAMP)/installed $(STAMP)/kernel $(STAMP)/timm data sysdeps

$(PY):
	python3 -m venv .venv

# Reinstall only when the dependency declarations change. Keyed on their content, not their mtime:
# nbdev-export rewrites pyproject.toml (same bytes, new mtime) on every export.
DEPS_HASH := $(shell cat pyproject.toml constraints.txt 2>/dev/null | sha256sum | cut -c1-16)
$(STAMP)/installed: FORCE | $(PY)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(DEPS_HASH)" ]; then \
	  echo "setup: installing the package and its dev dependencies (pinned by constraints.txt)"; \
	  mkdir -p $(STAMP); \
	  $(VENV)/pip install --upgrade "pip>=24" > $(STAMP)/pip.log 2>&1 || { cat $(STAMP)/pip.log; exit 1; }; \
	  $(VENV)/pip install -c constraints.txt -e ".[dev]" >> $(STAMP)/pip.log 2>&1 || { cat $(STAMP)/pip.log; exit 1; }; \
	  $(PY) -c "import autonorm_explorer, torch; assert torch.__version__.startswith('2.13.0'), torch.__version__"; \
	  echo "$(DEPS_HASH)" > $@; \
	fi

FORCE:

# timm (and the torchvision it imports) for the tests on real timm models, in a folder of its own: the registry's
# torchvision for this torch is a CUDA build whose compiled ops do not load here, so it must never shadow anything
# in the venv; tests/timm_support.py puts the folder on sys.path for those tests only. Keyed on the pins' content.
TIMM_LIB  := $(STAMP)/timm-lib
TIMM_HASH := $(shell cat tests/timm-requirements.txt 2>/dev/null | sha256sum | cut -c1-16)
$(STAMP)/timm: $(STAMP)/installed FORCE
	@if [ "$$(cat $@ 2>/dev/null)" != "$(TIMM_HASH)" ]; then \
	  echo "setup: installing timm for the tests into $(TIMM_LIB) (pinned by tests/timm-requirements.txt)"; \
	  rm -rf $(TIMM_LIB).part; \
	  $(VENV)/pip install --no-deps --target $(TIMM_LIB).part -r tests/timm-requirements.txt > $(STAMP)/pip-timm.log 2>&1 \
	    || { cat $(STAMP)/pip-timm.log; exit 1; }; \
	  rm -rf $(TIMM_LIB); mv $(TIMM_LIB).part $(TIMM_LIB); \
	  echo "$(TIMM_HASH)" > $@; \
	fi

# The venv's kernelspec for papermill, and JupyterLab settings that keep a headless lab quiet.
KSPEC := .venv/share/jupyter/kernels/$(KERNEL)/kernel.json
LABSET := .venv/share/jupyter/lab/settings/overrides.json
$(STAMP)/kernel: $(STAMP)/installed
	@[ -f $(KSPEC) ] || $(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python (autonorm-explorer)" >/dev/null
	@[ -f $(LABSET) ] || { mkdir -p $(dir $(LABSET)); \
	  echo '{"@jupyterlab/apputils-extension:notification": {"checkForUpdates": false, "fetchNews": "false"}}' > $(LABSET); }

data: $(STAMP)/installed
	@scripts/fetch_offline_data.sh

sysdeps:
	@scripts/system_deps.sh

demo: setup
	$(VENV)/autonorm-demo --out runs/demo

test: setup
	@scripts/run_tests.sh

docs: setup
	$(VENV)/autonorm-docs --out site

app: setup
	$(VENV)/autonorm-app --port $(PORT)

lab: setup
	$(VENV)/jupyter lab --notebook-dir=nbs

export: $(STAMP)/installed
	$(VENV)/nbdev-export
	$(VENV)/nbdev-clean

bench: setup
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b; done

# Regenerate constraints.txt from the current venv (after changing dependencies on purpose). --all keeps
# setuptools, the build backend the wheel test uses; pip itself is upgraded by setup, not pinned.
lock: $(STAMP)/installed
	@{ echo '# Exact versions CI tests (pip install -c constraints.txt -e ".[dev]"). Regenerate: make lock'; \
	   $(VENV)/pip freeze --all --exclude-editable | grep -v '^pip==' | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > constraints.txt
	@rm -f $(STAMP)/installed

clean-venv:
	rm -rf .venv $(STAMP)
