#!/usr/bin/env bash
# Builds the wasm module into dist/ (incremental: quick when nothing changed).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm --parallel 2 | grep -vE "^\[ *[0-9]+%\] (Built target|Building CXX|Linking)" || true
test -f dist/attention.wasm -a -f dist/attention.js || { echo "build: dist/ was not produced" >&2; exit 1; }
