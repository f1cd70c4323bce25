#!/usr/bin/env bash
# Installs what is missing, builds everything (Release, in build/), runs the test suite with
# ctest, runs the demo (which checks its output against plain C++), builds the compiler and part
# of the suite again with AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/) and
# runs those tests and a fuzz batch there, then installs Loom into a temporary prefix and builds
# and runs test/install/, a separate project that uses it through find_package(Loom), and Halide
# 14's tutorial against it (scripts/halide-tutorial.sh). Exits nonzero if any of these fails;
# prints a summary at the end, with each stage's time. CI gives it 90 minutes on 2 cores; it
# takes about 50 (the whole suite under the sanitizers is scripts/sanitize-long.sh, on demand).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

banner() { printf '\n==== %s ====\n' "$*"; }
started=$(date +%s)

banner "dependencies"
bash scripts/setup-deps.sh
bash scripts/fetch-photos.sh

banner "configure and build (Release, build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=ON -DLOOM_BUILD_APPS=ON
cmake --build build -j2

results=()
failed=0
stage_start=$started
record() {  # record NAME STATUS: the stage that began at stage_start has ended
    local took="$(( $(date +%s) - stage_start )) s"
    if [[ $2 -eq 0 ]]; then
        results+=("PASSED  $1 [$took]")
    else
        results+=("FAILED  $1 (exit status $2) [$took]")
        failed=1
    fi
    stage_start=$(date +%s)
}
record "dependencies and the Release build" 0

banner "test suite (ctest)"
status=0
ctest --test-dir build --output-on-failure --no-tests=error --timeout 900 -j2 || status=$?
record "test suite (ctest)" $status

banner "demo"
status=0
./build/apps/demo/loom_demo || status=$?
record "demo (loom_demo, fused and unfused against C++)" $status

# The compiler, the runtime and the tests of lowering, code generation and the runtime built with
# AddressSanitizer and UndefinedBehaviorSanitizer (see scripts/sanitize-common.sh), and a fuzz
# batch: seed 4242 is the one whose pairs once failed only under the sanitizers (JIT objects
# mapped out of each other's reach).
banner "sanitizers: configure and build (AddressSanitizer + UndefinedBehaviorSanitizer, build-sanitize/)"
(
    source scripts/sanitize-common.sh
    sanitize_build_short
) && sanitize_status=0 || sanitize_status=$?
record "sanitizer build (build-sanitize: the compiler, runtime, tests below and the fuzzer)" $sanitize_status

if [[ $sanitize_status -eq 0 ]]; then
    banner "tests under the sanitizers (ctest, build-sanitize)"
    status=0
    (
        source scripts/sanitize-common.sh
        echo "executables: ${SANITIZE_SHORT_TESTS[*]}"
        ctest --test-dir build-sanitize --output-on-failure --no-tests=error --timeout 900 -j2 \
            -L "$(sanitize_short_labels)"
    ) || status=$?
    record "tests under AddressSanitizer + UndefinedBehaviorSanitizer" $status

    banner "fuzz batch under the sanitizers (schedule invariance, seed 4242, 150 pairs)"
    status=0
    (
        source scripts/sanitize-common.sh
        ./build-sanitize/test/loom_fuzz_test --seed 4242 --pairs 150
    ) || status=$?
    record "fuzz batch under the sanitizers (seed 4242, 150 pairs)" $status
fi

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

# Halide 14's tutorial against the installed Loom (test/tutorial/lessons.txt says what each
# lesson must show: most print exactly what they print on Halide 14).
banner "Halide 14 tutorial (scripts/halide-tutorial.sh, against the installed Loom)"
status=0
bash scripts/halide-tutorial.sh --prefix "$work/prefix" --work "$work/tutorial" || status=$?
record "Halide 14 tutorial lessons (test/tutorial/lessons.txt)" $status

banner "summary"
printf '%s\n' "${results[@]}"
if [[ $failed -ne 0 ]]; then
    echo "test.sh: FAILED after $(( $(date +%s) - started )) s"
    exit 1
fi
echo "test.sh: all passed in $(( $(date +%s) - started )) s"
