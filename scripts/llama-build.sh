#!/usr/bin/env bash
# Build llama.cpp once for bakeoff: the llama-cpp-python wheel AND llama.cpp's own
# llama-server and llama-batched-bench, from ONE source tree and ONE cmake build
# tree, so the in-process engine and the batching server are the same code
# compiled with the same flags. The result is cached, keyed by version, flags and
# this recipe, under ~/.cache/bakeoff/llama/<key>/:
#   wheel/llama_cpp_python-<version>-*.whl
#   bin/llama-server, bin/llama-batched-bench and the shared libraries they load
#       (linked with an $ORIGIN run path: the folder can be copied whole)
#   build.json  {"key", "version", "cmake_args"}
# Usage: scripts/llama-build.sh [--key] PYTHON VERSION "CMAKE_ARGS"   (prints the cache entry's folder;
#        --key: only the key, nothing built). PYTHON is the interpreter whose pip builds the wheel.
# Compiles run at low priority.
set -euo pipefail
ONLY_KEY=0
if [ "${1:-}" = "--key" ]; then ONLY_KEY=1; shift; fi
PYTHON=$1
VERSION=$2
CMAKE_FLAGS=$3
# Bump when the recipe below changes what lands in the cache.
RECIPE=2
log() { printf '[llama-build] %s\n' "$*" >&2; }

KEY=$(printf '%s %s recipe-%s' "$VERSION" "$CMAKE_FLAGS" "$RECIPE" | sha256sum | cut -c1-16)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/bakeoff/llama"
ENTRY="$CACHE/$KEY"
if [ "$ONLY_KEY" = 1 ]; then echo "$KEY"; exit 0; fi
if [ -f "$ENTRY/build.json" ] && [ -x "$ENTRY/bin/llama-server" ] && ls "$ENTRY"/wheel/*.whl >/dev/null 2>&1; then
  echo "$ENTRY"
  exit 0
fi

mkdir -p "$CACHE"
STAGING=$(mktemp -d "$CACHE/.build.XXXXXX")
trap 'rm -rf "$STAGING"' EXIT
# The server is never built with the web UI, and never downloads it (llama.cpp would fetch a prebuilt one).
# Neither needs HTTPS. These options touch only the tools, not the libraries the wheel ships.
TOOL_FLAGS="-DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF"

log "fetching the llama-cpp-python $VERSION source distribution"
"$PYTHON" -m pip download -q --no-deps --no-binary llama-cpp-python "llama-cpp-python==$VERSION" -d "$STAGING/sdist"
tar -xzf "$STAGING"/sdist/llama_cpp_python-*.tar.gz -C "$STAGING"
SRC=$(ls -d "$STAGING"/llama_cpp_python-*/)
TREE="$STAGING/tree"

log "compiling the llama-cpp-python wheel ($CMAKE_FLAGS): about 5-7 minutes on 2 idle cores"
# build-dir keeps scikit-build-core's cmake tree here instead of a temporary folder, for the tools below.
CMAKE_ARGS="$CMAKE_FLAGS $TOOL_FLAGS" nice -n 10 "$PYTHON" -m pip wheel -q --no-cache-dir --no-deps \
  -C "build-dir=$TREE" "$SRC" -w "$STAGING/wheel"

log "compiling llama-server and llama-batched-bench in the same tree"
# The same cache (flags, compiler), llama.cpp's tools switched on; the libraries are not recompiled.
# llama.cpp's tools add tools/mtmd themselves, so the binding's own copy of that folder is switched off.
nice -n 10 cmake -Wno-dev "$TREE" -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAVA_BUILD=OFF \
  -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON -DCMAKE_MAKE_PROGRAM="$(command -v ninja || command -v make)" >/dev/null
nice -n 10 cmake --build "$TREE" --target llama-server llama-batched-bench >/dev/null

mkdir -p "$STAGING/bin" "$STAGING/wheel-lib"
cp "$TREE/bin/llama-server" "$TREE/bin/llama-batched-bench" "$STAGING/bin/"
# The libraries the wheel ships, as the wheel ships them (installed and stripped from this same tree).
"$PYTHON" - "$STAGING"/wheel/*.whl "$STAGING/wheel-lib" <<'PY'
import sys, zipfile
from pathlib import Path
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if name.startswith("llama_cpp/lib/") and not name.endswith("/"):
            (Path(sys.argv[2]) / Path(name).name).write_bytes(wheel.read(name))
PY
# Every shared library of the tree that the two programs load, beside them ($ORIGIN run path): the wheel's
# own file where the wheel ships it, so the server runs the very libraries the binding loads.
for lib in $(ldd "$TREE/bin/llama-server" "$TREE/bin/llama-batched-bench" | awk -v tree="$TREE/" 'index($3, tree) == 1 {print $3}' | sort -u); do
  name=$(basename "$lib")
  if [ -f "$STAGING/wheel-lib/$name" ]; then cp "$STAGING/wheel-lib/$name" "$STAGING/bin/"; else cp -L "$lib" "$STAGING/bin/"; fi
done
# Proof that the copy runs on its own (the tree gone), before it is cached.
rm -rf "$TREE" "$SRC"
(cd / && "$STAGING/bin/llama-server" --version >/dev/null 2>&1) || { log "the built llama-server does not run"; exit 1; }
printf '{"key": "%s", "version": "%s", "cmake_args": "%s"}\n' "$KEY" "$VERSION" "$CMAKE_FLAGS" > "$STAGING/build.json"

rm -rf "$ENTRY"
mkdir -p "$ENTRY"
mv "$STAGING/wheel" "$STAGING/bin" "$STAGING/build.json" "$ENTRY/"
echo "$ENTRY"
