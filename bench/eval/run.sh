#!/usr/bin/env bash
# Runs the wink eval suites on one or more models and prints pass-rate tables: one per suite and
# half, with a row per prompt file and per task type, and an overview.
#   bench/eval/run.sh [--half dev|heldout|both] [--suite base|domains|all] [--expanded]
#                     [--failures] [MODEL...] [-- EXTRA wink eval FLAGS]
# --half      dev (default): the development half; heldout: the held-out half (for reporting
#             only: never tune on it); both.
# --suite     base: the prompt files in bench/eval; domains: those in bench/eval/domains; all
#             (default).
# --expanded  also run every file with --disclosure expanded and print it beside the default.
# --failures  list the failing cases of the development half, with the reason (never held-out).
# MODEL defaults to the 0.5B local model. Reports go to
# bench/eval/results/<model>/<suite>/<half>/<prompt>.<disclosure|expanded>.json (and .log: the
# --verbose lines). WINK names the binary (default: $CARGO_TARGET_DIR/release/wink, else
# target/release/wink).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wink="${WINK:-${CARGO_TARGET_DIR:-$root/target}/release/wink}"
half=dev suite=all expanded=0 list_failures=()
models=()
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --half) half="${2:-}"; shift 2 || usage ;;
    --suite) suite="${2:-}"; shift 2 || usage ;;
    --expanded) expanded=1; shift ;;
    --failures) list_failures=(--failures); shift ;;
    -h|--help) usage ;;
    -*) echo "run.sh: unknown option $1" >&2; usage ;;
    *) models+=("$1"); shift ;;
  esac
done
[ "${1:-}" = "--" ] && shift
case "$half" in dev) halves=(dev) ;; heldout) halves=(heldout) ;; both) halves=(dev heldout) ;; *) usage ;; esac
case "$suite" in base) suites=(base) ;; domains) suites=(domains) ;; all) suites=(base domains) ;; *) usage ;; esac
[ -x "$wink" ] || { echo "run.sh: no wink binary at $wink (cargo build --release -p wink-cli, or set WINK)" >&2; exit 2; }
[ ${#models[@]} -eq 0 ] && models=("local:$HOME/.cache/wink/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
modes=(disclosure)
[ "$expanded" = 1 ] && modes+=(expanded)
for model in "${models[@]}"; do
  slug="$(basename "$model" | tr -c 'a-zA-Z0-9.\n-' '_')"
  reports=()
  for s in "${suites[@]}"; do
    dir="$here"
    [ "$s" = domains ] && dir="$here/domains"
    for h in "${halves[@]}"; do
      out="$here/results/$slug/$s/$h"
      mkdir -p "$out"
      suffix=.cases.jsonl
      [ "$h" = heldout ] && suffix=.heldout.cases.jsonl
      for cases in "$dir"/*"$suffix"; do
        name="$(basename "$cases" "$suffix")"
        case "$name" in ci|*.heldout) continue ;; esac
        prompt=""
        for ext in json toml yaml; do
          [ -f "$dir/$name.$ext" ] && prompt="$dir/$name.$ext" && break
        done
        [ -n "$prompt" ] || { echo "run.sh: no prompt file for $cases" >&2; exit 2; }
        for mode in "${modes[@]}"; do
          flags=()
          [ "$mode" = expanded ] && flags=(--disclosure expanded)
          echo "== $model: $s/$h/$name ($mode)" >&2
          if [ "$h" = dev ]; then
            # a line per case on stderr, kept for --failures
            "$wink" eval "$prompt" --cases "$cases" --model "$model" --format json --verbose \
              "${flags[@]}" "$@" > "$out/$name.$mode.json" 2> >(tee "$out/$name.$mode.log" >&2)
          else
            # held-out: nothing per case on the terminal
            "$wink" eval "$prompt" --cases "$cases" --model "$model" --format json \
              "${flags[@]}" "$@" > "$out/$name.$mode.json"
          fi
          reports+=("$out/$name.$mode.json")
        done
      done
    done
  done
  python3 "$here/summarize.py" "${list_failures[@]}" "$model $*" "${reports[@]}"
done
