#!/usr/bin/env bash
# The longer sanitizer run, on demand (CI runs a short one in scripts/test.sh): builds the suite
# with AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/ (as scripts/test.sh
# does), runs every test there (the apps at their test sizes among them), then the
# schedule-invariance fuzzer over fresh seeds, PAIRS pairs each (default 1000). Seeds are the
# arguments, or five drawn from the clock, printed so that a failure can be replayed with
# `build-sanitize/test/loom_fuzz_test --seed S --pairs N`. Exits nonzero on any report.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pairs=${PAIRS:-1000}
seeds=("$@")
if [[ ${#seeds[@]} -eq 0 ]]; then
    base=$(date +%s)
    for k in 0 1 2 3 4; do seeds+=($(( (base + k * 7919) % 1000000007 ))); done
fi

bash scripts/setup-deps.sh
source scripts/sanitize-common.sh
sanitize_build
failed=0
start=$(date +%s)
ctest --test-dir build-sanitize --output-on-failure --no-tests=error --timeout 1800 -j2 || failed=1
echo "sanitize-long: ctest under the sanitizers took $(( $(date +%s) - start )) s"
for seed in "${seeds[@]}"; do
    start=$(date +%s)
    if ./build-sanitize/test/loom_fuzz_test --seed "$seed" --pairs "$pairs" | tail -n 4; then
        echo "sanitize-long: seed $seed, $pairs pairs: clean ($(( $(date +%s) - start )) s)"
    else
        echo "sanitize-long: seed $seed, $pairs pairs: FAILED"
        failed=1
    fi
done
[[ $failed -eq 0 ]] && echo "sanitize-long: all clean" || { echo "sanitize-long: FAILED"; exit 1; }
