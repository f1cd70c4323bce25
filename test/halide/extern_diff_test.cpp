// Extern stages (define_extern) in Halide 14 and in Loom: the same C function (one template,
// instantiated for each compiler's buffer struct), the same pipeline and schedule. The outputs
// must be the same bytes, and the function must be called the same number of times over the
// same regions, each region queried first as Halide queries it.

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <loom.h>

namespace {

// Every call of the function: "q" for a bounds query, "c" for a call, and the output's region.
std::vector<std::string> calls;

template <typename B> int &at(B *b, int x, int y) {
    return ((int *)b->host)[(x - b->dim[0].min) * b->dim[0].stride +
                            (y - b->dim[1].min) * b->dim[1].stride];
}

// out(x, y) = in(x - 1, y) + 2 in(x, y + 1) - in(x + 2, y) + k: reads the columns from one
// before to two past, and one row more below.
template <typename B> int shifted_sum(B *in, int k, B *out) {
    const bool query = in->host == nullptr;
    calls.push_back(std::string(query ? "q " : "c ") + std::to_string(out->dim[0].min) + "," +
                    std::to_string(out->dim[0].extent) + " " + std::to_string(out->dim[1].min) +
                    "," + std::to_string(out->dim[1].extent));
    if (query) {
        in->dim[0].min = out->dim[0].min - 1;
        in->dim[0].extent = out->dim[0].extent + 3;
        in->dim[1].min = out->dim[1].min;
        in->dim[1].extent = out->dim[1].extent + 1;
        return 0;
    }
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at(out, x, y) = at(in, x - 1, y) + 2 * at(in, x, y + 1) - at(in, x + 2, y) + k;
    }
    return 0;
}

} // namespace

extern "C" int halide_test_shifted_sum(halide_buffer_t *in, int k, halide_buffer_t *out) {
    return shifted_sum(in, k, out);
}
extern "C" int loom_test_shifted_sum(loom_buffer_t *in, int k, loom_buffer_t *out) {
    return shifted_sum(in, k, out);
}

namespace {

// (Stored at the root and computed per row, Halide 14 folds the storage of e and then refuses
// its own schedule, "Cannot fold dimension 1 of e because an extern stage accesses [2, 4]":
// test/e2e/extern_stage_test.cpp checks that schedule against a C++ reference.)
enum class Where { Root, PerRow, InputPerRow };

// g, the extern stage e over it, and h reading e at two rows, scheduled as `where` says.
template <typename F, typename V, typename T>
void define(F &g, F &e, F &h, V x, V y, T int_type, const char *function, Where where) {
    g(x, y) = x * 5 - y * 3 + (x ^ y);
    e.define_extern(function, {g, 9}, int_type, 2);
    h(x, y) = e(x, y) + e(x, y + 2) * 3;
    g.compute_root();
    switch (where) {
    case Where::Root:
        e.compute_root();
        break;
    case Where::PerRow:
        e.compute_at(h, y);
        break;
    case Where::InputPerRow:
        e.compute_at(h, y);
        g.compute_at(h, y);
        break;
    }
}

void expect_same_as_halide(Where where) {
    const int w = 13, ht = 7;
    Halide::Func hg("g"), he("e"), hh("h");
    Halide::Var hx("x"), hy("y");
    define(hg, he, hh, hx, hy, Halide::Int(32), "halide_test_shifted_sum", where);
    calls.clear();
    Halide::Buffer<int> expected = hh.realize({w, ht});
    const std::vector<std::string> halide_calls = calls;

    loom::Func lg("g"), le("e"), lh("h");
    loom::Var lx("x"), ly("y");
    define(lg, le, lh, lx, ly, loom::Int(32), "loom_test_shifted_sum", where);
    calls.clear();
    loom::Buffer<int> out = lh.realize({w, ht});
    int bad = 0;
    for (int y = 0; y < ht; y++) {
        for (int x = 0; x < w; x++)
            bad += out(x, y) != expected(x, y);
    }
    EXPECT_EQ(bad, 0);
    // The real calls, in order, over the same regions. Every region Loom queries Halide
    // queries too (Halide also queries per iteration where the input is computed outside the
    // loop and the query over the whole loop gave its region already).
    std::vector<std::string> loom_real, halide_real;
    for (const std::string &c : calls)
        if (c[0] == 'c') loom_real.push_back(c);
    for (const std::string &c : halide_calls)
        if (c[0] == 'c') halide_real.push_back(c);
    EXPECT_EQ(loom_real, halide_real);
    for (const std::string &c : calls) {
        if (c[0] != 'q') continue;
        EXPECT_NE(std::find(halide_calls.begin(), halide_calls.end(), c), halide_calls.end())
            << "Loom queries " << c << ", which Halide never does";
    }
}

} // namespace

TEST(ExternVsHalide, ComputedAtRoot) { expect_same_as_halide(Where::Root); }
TEST(ExternVsHalide, ComputedPerRowOfTheConsumer) { expect_same_as_halide(Where::PerRow); }
TEST(ExternVsHalide, InputComputedPerRowToo) { expect_same_as_halide(Where::InputPerRow); }
