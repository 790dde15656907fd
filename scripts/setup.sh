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
log "installing bakeoff into $VENV (the first install compiles llama.cpp: about 5 minutes)"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e "$ROOT[dev]"

log "building the sandbox image (skipped when it is up to date)"
"$VENV/bin/bakeoff" sandbox build --bootstrap
log "ready"
