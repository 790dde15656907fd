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
# llamafile's sgemm is off: it serves only batches of 2 or more tokens, so a token's logits depended on how its
# prompt was split (cold or from the prefix cache) and on other runs decoded beside it. Without it the CPU
# kernels give the same logprobs, bit for bit, alone, cached and batched, and records do not depend on the
# concurrency (tests/test_server_engine.py; the speed is the same on the default model: docs/models.md).
LLAMA_VERSION="0.3.36"
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_LLAMAFILE=OFF"
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
# The wheel and llama.cpp's own llama-server (the batching engine) are built together from one tree by
# scripts/llama-build.sh and cached under ~/.cache/bakeoff/llama/<key> (key: version, flags, recipe).
# pip's wheel cache does not key on CMAKE_ARGS and would hand back a native (crashing) wheel: never used.
# The stamp in the venv says which build is installed and where its server is; bakeoff reads it into model_info.
LLAMA_STAMP="$VENV/bakeoff-llama-build.json"
LLAMA_SERVER_DIR="$VENV/bakeoff-llama-server"

install_llama_cpp() {
  local entry key wheel
  key=$(bash "$ROOT/scripts/llama-build.sh" --key "$VENV/bin/python" "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS")
  if [ -f "$LLAMA_STAMP" ] && grep -q "\"key\": \"$key\"" "$LLAMA_STAMP" && [ -x "$LLAMA_SERVER_DIR/llama-server" ] \
     && "$VENV/bin/python" -c "import sys, llama_cpp; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" >/dev/null 2>&1; then
    log "llama.cpp build $key already installed"
    return
  fi
  entry=$(bash "$ROOT/scripts/llama-build.sh" "$VENV/bin/python" "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS") \
    || { log "building llama.cpp failed"; exit 1; }
  wheel=$(ls "$entry"/wheel/llama_cpp_python-*.whl | head -n1)
  log "installing llama.cpp build $key (the Python binding and llama-server)"
  "$VENV/bin/python" -m pip install -q --no-cache-dir --force-reinstall --no-deps "$wheel"
  rm -rf "$LLAMA_SERVER_DIR.tmp"
  cp -r "$entry/bin" "$LLAMA_SERVER_DIR.tmp"
  rm -rf "$LLAMA_SERVER_DIR"
  mv "$LLAMA_SERVER_DIR.tmp" "$LLAMA_SERVER_DIR"
  printf '{"key": "%s", "version": "%s", "cmake_args": "%s", "server": "%s"}\n' \
    "$key" "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" "$LLAMA_SERVER_DIR/llama-server" > "$LLAMA_STAMP.tmp"
  mv "$LLAMA_STAMP.tmp" "$LLAMA_STAMP"
}

need_apt=()
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v debootstrap >/dev/null 2>&1 || need_apt+=(debootstrap)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v git >/dev/null 2>&1 || need_apt+=(git)
# llama.cpp's build (the wheel and llama-server) needs a compiler, cmake and a build tool that outlive pip's
# temporary build environment.
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
command -v ninja >/dev/null 2>&1 || need_apt+=(ninja-build)
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
