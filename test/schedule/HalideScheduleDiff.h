// Differential tests of the scheduling language: each test writes one algorithm AND one
// schedule once, compiles it with Halide 14 and with Loom, realizes both over the same regions
// (sizes that are not multiples of the split factors where the tail strategy allows it, and
// non-zero mins), and requires the same bytes. A schedule never changes what a pipeline
// computes, so any difference is a bug in one of the two compilers.
//
// The math is integer, or float on values every step represents exactly, and the Halide side
// uses StrictFloat anyway, so that no fast-math freedom can change a bit.
//
// The helpers of those tests (halide_schedule_diff_loops_test.cpp, _placement_test.cpp), in an
// unnamed namespace: each test file has its own copy.
#pragma once

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <loom.h>

namespace {

inline const Halide::Target &halide_target() {
    // Halide 14 reports AVX512_SapphireRapids on CPUs that have AVX512-BF16 and -VNNI but not
    // AVX-VNNI, then emits instructions they lack (SIGILL). See test/halide/differential_test.cpp.
    static const Halide::Target target = Halide::get_host_target()
                                             .without_feature(Halide::Target::AVX512_SapphireRapids)
                                             .with_feature(Halide::Target::StrictFloat);
    return target;
}

// ---------------------------------------------------------------------------------------------
// Inputs: the same bytes in a Halide::Buffer and in a loom::Buffer.

/** A dense buffer of the given sizes whose dimension i starts at mins[i], filled with values
 * in [lo, hi] drawn from `seed` in memory order, so that both languages see the same data.
 * B is Halide::Buffer<T> or loom::Buffer<T>. */
template <typename B>
B random_buffer(const std::vector<int> &sizes, uint32_t seed, int lo, int hi,
                const std::vector<int> &mins = {}, const std::string &name = "input") {
    using T = typename B::ElemType;
    B b(sizes, name);
    if (!mins.empty()) b.set_min(mins);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    T *p = b.data();
    for (size_t i = 0; i < (size_t)b.number_of_elements(); i++)
        p[i] = (T)dist(rng);
    return b;
}

/** The loop v of stage `stage` of f (0: the pure definition, i + 1: update i). Loom names it
 * f.at(v) or f.update(i).at(v); it has no LoopLevel(const Func &, VarOrRVar, int) constructor.
 * Halide 14's legality check rejects a LoopLevel with an explicit stage index even where it
 * lists that very loop as legal, so the Halide side names no stage: LoopLevel(f, v) matches
 * loop v of the stage that uses the producer, which is the stage the tests mean. */
inline Halide::LoopLevel loop_level(const Halide::Func &f, const Halide::VarOrRVar &v, int stage) {
    (void)stage;
    return Halide::LoopLevel(f, v);
}
inline loom::LoopLevel loop_level(const loom::Func &f, const loom::VarOrRVar &v, int stage) {
    return stage == 0 ? f.at(v) : f.update(stage - 1).at(v);
}

/** A named RVar for the loops split from an RVar; the RDom only picks the language. Halide
 * writes RVar("rxo"); Loom has no RVar(const std::string &) constructor and takes the name as a
 * VarOrRVar. */
inline Halide::RVar rvar_named(const Halide::RDom &, const std::string &name) {
    return Halide::RVar(name);
}
inline loom::VarOrRVar rvar_named(const loom::RDom &, const std::string &name) {
    return loom::VarOrRVar(name);
}

// ---------------------------------------------------------------------------------------------
// The harness.

/** A region to realize over: extents and mins (all zero when mins is empty). */
struct Box {
    std::vector<int> extents, mins;
};

inline std::string describe(const Box &box) {
    std::ostringstream s;
    s << "[";
    for (size_t i = 0; i < box.extents.size(); i++) {
        int mn = box.mins.empty() ? 0 : box.mins[i];
        s << (i ? ", " : "") << mn << ".." << mn + box.extents[i] - 1;
    }
    return s.str() + "]";
}

/** Coordinates of element `index` of a dense buffer over box. */
inline std::string coordinates(const Box &box, size_t index) {
    std::ostringstream s;
    s << "(";
    for (size_t i = 0; i < box.extents.size(); i++) {
        int mn = box.mins.empty() ? 0 : box.mins[i];
        s << (i ? ", " : "") << mn + (int)(index % box.extents[i]);
        index /= box.extents[i];
    }
    return s.str() + ")";
}

template <typename T> std::string show(T v) {
    if constexpr (std::is_integral<T>::value && sizeof(T) == 1) return std::to_string(int(v));
    std::ostringstream s;
    s << v;
    return s.str();
}

/** Builds the pipeline with each body (which returns its output Func), realizes it over each
 * box in turn (one compilation, reused), into `tuple_size` buffers of T per box, and expects
 * the bytes of every buffer to be identical. */
template <typename T, typename HalideBody, typename LoomBody>
void expect_same_output(HalideBody halide_body, LoomBody loom_body, const std::vector<Box> &boxes,
                        int tuple_size = 1) {
    Halide::Func hf;
    loom::Func lf;
    try {
        hf = halide_body();
    } catch (const std::exception &e) {
        FAIL() << "Halide failed to define the pipeline: " << e.what();
    }
    // Halide runs even where Loom rejects the pipeline, to show that Halide accepts it.
    bool loom_defined = true;
    try {
        lf = loom_body();
    } catch (const std::exception &e) {
        ADD_FAILURE() << "Loom threw while defining or scheduling the pipeline: " << e.what();
        loom_defined = false;
    }
    for (const Box &box : boxes) {
        SCOPED_TRACE("realized over " + describe(box));
        std::vector<Halide::Buffer<>> h_out;
        std::vector<loom::Buffer<>> l_out;
        for (int k = 0; k < tuple_size; k++) {
            Halide::Buffer<T> h(box.extents, "h_out" + std::to_string(k));
            loom::Buffer<T> l(box.extents, "l_out" + std::to_string(k));
            if (!box.mins.empty()) {
                h.set_min(box.mins);
                l.set_min(box.mins);
            }
            h_out.push_back(h);
            l_out.push_back(l);
        }
        try {
            if (tuple_size == 1) {
                Halide::Buffer<T> h(h_out[0]);
                hf.realize(h, halide_target());
            } else {
                Halide::Realization r(h_out);
                hf.realize(r, halide_target());
            }
        } catch (const std::exception &e) {
            // After a failed compilation Halide's JIT is left unusable: stop here.
            FAIL() << "Halide failed: " << e.what();
        }
        if (!loom_defined) continue;
        try {
            if (tuple_size == 1) {
                loom::Buffer<T> l(l_out[0]);
                lf.realize(l);
            } else {
                lf.realize(l_out);
            }
        } catch (const std::exception &e) {
            ADD_FAILURE() << "Loom threw: " << e.what();
            continue;
        }
        for (int k = 0; k < tuple_size; k++) {
            Halide::Buffer<T> h(h_out[k]);
            loom::Buffer<T> l(l_out[k]);
            size_t n = (size_t)h.number_of_elements();
            ASSERT_EQ((size_t)l.number_of_elements(), n);
            const T *hp = h.data(), *lp = l.data();
            if (std::memcmp(hp, lp, n * sizeof(T)) == 0) continue;
            size_t first = n, count = 0;
            for (size_t i = 0; i < n; i++) {
                if (std::memcmp(hp + i, lp + i, sizeof(T)) != 0) {
                    if (first == n) first = i;
                    count++;
                }
            }
            ADD_FAILURE() << "output " << k << ": " << count << " of " << n
                          << " elements differ; the first at " << coordinates(box, first)
                          << ": Halide " << show(hp[first]) << ", Loom " << show(lp[first]);
        }
    }
}

// The body is written once and compiled in each language: `using namespace` picks Halide's or
// Loom's Func, Var, RDom, Buffer, TailStrategy, sum, BoundaryConditions... It returns the
// output Func.
#define SAME_PIPELINE(...)                                                                         \
    [&]() {                                                                                        \
        using namespace Halide;                                                                    \
        __VA_ARGS__                                                                                \
    },                                                                                             \
        [&]() {                                                                                    \
            using namespace loom;                                                                  \
            __VA_ARGS__                                                                            \
        }

// A two-stage stencil many tests schedule: g reads a uint8 input, f reads g at three points.
// The input covers [-8, 99] x [-8, 71], so every region below reads inside it.
#define STENCIL_ALGORITHM                                                                          \
    Buffer<uint8_t> in = random_buffer<Buffer<uint8_t>>({108, 80}, 1, 0, 255, {-8, -8}, "in");     \
    Var x("x"), y("y");                                                                            \
    Func g("g"), f("f");                                                                           \
    g(x, y) = cast<uint16_t>(in(x, y)) * 3 + in(x + 1, y) - in(x, y + 1);                          \
    f(x, y) = g(x - 1, y) + g(x, y) * 2 + g(x + 1, y + 2);

// Regions: widths and heights not multiples of 2, 4, 8 or 16, and non-zero (negative) mins.
inline const std::vector<Box> kOddRegions = {
    {{37, 13}, {3, -2}}, {{53, 29}, {-5, 7}}, {{17, 9}, {0, 0}}};

/** kOddRegions and more: GuardWithIf also takes regions smaller than the factors. */
inline std::vector<Box> odd_regions_and(const std::vector<Box> &more) {
    std::vector<Box> all = kOddRegions;
    all.insert(all.end(), more.begin(), more.end());
    return all;
}

} // namespace
