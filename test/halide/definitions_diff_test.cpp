// Halide 14's rules and names for definitions and inputs (issue 35), each called the same way
// in Loom and in Halide 14 and compared: where an update's pure Vars stand, memoize_tag's keys,
// scatter and gather, debug_to_file's files, and dynamically typed Params. (The other names
// are compared in api_names_diff_test.cpp.)

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include <loom.h>

namespace {

// "what: accepted" where body runs, "what: refused" where it throws.
std::string outcome(const char *what, const std::function<void()> &body) {
    try {
        body();
        return std::string(what) + ": accepted";
    } catch (const std::exception &) {
        return std::string(what) + ": refused";
    }
}

// Halide's rule for the Vars on the left of an update: a bare Var is one of its pure Vars only
// where the pure definition has the same Var. Updates with Vars in other places, with a Var
// the pure definition lacks, or with a pure Var where an RVar's place is, are refused; those
// with each pure Var in its place (beside RVars and constants) run; an update that comes first
// names the pure Vars after its own. Returns, per update, "accepted" or "refused", the Vars of
// the Func an update defined first, then the values of the accepted updates.
#define WITH_UPDATE_PURE_VARS(NS)                                                                  \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        Var x("x"), y("y"), z("z");                                                                \
        RDom r(0, 3, "r");                                                                         \
        Func swapped("swapped"), foreign("foreign"), rvar_first("rvar_first"), kept("kept");       \
        std::vector<std::string> seen;                                                             \
        auto attempt = [&](const char *what, const std::function<void()> &body) {                  \
            seen.push_back(outcome(what, body));                                                   \
        };                                                                                         \
        swapped(x, y) = x + y;                                                                     \
        foreign(x, y) = x + y;                                                                     \
        rvar_first(x, y) = x + y;                                                                  \
        kept(x, y) = x * 10 + y;                                                                   \
        attempt("swapped", [&] { swapped(y, x) += 1; });                                           \
        attempt("foreign", [&] { foreign(x, z) += z; });                                           \
        attempt("rvar_first", [&] { rvar_first(r, x) += 1; });                                     \
        attempt("kept", [&] {                                                                      \
            kept(x, y) += 100;                                                                     \
            kept(x, 0) += x;                                                                       \
            kept(r, y) += kept(r, y) * 2;                                                          \
        });                                                                                        \
        Func update_first("update_first");                                                         \
        update_first(y, x) += x - y;                                                               \
        std::string names = "update_first:";                                                       \
        for (const Var &a : update_first.args())                                                   \
            names += " " + a.name();                                                               \
        seen.push_back(names);                                                                     \
        Buffer<int> out = kept.realize({4, 2});                                                    \
        std::string values;                                                                        \
        for (int j = 0; j < 2; j++)                                                                \
            for (int i = 0; i < 4; i++)                                                            \
                values += std::to_string(out(i, j)) + " ";                                         \
        seen.push_back(values);                                                                    \
        return seen;                                                                               \
    }()

} // namespace

TEST(ApiNamesVsHalide, AnUpdatesPureVarsStandWhereThePureDefinitionHasThem) {
    const std::vector<std::string> loom_seen = WITH_UPDATE_PURE_VARS(loom);
    const std::vector<std::string> halide_seen = WITH_UPDATE_PURE_VARS(Halide);
    EXPECT_EQ(loom_seen, halide_seen);
    EXPECT_EQ(loom_seen[0], "swapped: refused");
    EXPECT_EQ(loom_seen[1], "foreign: refused");
    EXPECT_EQ(loom_seen[2], "rvar_first: refused");
    EXPECT_EQ(loom_seen[3], "kept: accepted");
    // An update first implies a pure definition over its own Vars, in their places.
    EXPECT_EQ(loom_seen[4], "update_first: y x");
    // kept(1, 0) = (10 + 100 + 1) * 3; kept(3, 0) = 30 + 100 + 3 (past r); kept(3, 1) = 31 + 100.
    EXPECT_EQ(loom_seen[5], "300 333 366 133 303 333 363 131 ");
}

namespace {

// memoize_tag: the key of a memoized Func holds the tags instead of what the tagged value reads,
// so runs that change only an untagged Param get the region of the run with the same tags (the
// caller's promise, broken here on purpose); a value tagged alone keys by its own value. The
// same runs give the same values, stale ones included, in both.
#define WITH_MEMOIZE_TAGS(NS, TARGET)                                                              \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        const Target target = TARGET;                                                              \
        Param<float> scale("scale");                                                               \
        Param<int> offset("offset"), version("version");                                           \
        Var x("x");                                                                                \
        Func quantized("quantized_tag"), tagged("tagged_tag"), out("tags_out");                    \
        quantized(x) = x * memoize_tag(cast<int>(scale));                                          \
        tagged(x) = x + memoize_tag(offset, version);                                              \
        quantized.compute_root().memoize();                                                        \
        tagged.compute_root().memoize();                                                           \
        out(x) = quantized(x) * 100 + tagged(x);                                                   \
        const float scales[] = {1.2f, 1.7f, 2.3f, 1.9f, 2.6f};                                     \
        const int offsets[] = {1, 5, 5, 9, 7}, versions[] = {1, 1, 2, 1, 2};                       \
        std::vector<int> seen;                                                                     \
        for (int run = 0; run < 5; run++) {                                                        \
            scale.set(scales[run]);                                                                \
            offset.set(offsets[run]);                                                              \
            version.set(versions[run]);                                                            \
            Buffer<int> values = out.realize({4}, target);                                         \
            for (int i = 0; i < 4; i++)                                                            \
                seen.push_back(values(i));                                                         \
        }                                                                                          \
        return seen;                                                                               \
    }()

} // namespace

TEST(ApiNamesVsHalide, MemoizeTagsKeyAsHalides) {
    const std::vector<int> loom_seen = WITH_MEMOIZE_TAGS(loom, Target());
    const std::vector<int> halide_seen = WITH_MEMOIZE_TAGS(
        Halide, Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids));
    EXPECT_EQ(loom_seen, halide_seen);
    // x = 3 of each run: 3 * int(scale) * 100 + 3 + the offset of the run whose region it gets
    // (runs 2, 4 and 5 keep the version of runs 1, 1 and 3).
    const std::vector<int> at_three{loom_seen[3], loom_seen[7], loom_seen[11], loom_seen[15],
                                    loom_seen[19]};
    EXPECT_EQ(at_three, (std::vector<int>{304, 304, 608, 304, 608}));
}

namespace {

// scatter and gather: a swap, a rotation or a swap chosen by a Param (Halide's own example,
// with a store repeated), two places of a row, a place written twice (the last value stays),
// and a bubble sort over an RDom whose each step swaps a pair that is out of order. Returns
// every value.
#define WITH_SCATTER_GATHER(NS, TARGET)                                                            \
    [&](bool rotate_instead) {                                                                     \
        using namespace NS;                                                                        \
        const Target target = TARGET;                                                              \
        Param<bool> swap_only("swap_only");                                                        \
        Var x("x"), y("y");                                                                        \
        RDom r(0, 7, 0, 8, "r");                                                                   \
        Func swapped("sg_swapped"), chosen("sg_chosen"), pairs("sg_pairs"), last("sg_last"),       \
            sorted("sg_sorted");                                                                   \
        swapped(x) = x * 10;                                                                       \
        swapped(scatter(3, 5)) = swapped(gather(5, 3));                                            \
        chosen(x) = x;                                                                             \
        chosen(select(swap_only, scatter(3, 5, 5), scatter(1, 2, 3))) =                            \
            chosen(select(swap_only, gather(5, 3, 3), gather(2, 3, 1)));                           \
        pairs(x, y) = 0;                                                                           \
        pairs(x, scatter(0, 1)) = gather(x * 2, x * 3) + pairs(x, scatter(1, 0));                  \
        last(x) = 0;                                                                               \
        last(scatter(2, 2)) = gather(7, 9);                                                        \
        sorted(x) = (x * 37 + 11) % 8 - 3;                                                         \
        Expr a = sorted(r.x), b = sorted(r.x + 1);                                                 \
        sorted(scatter(r.x, r.x + 1)) = select(a > b, gather(b, a), gather(a, b));                 \
        swap_only.set(!rotate_instead);                                                            \
        std::vector<int> seen;                                                                     \
        for (Func * f : {&swapped, &chosen, &last, &sorted}) {                                     \
            Buffer<int> out = f->realize({8}, target);                                             \
            for (int i = 0; i < 8; i++)                                                            \
                seen.push_back(out(i));                                                            \
        }                                                                                          \
        Buffer<int> two = pairs.realize({4, 2}, target);                                           \
        for (int j = 0; j < 2; j++)                                                                \
            for (int i = 0; i < 4; i++)                                                            \
                seen.push_back(two(i, j));                                                         \
        return seen;                                                                               \
    }

} // namespace

TEST(ApiNamesVsHalide, ScatterAndGatherStoreEveryElementAfterReadingThemAll) {
    const Halide::Target halide_target =
        Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids);
    for (bool rotate : {false, true}) {
        const std::vector<int> loom_seen = WITH_SCATTER_GATHER(loom, Target())(rotate);
        const std::vector<int> halide_seen = WITH_SCATTER_GATHER(Halide, halide_target)(rotate);
        EXPECT_EQ(loom_seen, halide_seen) << (rotate ? "rotating" : "swapping");
        // The swap: 30 and 50 trade places.
        EXPECT_EQ(std::vector<int>(loom_seen.begin(), loom_seen.begin() + 8),
                  (std::vector<int>{0, 10, 20, 50, 40, 30, 60, 70}));
        // Swapping 3 and 5 (5 written twice with the same value), or rotating 1, 2 and 3.
        EXPECT_EQ(std::vector<int>(loom_seen.begin() + 8, loom_seen.begin() + 16),
                  rotate ? (std::vector<int>{0, 2, 3, 1, 4, 5, 6, 7})
                         : (std::vector<int>{0, 1, 2, 5, 4, 3, 6, 7}));
        EXPECT_EQ(loom_seen[16 + 2], 9);
        // Sorted ascending: (x * 37 + 11) % 8 - 3 over x in [0, 8) is a permutation of [-3, 4].
        EXPECT_EQ(std::vector<int>(loom_seen.begin() + 24, loom_seen.begin() + 32),
                  (std::vector<int>{-3, -2, -1, 0, 1, 2, 3, 4}));
        // pairs(x, 0) = 2x + pairs(x, 1) = 2x; pairs(x, 1) = 3x + pairs(x, 0), read before.
        EXPECT_EQ(std::vector<int>(loom_seen.begin() + 32, loom_seen.end()),
                  (std::vector<int>{0, 2, 4, 6, 0, 3, 6, 9}));
    }
}

namespace {

std::string file_bytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A TIFF written by debug_to_file with the two bytes that follow each SHORT value of its
// directory cleared: Halide 14 leaves them as they were on its stack.
std::string tiff_without_padding(std::string bytes) {
    for (int entry = 0; entry < 15 && 10 + entry * 12 + 12 <= (int)bytes.size(); entry++) {
        const size_t at = 10 + entry * 12;
        if (bytes[at + 2] == 3 && bytes[at + 3] == 0) bytes[at + 10] = bytes[at + 11] = 0;
    }
    return bytes;
}

// debug_to_file: an intermediate Func of int16 (computed at the root and read by the output,
// its rows padded by align_storage), a float Func of three channels and the output itself,
// each written as raw data, as a MATLAB array and as a TIFF, in `folder`. (Not the padded Func
// as a MATLAB array: Halide 14's header then counts the padding, which it does not write.)
#define WITH_DEBUG_FILES(NS, TARGET)                                                               \
    [&](const std::string &folder) {                                                               \
        using namespace NS;                                                                        \
        const Target target = TARGET;                                                              \
        Var x("x"), y("y"), c("c");                                                                \
        Func inner("dbg_inner"), rgb("dbg_rgb"), out("dbg_out");                                   \
        inner(x, y) = cast<int16_t>(x * 300 - y * 7);                                              \
        rgb(x, y, c) = cast<float>(x + y * 10) * 0.25f + cast<float>(c);                           \
        out(x, y) =                                                                                \
            cast<int32_t>(inner(x, y)) * 2 + cast<int32_t>((rgb(x, y, 0) + rgb(x, y, 2)) * 4.0f);  \
        inner.compute_root().align_storage(x, 8).debug_to_file(folder + "/inner.tmp");             \
        rgb.compute_root().debug_to_file(folder + "/rgb.tiff");                                    \
        out.debug_to_file(folder + "/dbg_out.mat");                                                \
        out.realize({6, 4}, target);                                                               \
        inner.debug_to_file(folder + "/inner.tif");                                                \
        rgb.debug_to_file(folder + "/rgb.tmp");                                                    \
        out.debug_to_file(folder + "/out.tif");                                                    \
        out.realize({5, 3}, target);                                                               \
    }

} // namespace

TEST(ApiNamesVsHalide, DebugToFileWritesHalidesFiles) {
    const std::string base = testing::TempDir() + "loom_debug_to_file_" + std::to_string(getpid());
    const std::string loom_folder = base + "_loom", halide_folder = base + "_halide";
    ASSERT_EQ(system(("mkdir -p " + loom_folder + " " + halide_folder).c_str()), 0);
    WITH_DEBUG_FILES(loom, Target())(loom_folder);
    WITH_DEBUG_FILES(
        Halide, Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids))
    (halide_folder);
    for (const char *name :
         {"inner.tmp", "inner.tif", "rgb.tiff", "rgb.tmp", "dbg_out.mat", "out.tif"}) {
        std::string loom_file = file_bytes(loom_folder + "/" + name);
        std::string halide_file = file_bytes(halide_folder + "/" + name);
        ASSERT_FALSE(halide_file.empty()) << name;
        const std::string suffix = name + std::strlen(name) - 4;
        if (suffix == ".mat") {
            // The header's text says which program wrote it.
            EXPECT_EQ(loom_file.substr(0, 37), "MATLAB 5.0 MAT-file, produced by Loom") << name;
            loom_file = loom_file.substr(116);
            halide_file = halide_file.substr(116);
        } else if (suffix == ".tif" || suffix == "tiff") {
            loom_file = tiff_without_padding(loom_file);
            halide_file = tiff_without_padding(halide_file);
        }
        EXPECT_EQ(loom_file.size(), halide_file.size()) << name;
        EXPECT_TRUE(loom_file == halide_file) << name << " differs from Halide's";
    }
    // The raw file of the first run: 6 x 4 x 1 x 1, int16 (type code 5), x fastest.
    const std::string raw = file_bytes(loom_folder + "/inner.tmp");
    ASSERT_EQ(raw.size(), 20u + 6 * 4 * 2);
    int32_t header[5];
    std::memcpy(header, raw.data(), sizeof header);
    EXPECT_EQ(std::vector<int32_t>(header, header + 5), (std::vector<int32_t>{6, 4, 1, 1, 5}));
    int16_t at_5_3;
    std::memcpy(&at_5_3, raw.data() + 20 + (3 * 6 + 5) * 2, 2);
    EXPECT_EQ(at_5_3, 5 * 300 - 3 * 7);
    ASSERT_EQ(system(("rm -rf " + loom_folder + " " + halide_folder).c_str()), 0);
}

namespace {

// Param<void> (Param<>): the type given when it is made; set with any number the type holds
// exactly (others refused), read with its own type (others refused); a typed Param made from it
// shares its value, one of another type is refused. Returns the values and refusals in order.
#define WITH_DYNAMIC_PARAMS(NS, TARGET)                                                            \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        const Target target = TARGET;                                                              \
        Param<> offset(Int(16), "dyn_offset");                                                     \
        Param<> scale(Float(32), "dyn_scale");                                                     \
        Var x("x");                                                                                \
        Func f("dyn_f");                                                                           \
        f(x) = cast<float>(x + offset) * scale;                                                    \
        std::vector<std::string> seen;                                                             \
        auto attempt = [&](const char *what, const std::function<void()> &body) {                  \
            seen.push_back(outcome(what, body));                                                   \
        };                                                                                         \
        offset.set(300);                                                                           \
        scale.set(0.5);                                                                            \
        attempt("int16 set to 70000", [&] { offset.set(70000); });                                 \
        attempt("float32 set to 0.1 (a double)", [&] { scale.set(0.1); });                         \
        attempt("float32 set to 3 (an int)", [&] { scale.set(3); });                               \
        attempt("int16 read as int32", [&] { (void)offset.get<int32_t>(); });                      \
        attempt("typed int32 from int16", [&] { Param<int32_t> wrong(offset); });                  \
        Param<int16_t> typed(offset);                                                              \
        typed.set(int16_t(-20));                                                                   \
        seen.push_back(std::to_string(offset.get<int16_t>()) + " " +                               \
                       std::to_string(scale.get<float>()) + " " +                                  \
                       std::to_string(offset.type().bits()));                                      \
        Buffer<float> out = f.realize({4}, target);                                                \
        for (int i = 0; i < 4; i++)                                                                \
            seen.push_back(std::to_string(out(i)));                                                \
        return seen;                                                                               \
    }()

} // namespace

TEST(ApiNamesVsHalide, DynamicallyTypedParams) {
    const std::vector<std::string> loom_seen = WITH_DYNAMIC_PARAMS(loom, Target());
    const std::vector<std::string> halide_seen = WITH_DYNAMIC_PARAMS(
        Halide, Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids));
    EXPECT_EQ(loom_seen, halide_seen);
    EXPECT_EQ(loom_seen[0], "int16 set to 70000: refused");
    EXPECT_EQ(loom_seen[1], "float32 set to 0.1 (a double): refused");
    EXPECT_EQ(loom_seen[2], "float32 set to 3 (an int): accepted");
    EXPECT_EQ(loom_seen[3], "int16 read as int32: refused");
    EXPECT_EQ(loom_seen[4], "typed int32 from int16: refused");
    // (x - 20) * 3 at x = 3.
    EXPECT_EQ(loom_seen.back(), std::to_string(-51.0f));
}
