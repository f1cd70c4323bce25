#!/usr/bin/env bash
# Installs what is missing, builds the benchmark (Release, in build/) and runs every app against
# Halide 14 (and OpenBLAS for the matrix multiplies) with the machine's ceilings measured in the
# same run; writes the table to build/benchmarks.md as well. Extra arguments go to loom_bench
# (for example --apps=blur,softmax --reps=15).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup-deps.sh
bash scripts/fetch-photos.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_APPS=ON -DLOOM_BUILD_BENCHMARKS=ON
cmake --build build -j2 --target loom_bench
./build/apps/bench/loom_bench --markdown=build/benchmarks.md "$@"
