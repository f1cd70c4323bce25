# Sourced by scripts/test.sh and scripts/sanitize-long.sh: the sanitizer build and its options,
# in one place.
#
# build-sanitize/ holds the suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (LeakSanitizer is part of AddressSanitizer on x86-64 Linux): the compiler, the runtime (also
# the copy that ahead-of-time libraries embed, run by the AOT tests) and the tests are
# instrumented; code the JIT compiles is not (the sanitizers see the compiler that made it and
# the runtime calls it makes). -O1 keeps the build and the run short; assertions stay on (the IR
# is verified between lowering passes).

sanitize_build() {
    cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" \
        -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DLOOM_SANITIZE=address,undefined \
        -DLOOM_BUILD_TESTS=ON -DLOOM_BUILD_APPS=ON &&
    cmake --build build-sanitize -j2
}

# Any report ends its process with an error (the build also compiles with
# -fno-sanitize-recover=all), so that ctest counts it as a failure.
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
