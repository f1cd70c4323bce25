#!/usr/bin/env bash
# Installs what is missing, builds the demo and the benchmark (Release, in build/), runs the
# demo (a fused blur against the unfused one and plain C++), then a short form of the benchmark
# table: four apps against Halide 14 with the same schedules (scripts/bench.sh runs them all).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup-deps.sh
bash scripts/fetch-photos.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_APPS=ON -DLOOM_BUILD_BENCHMARKS=ON
cmake --build build -j2 --target loom_demo loom_bench
./build/apps/demo/loom_demo "$@"
echo
echo "==== short benchmark: Loom against Halide 14, same algorithm and schedule ===="
./build/apps/bench/loom_bench --quick
