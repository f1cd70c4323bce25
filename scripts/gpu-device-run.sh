#!/bin/bash
# Runs on a GPU machine that has no LLVM (the device tool's machine), from the repository root,
# with the binaries built here with LLVM linked statically and copied into .device-build/:
#
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DLOOM_STATIC_LLVM=ON \
#         -DLOOM_HALIDE_ORACLE=OFF -DLOOM_BUILD_BENCHMARKS=ON \
#         "-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc"
#   cmake --build build-gpu -j2 --target loom_gpu_test loom_apps_test loom_fuzz_test loom_gpu_bench
#   scripts/gpu-device-run.sh --stage     (copies them and the shared libraries they need into
#                                          .device-build/, and packs that into
#                                          .device-carry/bundle.tar.xz: 4 binaries of 54 MB
#                                          each travel as 25 MB; carry .device-carry)
#
# Steps, in the order given (default: tests bench):
#   tests   the GPU tests, every app's GPU schedules (its own and the heuristic's) against its
#           C++ reference, and FUZZ_PAIRS (default 60) pairs of the GPU auto-schedule fuzzer
#   bench   loom_gpu_bench (VARIANTS, default gpu,gpu-auto,gpu-autotune; APPS, default the apps
#           with a GPU schedule) and the torch.compile
#           peer in the same call, joined into one table (apps/bench/gpu_table.py)
# Logs and results go to $OUT (the device tool brings them back); the last lines printed are
# each step's summary.
set -u
D=.device-build

if [ "${1:-}" = "--stage" ]; then
    rm -rf "$D" && mkdir -p "$D/lib"
    for t in test/loom_gpu_test apps/loom_apps_test test/loom_fuzz_test apps/bench/loom_gpu_bench; do
        strip -o "$D/$(basename "$t")" "build-gpu/$t"
    done
    cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1debian /usr/lib/x86_64-linux-gnu/libpng16.so.16 "$D/lib/"
    for ignored in /.device-build/ /.device-carry/; do
        grep -qx "$ignored" .gitignore || echo "add $ignored to .gitignore" >&2
    done
    mkdir -p .device-carry
    tar -C "$D" -cf - . | xz -9 -T2 > .device-carry/bundle.tar.xz
    du -sh "$D" .device-carry
    exit 0
fi

if [ ! -x "$D/loom_gpu_test" ] && [ -f .device-carry/bundle.tar.xz ]; then
    mkdir -p "$D" && xz -dc .device-carry/bundle.tar.xz | tar -C "$D" -xf -
fi

OUT=${OUT:-/tmp/loom-device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$D/lib:${LD_LIBRARY_PATH:-}
export LOOM_JIT_CACHE=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

summary() { # NAME LOG RC
    echo "== $1: rc=$3; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' "$2" | head -4 | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$2" | head -20
}

for step in "${@:-tests bench}"; do
    for s in $step; do
        case "$s" in
        tests)
            "$D/loom_gpu_test" > "$OUT/gpu_test.log" 2>&1
            summary loom_gpu_test "$OUT/gpu_test.log" $?
            "$D/loom_apps_test" --gtest_filter='*GPU*' > "$OUT/apps_gpu.log" 2>&1
            summary "loom_apps_test *GPU*" "$OUT/apps_gpu.log" $?
            timeout 240 "$D/loom_fuzz_test" --auto --gpu --seed "${FUZZ_SEED:-1}" \
                --pairs "${FUZZ_PAIRS:-60}" > "$OUT/fuzz_gpu.log" 2>&1
            rc=$?
            summary "loom_fuzz_test --auto --gpu (seed ${FUZZ_SEED:-1})" "$OUT/fuzz_gpu.log" $rc
            grep -E "^==== (FAILURE|CRASH)" "$OUT/fuzz_gpu.log" | head -5
            ;;
        bench)
            "$D/loom_gpu_bench" --variants="${VARIANTS:-gpu,gpu-auto,gpu-autotune}" ${APPS:+--apps=$APPS} \
                --benchmark_repetitions=5 --benchmark_out="$OUT/loom.json" \
                --benchmark_out_format=json > "$OUT/loom_stdout.txt" 2> "$OUT/loom_stderr.txt"
            echo "== loom_gpu_bench rc=$?"
            tail -3 "$OUT/loom_stderr.txt"
            python3 apps/bench/gpu_peer.py > "$OUT/torch.json" 2> "$OUT/torch_stderr.txt"
            echo "== gpu_peer.py rc=$?"
            python3 apps/bench/gpu_table.py "$OUT/loom_stdout.txt" "$OUT/loom.json" \
                "$OUT/torch.json" | tee "$OUT/table.md"
            ;;
        *)
            echo "unknown step $s (tests, bench)" >&2
            exit 2
            ;;
        esac
    done
done
