#!/usr/bin/env bash
# One-time (and idempotent) setup of everything bakeoff and its tests need on a
# Debian/Ubuntu machine: system packages, the Docker engine, the Python
# environment in .venv, and the sandbox image. Every slow step is skipped when
# its result is already there, but nothing assumes it is.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV="$ROOT/.venv"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

log() { printf '[setup] %s\n' "$*" >&2; }

# llama.cpp build. The default is a portable CPU build: llama.cpp's native build
# switches on the AMX path on Sapphire-Rapids-class CPUs and then segfaults at the
# first token. --cuda (or BAKEOFF_LLAMA_CUDA=1) builds with CUDA for a GPU workstation.
LLAMA_VERSION="0.3.36"
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
for arg in "$@"; do
  case "$arg" in
    --cuda) BAKEOFF_LLAMA_CUDA=1 ;;
    -h|--help) echo "usage: scripts/setup.sh [--cuda]   (or BAKEOFF_LLAMA_CUDA=1)"; exit 0 ;;
    *) echo "setup.sh: unknown option $arg (usage: scripts/setup.sh [--cuda])" >&2; exit 2 ;;
  esac
done
if [ "${BAKEOFF_LLAMA_CUDA:-0}" = "1" ]; then
  LLAMA_CMAKE_ARGS="$LLAMA_CMAKE_ARGS -DGGML_CUDA=on"
fi
LLAMA_BUILD_KEY=$(printf '%s %s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-16)
# Our own wheel cache, keyed by version and flags. pip's wheel cache does not key
# on CMAKE_ARGS and would hand back a native (crashing) wheel, so it is never used.
LLAMA_WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/bakeoff/llama-wheels/$LLAMA_BUILD_KEY"
# The stamp in the venv says which build is installed; bakeoff reads it into model_info.
LLAMA_STAMP="$VENV/bakeoff-llama-build.json"

install_llama_cpp() {
  if [ -f "$LLAMA_STAMP" ] && grep -q "\"key\": \"$LLAMA_BUILD_KEY\"" "$LLAMA_STAMP" \
     && "$VENV/bin/python" -c "import sys, llama_cpp; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" >/dev/null 2>&1; then
    log "llama.cpp build $LLAMA_BUILD_KEY already installed"
    return
  fi
  local wheel
  wheel=$(ls "$LLAMA_WHEELS"/llama_cpp_python-*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$wheel" ]; then
    log "compiling llama.cpp $LLAMA_VERSION ($LLAMA_CMAKE_ARGS): about 5-7 minutes"
    local staging
    mkdir -p "$(dirname "$LLAMA_WHEELS")"
    staging=$(mktemp -d "$(dirname "$LLAMA_WHEELS")/.build.XXXXXX")
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$VENV/bin/python" -m pip wheel -q --no-cache-dir --no-deps \
      --no-binary llama-cpp-python "llama-cpp-python==$LLAMA_VERSION" -w "$staging" \
      || { rm -rf "$staging"; log "compiling llama.cpp failed"; exit 1; }
    rm -rf "$LLAMA_WHEELS"
    mv "$staging" "$LLAMA_WHEELS"
    wheel=$(ls "$LLAMA_WHEELS"/llama_cpp_python-*.whl | head -n1)
  fi
  log "installing llama.cpp build $LLAMA_BUILD_KEY"
  "$VENV/bin/python" -m pip install -q --no-cache-dir --force-reinstall --no-deps "$wheel"
  printf '{"key": "%s", "version": "%s", "cmake_args": "%s"}\n' \
    "$LLAMA_BUILD_KEY" "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" > "$LLAMA_STAMP.tmp"
  mv "$LLAMA_STAMP.tmp" "$LLAMA_STAMP"
}

need_apt=()
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v debootstrap >/dev/null 2>&1 || need_apt+=(debootstrap)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v git >/dev/null 2>&1 || need_apt+=(git)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing system packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  log "starting the Docker engine"
  $SUDO sh -c 'nohup dockerd >/var/log/bakeoff-dockerd.log 2>&1 &'
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { log "the Docker engine did not start; see /var/log/bakeoff-dockerd.log"; exit 1; }
fi

if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
install_llama_cpp
log "installing bakeoff into $VENV"
"$VENV/bin/python" -m pip install -q -e "$ROOT[dev,inspect,eee,ray]"
# every-eval-ever (the eee extra) declares Python >= 3.12 but its schemas and types run on 3.11: install it bare there.
"$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 12))' || "$VENV/bin/python" -m pip install -q --no-deps --ignore-requires-python "every-eval-ever>=0.3.0,<0.4"

log "building the sandbox image (skipped when it is up to date)"
"$VENV/bin/bakeoff" sandbox build --bootstrap
log "ready"
