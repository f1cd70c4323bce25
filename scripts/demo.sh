#!/usr/bin/env bash
# Installs what is missing, builds the demo (Release, in build/) and runs it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_APPS=ON
cmake --build build -j2 --target loom_demo
./build/apps/demo/loom_demo "$@"
