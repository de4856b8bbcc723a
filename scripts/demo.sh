#!/usr/bin/env bash
# The main job on the embedded default: the seed benchmark (format.md §4) with
# 100,000 synthetic samples, on 2 MPI ranks, written to out/demo.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/dsanalyze ]] || scripts/setup.sh
mpiexec -n 2 build/dsanalyze --config configs/demo.json --timings
echo "demo: output in out/demo:"
find out/demo -maxdepth 2 -type f | sort
