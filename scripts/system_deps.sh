#!/usr/bin/env bash
# Debian packages the tests need: chromium (real-browser tests) and dataset-fashion-mnist (offline data).
# As root: installs what is missing with apt-get. Otherwise: prints the exact command and carries on
# (the browser test then skips on a laptop; under CI=true it fails instead of skipping).
set -euo pipefail
pkgs=(chromium dataset-fashion-mnist)
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
