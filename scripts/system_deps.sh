#!/usr/bin/env bash
# Debian packages the tests need: chromium (real-browser tests), dataset-fashion-mnist (offline data), and
# slurm-wlm + munge (the sweeps on a real single-node Slurm, tests/test_slurm.py; nothing in /etc is configured:
# the tests start their own daemons with their own files).
# As root: installs what is missing with apt-get. Otherwise: prints the exact command and carries on
# (the browser and Slurm tests then skip on a laptop; under CI=true they fail instead of skipping).
set -euo pipefail
pkgs=(chromium dataset-fashion-mnist slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ "${#missing[@]}" = 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "system deps: installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q "${missing[@]}" >/dev/null
else
  echo "system deps: missing ${missing[*]}; install them with:"
  echo "    sudo apt-get install -y ${missing[*]}"
fi
