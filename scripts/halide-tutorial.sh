#!/usr/bin/env bash
# Halide 14's tutorial as an acceptance suite: fetches Debian's libhalide14-doc (apt-get
# download; nothing of it is kept in the repository), builds the JIT lessons listed in
# test/tutorial/lessons.txt unchanged against an installed Loom (Loom::halide_compat: Halide.h
# and Halide's tool headers) and against Halide 14, runs each pair in the tutorial folder (where
# its images are) on one thread, and compares what they print, line for line.
#
#   scripts/halide-tutorial.sh --prefix <Loom's install prefix> [--work <dir>]
#
# Exits nonzero if a lesson does worse than lessons.txt expects.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

prefix="" work=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "usage: $0 --prefix <Loom install prefix> [--work <dir>]" >&2; exit 2 ;;
    esac
done
[[ -n "$prefix" ]] || { echo "$0: --prefix is required" >&2; exit 2; }
if [[ -z "$work" ]]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/loom-tutorial.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

# The package: downloaded once per work folder.
doc="$work/halide14-doc"
tutorial="$doc/usr/share/doc/halide14/tutorial"
if [[ ! -f "$tutorial/lesson_01_basics.cpp" ]]; then
    (cd "$work" && apt-get download libhalide14-doc >/dev/null 2>&1) || {
        echo "$0: apt-get download libhalide14-doc failed" >&2; exit 1; }
    dpkg -x "$work"/libhalide14-doc_*.deb "$doc"
    gunzip -f "$tutorial"/*.gz
fi

mapfile -t entries < <(grep -v '^#' "$repo/test/tutorial/lessons.txt" | grep -v '^$')
lessons=()
for e in "${entries[@]}"; do lessons+=("${e%% *}"); done

cmake -S "$repo/test/tutorial" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DLOOM_TUTORIAL_DIR="$tutorial" \
    "-DLOOM_TUTORIAL_LESSONS=$(IFS=';'; echo "${lessons[*]}")" >"$work/configure.log" 2>&1 || {
    cat "$work/configure.log"; exit 1; }
# Keep going past a lesson that does not compile, so that the others still run; its log says why.
cmake --build "$work/build" -j2 -- -k >"$work/build.log" 2>&1 || true

# One thread: the lessons' parallel loops then run in order in both. Line-buffered stdout, so
# that the lesson's printf lines and the runtime's lines keep their order in the capture. No
# persistent JIT cache: every pipeline is compiled, so its compile-time warnings print each run.
run_lesson() {  # run_lesson EXECUTABLE OUTPUT
    (cd "$tutorial" && HL_NUM_THREADS=1 LOOM_NUM_THREADS=1 LOOM_JIT_CACHE=0 timeout 600 \
        stdbuf -oL -eL "$1" >"$2" 2>&1)
}

failed=0
summary=()
rank() { case "$1" in same) echo 3 ;; runs) echo 2 ;; builds) echo 1 ;; *) echo 0 ;; esac; }
for e in "${entries[@]}"; do
    lesson="${e%% *}" expected="${e#* }"
    loom_exe="$work/build/lesson_${lesson}_loom" halide_exe="$work/build/lesson_${lesson}_halide"
    got="fails to build"
    if [[ -x "$loom_exe" ]]; then
        got="builds"
        status=0
        run_lesson "$loom_exe" "$work/out_${lesson}_loom.txt" || status=$?
        if [[ $status -eq 0 ]]; then
            got="runs"
            if [[ -x "$halide_exe" ]]; then
                run_lesson "$halide_exe" "$work/out_${lesson}_halide.txt" || true
                if diff -q "$work/out_${lesson}_halide.txt" "$work/out_${lesson}_loom.txt" >/dev/null; then
                    got="same"
                else
                    diff "$work/out_${lesson}_halide.txt" "$work/out_${lesson}_loom.txt" \
                        >"$work/diff_${lesson}.txt" || true
                fi
            fi
        else
            got="exits with status $status"
        fi
    fi
    got_word="${got%% *}"
    if [[ $(rank "$got_word") -lt $(rank "$expected") ]]; then
        failed=1
        summary+=("FAILED  lesson $lesson: expected $expected, $got")
        if [[ -f "$work/diff_${lesson}.txt" ]]; then
            echo "---- lesson $lesson: Halide 14 (<) and Loom (>) differ:"; head -40 "$work/diff_${lesson}.txt"
        elif [[ "$got" == "fails to build" ]]; then
            echo "---- lesson $lesson does not build:"; grep -m 20 -E "error" "$work/build.log" || true
        else
            echo "---- lesson $lesson: $got; its output ends:"; tail -20 "$work/out_${lesson}_loom.txt"
        fi
    elif [[ $(rank "$got_word") -gt $(rank "$expected") ]]; then
        summary+=("better  lesson $lesson: expected $expected, $got (update test/tutorial/lessons.txt)")
    else
        summary+=("ok      lesson $lesson: $got")
    fi
done
printf '\n==== Halide 14 tutorial against Loom ====\n'
printf '%s\n' "${summary[@]}"
exit $failed
