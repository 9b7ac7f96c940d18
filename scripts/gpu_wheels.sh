#!/usr/bin/env bash
# Wheels for scripts/gpu_check.sh on a GPU machine that has Python 3.12 with PyTorch, numpy, pandas, scipy, matplotlib,
# seaborn and scikit-learn, but no Jupyter stack and no network: run this here (with network), then carry `.whl/`
# to that machine; gpu_check.sh installs them into /tmp/site. Versions are the ones constraints.txt pins.
#   scripts/gpu_wheels.sh [PYTHON_VERSION]      (default 3.12)
set -euo pipefail
cd "$(dirname "$0")/.."
PYV=${1:-3.12}
NAMES="papermill nbformat nbclient jupyter_client jupyter_core ipykernel ipython traitlets tornado pyzmq fastjsonschema
jsonschema jsonschema-specifications referencing rpds-py tenacity entrypoints comm debugpy matplotlib-inline jedi parso
pexpect ptyprocess prompt_toolkit wcwidth stack-data asttokens executing pure_eval platformdirs fastcore
ipython_pygments_lexers ipywidgets widgetsnbextension jupyterlab_widgets"
PLATFORMS="--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
--platform manylinux2014_x86_64 --platform manylinux1_x86_64"
mkdir -p .whl
for name in $NAMES; do
  pin=$(grep -i -E "^${name//[-_]/[-_]}==" constraints.txt | head -1)
  [ -n "$pin" ] || { echo "gpu_wheels: $name is not pinned in constraints.txt"; exit 1; }
  # shellcheck disable=SC2086
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PYV" --implementation cp $PLATFORMS \
    -d .whl "$pin"
done
echo "gpu_wheels: $(ls .whl/*.whl | wc -l) wheels, $(du -sh .whl | cut -f1) in .whl/ (carry it with the run)"
