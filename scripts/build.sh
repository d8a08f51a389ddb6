#!/usr/bin/env bash
# Builds the wasm module into dist/ (incremental: quick when nothing changed).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm --parallel 2 | grep -vE "^\[ *[0-9]+%\] (Built target|Building CXX|Linking)" || true
for f in attention{,-relaxed}{.js,.wasm} attention{,-relaxed}-threads{.js,.wasm,.worker.js,.worker.cjs}; do
  test -f "dist/$f" || { echo "build: dist/$f was not produced" >&2; exit 1; }
done
