// Halide 14's buffer-level API against Loom's: infer_input_bounds, Buffer views (crop, slice,
// translate, transpose, embed) and Target::natural_vector_size, each compared with what Halide
// 14 gives for the same calls.

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
// GCC sees an uninitialized array in Halide 14's own for_each_element(const int *) (Halide.h
// line 7894) where there is none.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <loom.h>

namespace {

// The region each input's inferred buffer covers, as "min,extent;" per dimension.
template <typename B> std::string region_of(const B &b) {
    std::string s;
    for (int d = 0; d < b.dimensions(); d++)
        s += std::to_string(b.dim(d).min()) + "," + std::to_string(b.dim(d).extent()) + ";";
    return s;
}

// A stencil over two ImageParams, g computed at the root, f split (ShiftInwards: the split
// stays inside the output, in both).
template <typename F, typename V, typename I>
void define_stencil(F &g, F &f, V x, V y, I &in, I &weights) {
    g(x, y) = in(x - 1, y * 2) + in(x + 2, y * 2 + 1) * weights(y % 3);
    f(x, y) = g(x, y) + g(x + 1, y - 1);
    g.compute_root();
    f.split(x, x, V("xi"), 8);
}

} // namespace

TEST(InferInputBounds, UnboundImageParamsGetHalidesRegions) {
    Halide::ImageParam hin(Halide::Int(32), 2, "in"), hw(Halide::Int(32), 1, "w");
    Halide::Func hg("g"), hf("f");
    Halide::Var hx("x"), hy("y");
    define_stencil(hg, hf, hx, hy, hin, hw);
    hf.infer_input_bounds({21, 7});
    loom::ImageParam lin(loom::Int(32), 2, "in"), lw(loom::Int(32), 1, "w");
    loom::Func lg("g"), lf("f");
    loom::Var lx("x"), ly("y");
    define_stencil(lg, lf, lx, ly, lin, lw);
    lf.infer_input_bounds({21, 7});
    EXPECT_EQ(region_of(lin.get()), region_of(hin.get()));
    EXPECT_EQ(region_of(lw.get()), region_of(hw.get()));
    EXPECT_EQ(region_of(lin.get()), "-1,25;-2,16;");
    // The inferred buffers are bound: the pipeline now runs over that region and gives the
    // values of a plain C++ evaluation.
    loom::Buffer<int> in(lin.get()), w(lw.get());
    in.for_each_position([&](const std::vector<int> &p) { in(p) = p[0] * 3 - p[1] * 5; });
    w.for_each_position([&](const std::vector<int> &p) { w(p) = p[0] + 7; });
    loom::Buffer<int> out = lf.realize({21, 7});
    auto g = [&](int x, int y) {
        return in(x - 1, y * 2) + in(x + 2, y * 2 + 1) * w(((y % 3) + 3) % 3);
    };
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 21; x++)
            ASSERT_EQ(out(x, y), g(x, y) + g(x + 1, y - 1)) << x << " " << y;
}

TEST(InferInputBounds, ABoundImageParamKeepsItsBufferAndTheOutputIsNotComputed) {
    loom::ImageParam in(loom::UInt(8), 1, "in");
    loom::Buffer<uint8_t> mine(100, "mine");
    loom::ImageParam other(loom::UInt(8), 1, "other");
    in.set(mine);
    loom::Func f("f");
    loom::Var x("x");
    f(x) = in(x) + other(x * 3 + 1);
    loom::Buffer<uint8_t> out(10);
    out.set_min({5});
    out.fill(9);
    f.infer_input_bounds(out);
    for (int i = 5; i < 15; i++)
        EXPECT_EQ(out(i), 9) << "the output was computed";
    EXPECT_EQ(in.get().raw_data(), mine.raw_data());
    EXPECT_EQ(region_of(other.get()), "16,28;");
}

namespace {

// The dims of a buffer and every element in coordinate order, as text: the same for a Halide
// view and a Loom view when they see the same elements at the same coordinates.
template <typename B, typename At>
void describe_into(const B &b, At at, std::vector<int> &pos, int d, std::string &out) {
    if (d < 0) {
        out += std::to_string(at(pos)) + " ";
        return;
    }
    for (int i = b.dim(d).min(); i < b.dim(d).min() + b.dim(d).extent(); i++) {
        pos[d] = i;
        describe_into(b, at, pos, d - 1, out);
    }
}

std::string describe_view(const Halide::Buffer<int> &b) {
    std::string out;
    for (int d = 0; d < b.dimensions(); d++)
        out += "[" + std::to_string(b.dim(d).min()) + "+" + std::to_string(b.dim(d).extent()) + "]";
    std::vector<int> pos(b.dimensions());
    describe_into(
        b, [&](const std::vector<int> &p) { return b(p.data()); }, pos, b.dimensions() - 1, out);
    return out;
}

std::string describe_view(const loom::Buffer<int> &b) {
    std::string out;
    for (int d = 0; d < b.dimensions(); d++)
        out += "[" + std::to_string(b.dim(d).min()) + "+" + std::to_string(b.dim(d).extent()) + "]";
    std::vector<int> pos(b.dimensions());
    loom::Buffer<int> view = b;
    describe_into(
        b, [&](const std::vector<int> &p) { return view(p); }, pos, b.dimensions() - 1, out);
    return out;
}

// Halide::Buffer forwards crop / translate / transpose in place; its views come from the
// Runtime::Buffer it holds. Loom's Buffer has both forms.
Halide::Buffer<int> cropped(const Halide::Buffer<int> &b, int d, int mn, int extent) {
    return Halide::Buffer<int>(b.get()->cropped(d, mn, extent));
}
Halide::Buffer<int> cropped(const Halide::Buffer<int> &b,
                            const std::vector<std::pair<int, int>> &r) {
    return Halide::Buffer<int>(b.get()->cropped(r));
}
Halide::Buffer<int> translated(const Halide::Buffer<int> &b, int d, int dx) {
    return Halide::Buffer<int>(b.get()->translated(d, dx));
}
Halide::Buffer<int> translated(const Halide::Buffer<int> &b, const std::vector<int> &delta) {
    return Halide::Buffer<int>(b.get()->translated(delta));
}
Halide::Buffer<int> transposed(const Halide::Buffer<int> &b, int d1, int d2) {
    return Halide::Buffer<int>(b.get()->transposed(d1, d2));
}
Halide::Buffer<int> transposed(const Halide::Buffer<int> &b, const std::vector<int> &order) {
    return Halide::Buffer<int>(b.get()->transposed(order));
}
loom::Buffer<int> cropped(const loom::Buffer<int> &b, int d, int mn, int extent) {
    return b.cropped(d, mn, extent);
}
loom::Buffer<int> cropped(const loom::Buffer<int> &b, const std::vector<std::pair<int, int>> &r) {
    return b.cropped(r);
}
loom::Buffer<int> translated(const loom::Buffer<int> &b, int d, int dx) {
    return b.translated(d, dx);
}
loom::Buffer<int> translated(const loom::Buffer<int> &b, const std::vector<int> &delta) {
    return b.translated(delta);
}
loom::Buffer<int> transposed(const loom::Buffer<int> &b, int d1, int d2) {
    return b.transposed(d1, d2);
}
loom::Buffer<int> transposed(const loom::Buffer<int> &b, const std::vector<int> &order) {
    return b.transposed(order);
}

// The same views taken in each language; returns the description of each.
template <typename B> std::vector<std::string> views_of(B b) {
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 5; x++)
                b(x, y, z) = x + 10 * y + 100 * z;
    std::vector<std::string> v;
    v.push_back(describe_view(cropped(b, 1, 1, 2)));
    v.push_back(describe_view(cropped(b, {{1, 3}, {0, 2}, {2, 1}})));
    v.push_back(describe_view(B(b.sliced(2, 1))));
    v.push_back(describe_view(B(b.sliced(0))));
    v.push_back(describe_view(translated(b, 0, -7)));
    v.push_back(describe_view(translated(b, {2, 3, 4})));
    v.push_back(describe_view(transposed(b, 0, 2)));
    v.push_back(describe_view(transposed(b, {2, 0, 1})));
    v.push_back(describe_view(B(b.embedded(1, 6))));
    v.push_back(describe_view(translated(B(cropped(b, 0, 2, 3).sliced(1, 2)), 0, 1)));
    B c = cropped(b, 0, 1, 3);
    c.crop(1, 1, 2);
    c.translate(0, 5);
    c.transpose(0, 1);
    c(2, 6, 1) = -1; // writes through the view into b
    v.push_back(describe_view(c));
    B e = b.sliced(2, 2);
    e.add_dimension();
    e.embed(0, 3);
    v.push_back(describe_view(e));
    v.push_back(describe_view(b));
    return v;
}

TEST(BufferViews, CropSliceTranslateTransposeAndEmbedSeeHalidesElements) {
    std::vector<std::string> halide = views_of(Halide::Buffer<int>(5, 4, 3));
    std::vector<std::string> loom = views_of(loom::Buffer<int>(5, 4, 3));
    ASSERT_EQ(loom.size(), halide.size());
    for (size_t i = 0; i < loom.size(); i++)
        EXPECT_EQ(loom[i], halide[i]) << "view " << i;
}

// A pipeline reads through a transposed view and writes into a cropped one: the elements land
// in the viewed buffer's memory.
TEST(BufferViews, PipelinesReadAndWriteThroughViews) {
    loom::Buffer<int> in(6, 4, "in"), out(10, 10, "out");
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 6; x++)
            in(x, y) = x * 10 + y;
    loom::ImageParam t(loom::Int(32), 2, "t");
    t.dim(0).set_stride(loom::Expr()); // a transposed view is not dense in dimension 0
    t.set(in.transposed(0, 1));
    loom::Func f("f");
    loom::Var x("x"), y("y");
    f(x, y) = t(x, y) + 1000;
    loom::Buffer<int> window = out.cropped({{2, 4}, {3, 6}}).translated({-2, -3});
    f.realize(window);
    for (int yy = 0; yy < 10; yy++) {
        for (int xx = 0; xx < 10; xx++) {
            const bool inside = xx >= 2 && xx < 6 && yy >= 3 && yy < 9;
            EXPECT_EQ(out(xx, yy), inside ? (yy - 3) * 10 + (xx - 2) + 1000 : 0) << xx << " " << yy;
        }
    }
}

TEST(BufferViews, AViewOutsideTheBufferIsRefusedWithTheRange) {
    loom::Buffer<int> b(5, 4, "b");
    try {
        b.cropped(0, 3, 4);
        FAIL() << "a crop past the buffer must be refused";
    } catch (const loom::CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("crop of Buffer b to [3, 6] in dimension 0, which "
                                             "covers only [0, 4]"),
                  std::string::npos)
            << e.what();
    }
    try {
        b.sliced(2, 0);
        FAIL() << "a slice of a dimension the buffer lacks must be refused";
    } catch (const loom::CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("slice of Buffer b names dimension 2"),
                  std::string::npos)
            << e.what();
    }
}

// Halide's element helpers on a buffer of B (Halide's or Loom's), as text: for_each_element
// in both forms, for_each_value over two buffers, contains, all_equal, size_in_bytes of views,
// copy and copy_from, make_scalar, make_with_shape_of, same_as, set_name, as, the static type.
template <typename B> std::vector<std::string> element_helpers() {
    std::vector<std::string> v;
    B b(4, 3);
    b.set_min(2, -1);
    std::string visits;
    b.for_each_element(
        [&](int x, int y) { visits += std::to_string(x) + "," + std::to_string(y) + " "; });
    v.push_back(visits);
    b.for_each_element([&](const int *pos) { b(pos[0], pos[1]) = pos[0] * 10 + pos[1]; });
    B other(4, 3);
    other.set_min(2, -1);
    other.fill(5);
    int sum = 0;
    b.for_each_value(
        [&](int &a, int &o) {
            sum += a * o;
            a += 1;
        },
        other);
    v.push_back(std::to_string(sum) + " " + std::to_string(b(3, 0)));
    v.push_back(std::to_string(b.contains(2, -1)) + std::to_string(b.contains(5, 1)) +
                std::to_string(b.contains(6, 1)) + std::to_string(b.contains(2, -2)));
    v.push_back(std::to_string(other.all_equal(5)) + std::to_string(b.all_equal(5)));
    v.push_back(std::to_string(b.size_in_bytes()) + " " +
                std::to_string(cropped(b, 0, 3, 2).size_in_bytes()) + " " +
                std::to_string(transposed(b, 0, 1).size_in_bytes()));
    B c = b.copy();
    c(3, 0) = -7;
    v.push_back(std::to_string(c.dim(0).min()) + " " + std::to_string(c.dim(1).min()) + " " +
                std::to_string(c(3, 0)) + " " + std::to_string(b(3, 0)) + " " +
                std::to_string(c.same_as(b)) + std::to_string(b.same_as(b)));
    B d(3, 5);
    d.set_min(4, -2);
    d.fill(-1);
    d.copy_from(b);
    std::string copied;
    d.for_each_element([&](int x, int y) { copied += std::to_string(d(x, y)) + " "; });
    v.push_back(copied);
    B scalar = B::make_scalar();
    v.push_back(std::to_string(scalar.dimensions()));
    B shaped = B::make_with_shape_of(d);
    // (Its elements are not compared: Halide's are uninitialized, Loom's zero.)
    v.push_back(std::to_string(shaped.dim(0).min()) + " " + std::to_string(shaped.dim(1).extent()) +
                " " + std::to_string(shaped.dim(1).stride()));
    b.set_name("renamed");
    v.push_back(b.name());
    auto same = b.template as<int>();
    v.push_back(std::to_string(same(3, 0)) + std::to_string(same.same_as(b)));
    v.push_back(std::to_string(B::has_static_halide_type) +
                std::to_string(B::static_halide_type().bits));
    return v;
}

TEST(BufferHelpers, ElementsValuesCopiesAndShapesAsHalides) {
    std::vector<std::string> halide = element_helpers<Halide::Buffer<int>>();
    std::vector<std::string> loom = element_helpers<loom::Buffer<int>>();
    ASSERT_EQ(loom.size(), halide.size());
    for (size_t i = 0; i < loom.size(); i++)
        EXPECT_EQ(loom[i], halide[i]) << "helper " << i;
}

} // namespace

TEST(Target, NaturalVectorSizeAsHalides) {
    for (const char *spec :
         {"x86-64-linux", "x86-64-linux-sse41", "x86-64-linux-avx", "x86-64-linux-avx-avx2",
          "x86-64-linux-avx-avx2-avx512", "x86-64-linux-avx-avx2-avx512-avx512_skylake"}) {
        SCOPED_TRACE(spec);
        const Halide::Target h(spec);
        const loom::Target l(spec);
        EXPECT_EQ(l.natural_vector_size(loom::UInt(8)), h.natural_vector_size(Halide::UInt(8)));
        EXPECT_EQ(l.natural_vector_size(loom::Int(16)), h.natural_vector_size(Halide::Int(16)));
        EXPECT_EQ(l.natural_vector_size<float>(), h.natural_vector_size<float>());
        EXPECT_EQ(l.natural_vector_size<double>(), h.natural_vector_size<double>());
    }
    EXPECT_EQ(loom::Target().natural_vector_size<float>(),
              loom::get_host_target().natural_vector_size<float>());
}

TEST(Target, QueriesAsHalides) {
    for (Halide::Target::Feature hf : {Halide::Target::AVX2, Halide::Target::FMA,
                                       Halide::Target::CUDA, Halide::Target::TraceStores}) {
        const std::string name = Halide::Target::feature_to_name(hf);
        const loom::Target::Feature lf = loom::Target::feature_from_name(name);
        ASSERT_NE(lf, loom::Target::FeatureEnd) << name;
        EXPECT_EQ(loom::Target::feature_to_name(lf), name);
    }
    EXPECT_EQ(loom::Target::feature_from_name("no_such_feature"), loom::Target::FeatureEnd);
    for (const char *spec : {"x86-64-linux-avx2-fma", "x86-64-linux-bogus", "host", "nonsense"}) {
        SCOPED_TRACE(spec);
        EXPECT_EQ(loom::Target::validate_target_string(spec),
                  Halide::Target::validate_target_string(spec));
    }
    EXPECT_EQ(loom::Target().has_unknowns(), Halide::Target().has_unknowns());
    EXPECT_EQ(loom::Target("x86-64-linux").has_unknowns(),
              Halide::Target("x86-64-linux").has_unknowns());
    const loom::Target made(loom::Target::Linux, loom::Target::X86, 64,
                            {loom::Target::AVX, loom::Target::AVX2});
    const Halide::Target halide_made(Halide::Target::Linux, Halide::Target::X86, 64,
                                     {Halide::Target::AVX, Halide::Target::AVX2});
    EXPECT_EQ(made.to_string(), halide_made.to_string());
    EXPECT_TRUE(made.supported());
    EXPECT_FALSE(loom::Target(loom::Target::Windows, loom::Target::ARM, 32).supported());
    EXPECT_EQ(made.maximum_buffer_size(), halide_made.maximum_buffer_size());
    EXPECT_EQ(made.has_large_buffers(), halide_made.has_large_buffers());
    const loom::Target large = made.with_feature(loom::Target::LargeBuffers);
    const Halide::Target halide_large = halide_made.with_feature(Halide::Target::LargeBuffers);
    EXPECT_EQ(large.to_string(), halide_large.to_string());
    EXPECT_EQ(large.maximum_buffer_size(), halide_large.maximum_buffer_size());
    EXPECT_EQ(large.has_large_buffers(), halide_large.has_large_buffers());
    EXPECT_EQ(made.get_features_bitset().count(), 2u);
    const loom::Target cuda("x86-64-linux-cuda");
    EXPECT_TRUE(cuda.supports_device_api(loom::DeviceAPI::CUDA));
    EXPECT_FALSE(made.supports_device_api(loom::DeviceAPI::CUDA));
    EXPECT_TRUE(cuda.get_required_device_api() == loom::DeviceAPI::CUDA);
    EXPECT_EQ(loom::target_feature_for_device_api(loom::DeviceAPI::CUDA), loom::Target::CUDA);
    EXPECT_TRUE(made.supports_type(loom::Float(64)));
    EXPECT_EQ(cuda.get_cuda_capability_lower_bound(), 70); // Loom's PTX is for sm_70
    setenv("HL_TARGET", "x86-64-linux-avx2", 1);
    EXPECT_EQ(loom::get_target_from_environment().to_string(),
              Halide::get_target_from_environment().to_string());
    unsetenv("HL_TARGET");
    EXPECT_EQ(loom::get_target_from_environment(), loom::get_host_target());
}
