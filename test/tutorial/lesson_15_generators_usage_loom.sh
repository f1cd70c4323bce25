#!/usr/bin/env bash
# Halide 14's lesson_15_generators_usage.sh, step for step, run with Loom's generator driver in
# the current folder: GENERATE is the lesson's generator file (lesson_15_generators.cpp,
# unchanged) built with loom_add_generator. What differs from Halide's script, and why, is in
# docs/HALIDE_TUTORIAL.md (lesson 15); each difference is marked "Loom:" below.
#
#   lesson_15_generators_usage_loom.sh GENERATE
set -eu
GENERATE="$1"

check_file_exists() {
    if [ ! -f "$1" ]; then
        echo "$1 not found"
        exit 1
    fi
}

check_symbol() {
    if ! nm "$1" | grep "$2" >/dev/null; then
        echo "$2 not found in $1"
        exit 1
    fi
}

# Loom: the runtime's functions are named loom_*, not halide_*.
check_runtime() {
    if ! nm "$1" | grep "[TSW] _\?loom_" >/dev/null; then
        echo "Loom's runtime not found in $1"
        exit 1
    fi
}

check_no_runtime() {
    if nm "$1" | grep "[TSW] _\?loom_" >/dev/null; then
        echo "Loom's runtime found in $1"
        exit 1
    fi
}

# The first generator, for the host.
"$GENERATE" -g my_first_generator -o . target=host
check_file_exists my_first_generator.a
check_file_exists my_first_generator.h
check_symbol my_first_generator.a my_first_generator

# Loom: 32-bit Windows is a target Loom does not compile for: the driver must refuse it,
# naming what it can do, and write nothing.
if "$GENERATE" -g my_first_generator -f my_first_generator_win32 -o . \
    target=x86-32-windows 2>win32.err; then
    echo "target=x86-32-windows was accepted"
    exit 1
fi
grep -q "x86-64 Linux only" win32.err || { cat win32.err; exit 1; }
if [ -e my_first_generator_win32.lib ] || [ -e my_first_generator_win32.h ]; then
    echo "target=x86-32-windows wrote files"
    exit 1
fi

# The lowered loop nest.
"$GENERATE" -g my_first_generator -e stmt -o . target=host
check_file_exists my_first_generator.stmt

# The second generator with its GeneratorParams set, the output's type among them.
"$GENERATE" -g my_second_generator -f my_second_generator_1 -o . \
    target=host parallel=false scale=3.0 rotation=ccw output.type=uint16
"$GENERATE" -g my_second_generator -f my_second_generator_2 -o . \
    target=host scale=9.0 rotation=ccw output.type=float32
"$GENERATE" -g my_second_generator -f my_second_generator_3 -o . \
    target=host parallel=false output.type=float64
for i in 1 2 3; do
    check_file_exists my_second_generator_$i.a
    check_file_exists my_second_generator_$i.h
    check_symbol my_second_generator_$i.a my_second_generator_$i
done

echo "Loom's runtime:"
nm my_second_generator_1.a | grep "[SWT] _\?loom_"

# Three versions of the first generator without the runtime, then the runtime alone, joined
# in one library. Loom: the objects never hold the runtime; no_runtime drops it from static
# libraries.
for variant in basic:host-x86-64 sse41:host-x86-64-sse41 avx:host-x86-64-avx; do
    "$GENERATE" -g my_first_generator -f my_first_generator_${variant%%:*} -e object,c_header \
        -o . target=${variant#*:}-no_runtime
done
"$GENERATE" -r loom_runtime_x86 -e object,c_header -o . target=host-x86-64
for v in basic sse41 avx; do
    check_no_runtime my_first_generator_$v.o
    check_symbol my_first_generator_$v.o my_first_generator_$v
done
check_runtime loom_runtime_x86.o

rm -f my_first_generator_multi.a
ar q my_first_generator_multi.a my_first_generator_basic.o my_first_generator_sse41.o \
    my_first_generator_avx.o loom_runtime_x86.o
check_runtime my_first_generator_multi.a
for v in basic sse41 avx; do
    check_symbol my_first_generator_multi.a my_first_generator_$v
done

echo "Success!"
