#!/usr/bin/env bash
# Installs the Debian packages dsanalyze needs (only the missing ones), then
# configures and builds Release into build/. Safe to run again: it does only
# what is missing. Options: --sanitize builds into build-asan/ with ASan+UBSan
# (Debug, so assertions are checked; the sanitizer flags are in CMakeLists.txt);
# --packages installs the packages and builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build libmpich-dev mpich libcli11-dev nlohmann-json3-dev
          libsimdjson-dev libspdlog-dev catch2 python3 pmccabe chromium tidy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

# Ninja, and unity builds: each target's sources compiled 16 to a unit, so the
# heavy headers (nlohmann/json, spdlog, CLI11, Catch2) are parsed once a unit
# instead of once a file. A fresh build takes a third of the CPU time it took
# file by file (docs/benchmarks.md, "CI time"). For editing one file at a time,
# configure a build of your own with -DCMAKE_UNITY_BUILD=OFF.
[[ "${1:-}" == "--packages" ]] && exit 0

build_dir=build
cmake_args=(-G Ninja -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
if [[ "${1:-}" == "--sanitize" ]]; then
  build_dir=build-asan
  cmake_args+=(-DCMAKE_BUILD_TYPE=Debug -DDSANALYZE_SANITIZE=ON)
else
  cmake_args+=(-DCMAKE_BUILD_TYPE=Release)
fi
# Configured once; after that the build re-runs CMake by itself whenever a CMake
# file changed (configuring again from a folder that only links to this tree,
# as the docs test does, would not match the cache's source path).
[[ -f "$build_dir/CMakeCache.txt" ]] || cmake -S . -B "$build_dir" "${cmake_args[@]}" > /dev/null
cmake --build "$build_dir" -j "$(nproc)"
