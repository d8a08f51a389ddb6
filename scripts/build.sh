#!/usr/bin/env bash
# Builds the wasm module into dist/ (incremental: quick when nothing changed).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# The progress lines are dropped; a failed compile or link still fails the build (a stale
# dist/ from an earlier build must not pass for a new one).
status=0
cmake --build build/wasm --parallel 2 > >(grep -vE "^\[ *[0-9]+%\] (Built target|Building CXX|Linking)" || true) 2>&1 || status=$?
wait
if [ "$status" -ne 0 ]; then echo "build: the wasm build failed (exit $status)" >&2; exit "$status"; fi
for f in attention{,-relaxed}{.js,.wasm} attention{,-relaxed}-threads{.js,.wasm,.worker.js,.worker.cjs}; do
  test -f "dist/$f" || { echo "build: dist/$f was not produced" >&2; exit 1; }
done
