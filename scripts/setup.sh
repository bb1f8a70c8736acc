#!/usr/bin/env bash
# One-time machine set-up: system packages the build needs, crate downloads, shared data check.
# Safe to run again: every step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

need=()
command -v cmake >/dev/null || need+=(cmake)
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
command -v python3 >/dev/null || need+=(python3 python3-pip)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

cargo fetch --locked
