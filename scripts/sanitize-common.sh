# Sourced by scripts/test.sh and scripts/sanitize-long.sh: the sanitizer build and its options,
# in one place.
#
# build-sanitize/ holds the suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (LeakSanitizer is part of AddressSanitizer on x86-64 Linux): the compiler, the runtime (also
# the copy that ahead-of-time libraries embed, run by the AOT tests) and the tests are
# instrumented; code the JIT compiles is not (the sanitizers see the compiler that made it and
# the runtime calls it makes). -O1 keeps the build and the run short; assertions stay on (the IR
# is verified between lowering passes).

# Configures build-sanitize/; the arguments are further CMake options.
sanitize_configure() {
    cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" \
        -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DLOOM_SANITIZE=address,undefined \
        -DLOOM_BUILD_TESTS=ON "$@"
}

# The whole suite, apps and Halide oracle included (scripts/sanitize-long.sh).
sanitize_build() {
    sanitize_configure -DLOOM_BUILD_APPS=ON -DLOOM_HALIDE_ORACLE=ON &&
    cmake --build build-sanitize -j2
}

# Any report ends its process with an error (the build also compiles with
# -fno-sanitize-recover=all), so that ctest counts it as a failure.
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The short stage CI runs (scripts/test.sh), sized to keep CI within its time: the compiler
# and runtime instrumented as above, but only the test executables below and the fuzzer, no
# apps and no Halide oracle. Their tests carry their executable's name as a ctest label.
SANITIZE_SHORT_TESTS=(loom_ir_test loom_errors_test loom_runtime_test loom_e2e_test
                      loom_lower_test loom_jit_placement_test)
sanitize_build_short() {
    sanitize_configure -DLOOM_BUILD_APPS=OFF -DLOOM_HALIDE_ORACLE=OFF &&
    cmake --build build-sanitize -j2 --target "${SANITIZE_SHORT_TESTS[@]}" loom_fuzz_test
}

# The ctest label expression that selects the short stage's tests.
sanitize_short_labels() {
    local IFS='|'
    echo "^(${SANITIZE_SHORT_TESTS[*]})\$"
}
