#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages Loom needs to build, test and benchmark.
# Idempotent: when every package is already installed it does nothing and never calls apt-get.
# Run as root (or as a user with sudo).
set -euo pipefail

packages=(
    # toolchain
    cmake g++ make
    # the compiler backend, and what LLVM 19's CMake package looks for (zlib, zstd, libedit,
    # libxml2, libffi, z3, curl, libpfm) so that every LLVM target it defines can be linked
    llvm-19-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libz3-dev
    libcurl4-openssl-dev libpfm4-dev
    # libraries Loom and its tests, apps and benchmarks use
    libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev libpng-dev
    # the benchmark's peer for matrix multiplies
    libopenblas-dev
    # Halide 14: the oracle of the differential tests and the peer in benchmarks
    libhalide14-0-dev
)

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup-deps: all ${#packages[@]} packages already installed"
    exit 0
fi

echo "setup-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "setup-deps: missing packages (${missing[*]}) and not root; rerun as root" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
