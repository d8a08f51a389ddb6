#!/usr/bin/env bash
# Installs what the build needs when it is missing: Debian packages (emscripten, Highway,
# Eigen, clang-19 for the relaxed-SIMD build; with --test also Chromium, g++, clang-format,
# and clang with libFuzzer; with --bench-browser Chromium) and, with --test, --bench or
# --bench-browser, the npm devDependencies (the test tools and the benchmark's peers).
# Safe to run again: it does nothing when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
want_npm=0
[ "${1:-}" = "--test" ] && want_test=1 && want_npm=1
[ "${1:-}" = "--bench" ] && want_npm=1
want_chromium=$want_test
[ "${1:-}" = "--bench-browser" ] && want_npm=1 && want_chromium=1

missing=()
command -v emcc >/dev/null 2>&1 || missing+=(emscripten)
[ -f /usr/include/hwy/highway.h ] || missing+=(libhwy-dev)
[ -d /usr/include/eigen3/Eigen ] || missing+=(libeigen3-dev)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
[ -x /usr/lib/llvm-19/bin/clang ] || missing+=(clang-19)  # the relaxed-SIMD kernels
[ "$want_chromium" = 1 ] && { [ -x /usr/bin/chromium ] || missing+=(chromium); }
if [ "$want_test" = 1 ]; then
  command -v g++ >/dev/null 2>&1 || missing+=(g++)                    # native sanitizer test
  command -v clang-format >/dev/null 2>&1 || missing+=(clang-format)  # style test
  command -v clang++ >/dev/null 2>&1 || missing+=(clang)              # native fuzzing (libFuzzer)
  compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null ||
    missing+=(libclang-rt-dev)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

devdeps_present() {
  node -e 'const p = require("./package.json"); for (const d of Object.keys(p.devDependencies)) require("fs").accessSync(`node_modules/${d}/package.json`)' 2>/dev/null
}
if [ "$want_npm" = 1 ] && ! devdeps_present; then
  # `npm install` (which follows package-lock.json) rather than `npm ci`: the registry
  # reachable here lacks rollup's optional per-platform packages for other systems, so the
  # lock cannot list them and `npm ci` refuses it as out of sync.
  echo "setup: installing npm devDependencies (npm install from package-lock.json)"
  npm install --no-audit --no-fund --loglevel=error
fi
