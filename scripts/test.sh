#!/usr/bin/env bash
# Installs what is missing, builds everything (Release, in build/), runs the test suite with
# ctest, runs the demo (which checks its output against plain C++), builds the suite again with
# AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/) and runs it and a fuzz batch
# there, then installs Loom into a temporary prefix and builds and runs test/install/, a separate
# project that uses it through find_package(Loom). Exits nonzero if any of these fails; prints a
# summary at the end.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

banner() { printf '\n==== %s ====\n' "$*"; }

banner "dependencies"
bash scripts/setup-deps.sh
bash scripts/fetch-photos.sh

banner "configure and build (Release, build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=ON -DLOOM_BUILD_APPS=ON
cmake --build build -j2

results=()
failed=0
record() {  # record NAME STATUS
    if [[ $2 -eq 0 ]]; then
        results+=("PASSED  $1")
    else
        results+=("FAILED  $1 (exit status $2)")
        failed=1
    fi
}

banner "test suite (ctest)"
status=0
ctest --test-dir build --output-on-failure --no-tests=error --timeout 900 -j2 || status=$?
record "test suite (ctest)" $status

banner "demo"
status=0
./build/apps/demo/loom_demo || status=$?
record "demo (loom_demo, fused and unfused against C++)" $status

# The same suite built with AddressSanitizer and UndefinedBehaviorSanitizer (leak checking on:
# LeakSanitizer is part of AddressSanitizer on x86-64 Linux), in build-sanitize/: the compiler, the
# runtime (also the copy that ahead-of-time libraries embed, run by the AOT tests) and the tests
# are instrumented; code the JIT compiles is not (the sanitizers see the compiler that made it and
# the runtime calls it makes). Any report ends its process with an error, so ctest fails. -O1
# keeps the build and the run short; assertions stay on (IR verified between passes).
banner "sanitizers: configure and build (AddressSanitizer + UndefinedBehaviorSanitizer, build-sanitize/)"
sanitize_status=0
{
    cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" \
        -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DLOOM_SANITIZE=address,undefined \
        -DLOOM_BUILD_TESTS=ON -DLOOM_BUILD_APPS=ON &&
    cmake --build build-sanitize -j2
} || sanitize_status=$?
record "sanitizer build (build-sanitize)" $sanitize_status

export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [[ $sanitize_status -eq 0 ]]; then
    banner "test suite under the sanitizers (ctest, build-sanitize)"
    status=0
    ctest --test-dir build-sanitize --output-on-failure --no-tests=error --timeout 1800 -j2 || status=$?
    record "test suite under AddressSanitizer + UndefinedBehaviorSanitizer" $status

    banner "fuzz batch under the sanitizers (schedule invariance, seed 4242, 400 pairs)"
    status=0
    ./build-sanitize/test/loom_fuzz_test --seed 4242 --pairs 400 || status=$?
    record "fuzz batch under the sanitizers (seed 4242, 400 pairs)" $status
fi
unset ASAN_OPTIONS UBSAN_OPTIONS

banner "install + consumer check (test/install)"
work=$(mktemp -d "${TMPDIR:-/tmp}/loom-install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
{
    cmake --install build --prefix "$work/prefix" &&
    cmake -S test/install -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$work/prefix" &&
    cmake --build "$work/build" -j2 &&
    "$work/build/loom_install_check" &&
    "$work/build/loom_install_aot_check"
} || status=$?
record "install + consumer check (find_package(Loom) from $work/prefix; JIT, and AOT through loom_add_library)" $status

banner "summary"
printf '%s\n' "${results[@]}"
if [[ $failed -ne 0 ]]; then
    echo "test.sh: FAILED"
    exit 1
fi
echo "test.sh: all passed"
