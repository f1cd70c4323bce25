// Inline reductions (minimum, maximum, sum, argmin, argmax) inside a vectorized Func: each point
// of the Func allocates its accumulator, runs the RDom loop over it and reads it. Vectorized,
// the accumulator gets one slot per lane (allocated `lanes` times as large, read and written
// as dense vectors) and the RDom loop stays a serial loop whose body runs all lanes at once.
// A where() condition that differs between the lanes (depends on the vectorized x) runs the
// lanes one at a time. Either way the outputs must equal a plain C++ loop bit for bit, for 4,
// 8 and 16 lanes of int8, int16, int32 and float. Then Funcs with an update computed per lane.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

namespace {

using namespace loom;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kWidth = 48;   // a multiple of every vector width: no tail
constexpr int kHeight = 7;
constexpr int kMargin = 4;   // the input reaches this far beyond the output on every side

/** Values of both signs, the integers over their whole range (sums wrap), floats in
 * eighths (no rounding in the few terms a sum adds). */
template<typename T>
T value_at(int x, int y) {
    uint32_t h = (uint32_t)(x * 7919 + y * 104729 + 12345) * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    if (std::is_floating_point<T>::value) return (T)((int)(h % 2001) - 1000) / (T)8;
    // Small magnitudes tie often (argmin/argmax pick the first), large ones make sums wrap.
    if (h & 1) return (T)((int)((h >> 1) % 7) - 3);
    return (T)(h >> 3);
}

template<typename T>
Buffer<T> make_input() {
    Buffer<T> in({kWidth + 2 * kMargin, kHeight + 2 * kMargin}, "in");
    in.set_min({-kMargin, -kMargin});
    for (int y = -kMargin; y < kHeight + kMargin; y++) {
        for (int x = -kMargin; x < kWidth + kMargin; x++) in(x, y) = value_at<T>(x, y);
    }
    return in;
}

// The C++ reference keeps every intermediate in T, as the pipeline does: integer sums wrap
// modulo 2^bits, float sums round after each term, in the RDom's order.
template<typename T>
T wrap_add(T a, T b) {
    if (std::is_floating_point<T>::value) return a + b;
    return (T)(uint32_t)((uint32_t)(int64_t)a + (uint32_t)(int64_t)b);
}

enum class Kind { Minimum, Maximum, Sum, Argmin, Argmax };

const char *kind_name(Kind k) {
    switch (k) {
    case Kind::Minimum: return "minimum";
    case Kind::Maximum: return "maximum";
    case Kind::Sum: return "sum";
    case Kind::Argmin: return "argmin";
    case Kind::Argmax: return "argmax";
    }
    return "?";
}

// The RDom of one case: one dimension of `extent` points from `min`, optionally restricted by
// a where() condition, which may depend on the output's x and y. (An RDom's bounds may not:
// they are evaluated before the loops over x and y, as in Halide. A where() that keeps a
// prefix of the points gives the reduction an extent that depends on x or y.)
struct Domain {
    int min, extent;
    std::function<Expr(Expr x, Expr y, Expr r)> where;  // undefined: every point
    std::function<bool(int x, int y, int r)> where_ref;
};

// One inline reduction of in(x + r, y + r % 2) over the domain, as the pipeline computes it:
// the outputs (one for minimum/maximum/sum, index and value for argmin/argmax) and the
// reference of each.
template<typename T>
struct Case {
    Kind kind;
    int lanes;
    Domain domain;
    Buffer<T> in = make_input<T>();
    Func f{"f"};
    Var x{"x"}, y{"y"};

    Case(Kind kind, int lanes, Domain domain) : kind(kind), lanes(lanes), domain(std::move(domain)) {
        RDom r(this->domain.min, this->domain.extent, "r");
        if (this->domain.where) r.where(this->domain.where(x, y, r.x));
        Expr v = in(x + r.x, y + r.x % 2);
        switch (kind) {
        case Kind::Minimum: f(x, y) = minimum(v, "acc"); break;
        case Kind::Maximum: f(x, y) = maximum(v, "acc"); break;
        case Kind::Sum: f(x, y) = sum(v, "acc"); break;
        case Kind::Argmin: f(x, y) = argmin(v, "acc"); break;
        case Kind::Argmax: f(x, y) = argmax(v, "acc"); break;
        }
        f.vectorize(x, lanes);
    }

    bool is_arg() const { return kind == Kind::Argmin || kind == Kind::Argmax; }

    // (index, value) of the reduction at (px, py) in C++.
    std::pair<int32_t, T> reference(int px, int py) const {
        int32_t index = 0;
        T acc = T(0);
        switch (kind) {
        case Kind::Minimum:
        case Kind::Argmin:
            acc = std::is_floating_point<T>::value ? std::numeric_limits<T>::infinity()
                                                   : std::numeric_limits<T>::max();
            break;
        case Kind::Maximum:
        case Kind::Argmax:
            acc = std::is_floating_point<T>::value ? -std::numeric_limits<T>::infinity()
                                                   : std::numeric_limits<T>::lowest();
            break;
        case Kind::Sum: acc = T(0); break;
        }
        for (int r = domain.min; r < domain.min + domain.extent; r++) {
            if (domain.where_ref && !domain.where_ref(px, py, r)) continue;
            T v = value_at<T>(px + r, py + ((r % 2) + 2) % 2);
            switch (kind) {
            case Kind::Minimum: acc = v < acc ? v : acc; break;
            case Kind::Maximum: acc = v > acc ? v : acc; break;
            case Kind::Sum: acc = wrap_add(acc, v); break;
            case Kind::Argmin:
                if (v < acc) index = r, acc = v;
                break;
            case Kind::Argmax:
                if (v > acc) index = r, acc = v;
                break;
            }
        }
        return {index, acc};
    }

    std::string describe() const {
        std::ostringstream s;
        s << kind_name(kind) << " of " << type_of<T>() << " vectorized by " << lanes;
        return s.str();
    }

    void expect_outputs_match_reference() {
        if (is_arg()) {
            Buffer<int32_t> index(kWidth, kHeight);
            Buffer<T> value(kWidth, kHeight);
            f.realize(Realization(index, value));
            for (int py = 0; py < kHeight; py++) {
                for (int px = 0; px < kWidth; px++) {
                    auto [ri, rv] = reference(px, py);
                    ASSERT_EQ(index(px, py), ri) << describe() << " at (" << px << ", " << py << ")";
                    ASSERT_EQ(value(px, py), rv) << describe() << " at (" << px << ", " << py << ")";
                }
            }
            return;
        }
        Buffer<T> out(kWidth, kHeight);
        f.realize(out);
        for (int py = 0; py < kHeight; py++) {
            for (int px = 0; px < kWidth; px++) {
                T expected = reference(px, py).second;
                // Bit for bit: floats compared as values would let -0 equal 0.
                ASSERT_EQ(0, std::memcmp(&out(px, py), &expected, sizeof(T)))
                    << describe() << " at (" << px << ", " << py << "): " << +out(px, py)
                    << " != " << +expected;
            }
        }
    }

    // The accumulator's buffers: acc_<id> (acc_<id>.0 ... for argmin/argmax's Tuple).
    std::vector<std::string> accumulator_buffers(const std::string &stmt) const {
        std::vector<std::string> names;
        std::istringstream lines(stmt);
        for (std::string line; std::getline(lines, line);) {
            size_t at = line.find("allocate acc_");
            if (at == std::string::npos) continue;
            size_t begin = at + std::string("allocate ").size();
            names.push_back(line.substr(begin, line.find('[', begin) - begin));
        }
        return names;
    }

    // Vectorized: every accumulator allocated once per lane and read and written as one vector
    // of the lanes; no loop over the lanes is left.
    void expect_vectorized_accumulators() {
        std::string stmt = Pipeline(f).lowered_stmt();
        std::vector<std::string> accs = accumulator_buffers(stmt);
        ASSERT_EQ(accs.size(), is_arg() ? 2u : 1u) << describe() << "\n" << stmt;
        std::ostringstream type;
        type << type_of<T>();
        std::string n = std::to_string(lanes);
        for (const std::string &acc : accs) {
            // argmin/argmax: the index (acc_<id>.0) is an int32, the value (acc_<id>.1) a T.
            bool is_index = is_arg() && acc.size() > 2 && acc.compare(acc.size() - 2, 2, ".0") == 0;
            std::string type_name = is_index ? "int32" : type.str();
            // One slot per lane of each of the 1 x 1 points of the reduction's Func.
            EXPECT_THAT(stmt, HasSubstr("allocate " + acc + "[" + type_name + " * " + n + " * 1 * 1]"))
                << describe() << "\n" << stmt;
            EXPECT_THAT(stmt, HasSubstr(acc + "[ramp(0, 1, " + n + ")] = ")) << describe() << "\n" << stmt;
            EXPECT_THAT(stmt, HasSubstr(" " + acc + "[ramp(0, 1, " + n + ")]")) << describe() << "\n" << stmt;
            EXPECT_THAT(stmt, Not(HasSubstr(acc + "[0]"))) << describe() << "\n" << stmt;
        }
        EXPECT_THAT(stmt, Not(ContainsRegex("for \\(f\\.s0\\.x\\.v[0-9]"))) << describe() << "\n"
                                                                            << stmt;
        EXPECT_THAT(stmt, HasSubstr("for (acc_")) << describe() << ": the RDom loop\n" << stmt;
    }

    // The lanes run one after another (an RDom that differs between them).
    void expect_scalar_lanes() {
        std::string stmt = Pipeline(f).lowered_stmt();
        EXPECT_THAT(
            stmt, ContainsRegex("for \\(f\\.s0\\.x\\.v[0-9]+, 0, " + std::to_string(lanes) + "\\)"))
            << describe() << "\n"
            << stmt;
    }
};

constexpr Kind kKinds[] = {Kind::Minimum, Kind::Maximum, Kind::Sum, Kind::Argmin, Kind::Argmax};
constexpr int kLanes[] = {4, 8, 16};

Domain fixed_domain() { return {-2, 5, nullptr, nullptr}; }

// Rows reduce over the first 0 to 4 points (row 0 over none: the output is the initial value).
// The condition is the same for every lane: the RDom loop runs all lanes at once.
Domain extent_depends_on_y() {
    return {-1, 4, [](Expr, Expr y, Expr r) { return r < y % 5 - 1; },
            [](int, int y, int r) { return r < y % 5 - 1; }};
}

// Points of the domain left out by row, not a prefix.
Domain where_depends_on_y() {
    return {-2, 5, [](Expr, Expr y, Expr r) { return r != y % 4 - 2; },
            [](int, int y, int r) { return r != y % 4 - 2; }};
}

// Each lane reduces over a different number of points, 1 to 4: the lanes run one at a time.
Domain extent_depends_on_x() {
    return {-1, 4, [](Expr x, Expr, Expr r) { return r < x % 4; },
            [](int x, int, int r) { return r < x % 4; }};
}

Domain where_depends_on_x() {
    return {-2, 5, [](Expr x, Expr, Expr r) { return r != x % 3; },
            [](int x, int, int r) { return r != x % 3; }};
}

template<typename T>
class VectorizedInlineReduction : public ::testing::Test {};
using Types = ::testing::Types<int8_t, int16_t, int32_t, float>;
TYPED_TEST_SUITE(VectorizedInlineReduction, Types);

TYPED_TEST(VectorizedInlineReduction, FixedDomainVectorizesTheAccumulators) {
    for (Kind kind : kKinds) {
        for (int lanes : kLanes) {
            Case<TypeParam> c(kind, lanes, fixed_domain());
            c.expect_vectorized_accumulators();
            c.expect_outputs_match_reference();
        }
    }
}

TYPED_TEST(VectorizedInlineReduction, ExtentDependingOnYVectorizes) {
    for (Kind kind : kKinds) {
        for (int lanes : kLanes) {
            Case<TypeParam> c(kind, lanes, extent_depends_on_y());
            c.expect_vectorized_accumulators();
            c.expect_outputs_match_reference();
        }
    }
}

TYPED_TEST(VectorizedInlineReduction, WhereDependingOnYVectorizes) {
    for (Kind kind : kKinds) {
        for (int lanes : kLanes) {
            Case<TypeParam> c(kind, lanes, where_depends_on_y());
            c.expect_vectorized_accumulators();
            c.expect_outputs_match_reference();
        }
    }
}

TYPED_TEST(VectorizedInlineReduction, ExtentDependingOnXRunsTheLanesOneByOne) {
    for (Kind kind : kKinds) {
        for (int lanes : kLanes) {
            Case<TypeParam> c(kind, lanes, extent_depends_on_x());
            c.expect_scalar_lanes();
            c.expect_outputs_match_reference();
        }
    }
}

TYPED_TEST(VectorizedInlineReduction, WhereDependingOnXRunsTheLanesOneByOne) {
    for (Kind kind : kKinds) {
        for (int lanes : kLanes) {
            Case<TypeParam> c(kind, lanes, where_depends_on_x());
            c.expect_scalar_lanes();
            c.expect_outputs_match_reference();
        }
    }
}

// A Func with an update computed at the vectorized loop (its region moves with x): each lane's
// region gets its own slots, and its loops, whose mins differ between the lanes, run from 0
// with each lane's min added.
struct PerLaneProducer {
    Buffer<int16_t> in = make_input<int16_t>();
    Var x{"x"}, y{"y"}, xo{"xo"}, xi{"xi"};
    Func g{"g"}, f{"f"};
    int lanes;

    explicit PerLaneProducer(int lanes) : lanes(lanes) {
        RDom r(0, 3, "r");
        g(x, y) = cast<int32_t>(in(x, y));
        g(x, y) += cast<int32_t>(in(x + r, y + 1)) * (r + 1);
        f(x, y) = g(x - 1, y) * 3 - g(x + 1, y);
        f.split(x, xo, xi, lanes).vectorize(xi);
    }

    static int32_t g_ref(int x, int y) {
        int32_t v = value_at<int16_t>(x, y);
        for (int r = 0; r < 3; r++) v += (int32_t)value_at<int16_t>(x + r, y + 1) * (r + 1);
        return v;
    }

    void expect_outputs_match_reference() {
        Buffer<int32_t> out(kWidth, kHeight);
        f.realize(out);
        for (int py = 0; py < kHeight; py++) {
            for (int px = 0; px < kWidth; px++) {
                ASSERT_EQ(out(px, py), g_ref(px - 1, py) * 3 - g_ref(px + 1, py))
                    << lanes << " lanes, at (" << px << ", " << py << ")";
            }
        }
    }
};

TEST(VectorizedProducer, ComputedAtTheVectorLoopGetsASlotPerLane) {
    for (int lanes : kLanes) {
        PerLaneProducer p(lanes);
        p.g.compute_at(p.f, p.xi);
        std::string stmt = Pipeline(p.f).lowered_stmt();
        std::string n = std::to_string(lanes);
        // Three points of one row per lane.
        EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * " + n + " * 3 * 1]")) << stmt;
        EXPECT_THAT(stmt, Not(HasSubstr("for (f.s0.x.xi"))) << stmt;
        // The update's loop over g's x runs from 0 for every lane; its stores are dense.
        EXPECT_THAT(stmt, HasSubstr("for (g.s1.x, 0, 3)")) << stmt;
        EXPECT_THAT(stmt, HasSubstr(", 1, " + n + ")] = ")) << stmt;
        p.expect_outputs_match_reference();
    }
}

// Vectorized itself (its pure and update loops over x), a producer computed per lane of a
// vectorized loop with at least as many lanes: the outer loop keeps the lanes and the
// producer's loops run every lane at once, so the consumer's code is vector code too (a fuzz
// pair of seed 2026, 290: 10x Halide's time with the outer lanes run one by one). With fewer
// outer lanes than the producer's own, the producer keeps its vectors and the outer lanes run
// one after another.
TEST(VectorizedProducer, VectorizedItselfTheWiderOfTheTwoLoopsKeepsTheLanes) {
    // g's region per lane is x - 1 .. x + 1, which its own vectorized loops round up to their
    // width: g reads no input, so any region is defined.
    auto g_ref = [](int x, int y) {
        int32_t v = x * 5 - y * 3;
        for (int r = 0; r < 3; r++)
            v = std::max(v, (x ^ (r + y)) * (r + 1));
        return v;
    };
    for (int lanes : kLanes) {
        for (int inner_lanes : {4, 8}) {
            SCOPED_TRACE(std::to_string(lanes) + " outer lanes, " + std::to_string(inner_lanes) +
                         " inner");
            Var x("x"), y("y"), xo("xo"), xi("xi");
            RDom r(0, 3, "r");
            Func g("g"), f("f");
            g(x, y) = x * 5 - y * 3;
            g(x, y) = max(g(x, y), (x ^ (r + y)) * (r + 1));
            f(x, y) = g(x - 1, y) * 3 - g(x + 1, y);
            f.split(x, xo, xi, lanes).vectorize(xi);
            g.compute_at(f, xi).vectorize(x, inner_lanes);
            g.update(0).vectorize(x, inner_lanes);
            Pipeline p(f);
            std::string stmt = p.lowered_stmt();
            const bool outer_keeps_lanes = lanes >= inner_lanes;
            EXPECT_EQ(stmt.find("for (f.s0.x.xi") == std::string::npos, outer_keeps_lanes) << stmt;
            if (outer_keeps_lanes) {
                // The consumer's store is one dense vector of the outer lanes.
                EXPECT_THAT(stmt, HasSubstr(", 1, " + std::to_string(lanes) + ")] = ")) << stmt;
            }
            Buffer<int32_t> out = p.realize({kWidth, kHeight});
            for (int py = 0; py < kHeight; py++) {
                for (int px = 0; px < kWidth; px++) {
                    ASSERT_EQ(out(px, py), g_ref(px - 1, py) * 3 - g_ref(px + 1, py))
                        << "at (" << px << ", " << py << ")";
                }
            }
        }
    }
}

// Stored outside the vectorized loop, the lanes' regions share storage, and each lane's update
// must run to its end before the next lane starts over: the lanes run one at a time.
TEST(VectorizedProducer, StoredOutsideTheVectorLoopRunsTheLanesOneByOne) {
    for (int lanes : kLanes) {
        PerLaneProducer p(lanes);
        p.g.store_at(p.f, p.xo).compute_at(p.f, p.xi);
        std::string stmt = Pipeline(p.f).lowered_stmt();
        EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xi, 0, " + std::to_string(lanes) + ")")) << stmt;
        p.expect_outputs_match_reference();
    }
}

// A region whose size differs between the lanes: the loops over it would need a mask.
TEST(VectorizedProducer, RegionOfDifferentSizesRunsTheLanesOneByOne) {
    for (int lanes : kLanes) {
        Buffer<int16_t> in = make_input<int16_t>();
        Var x("x"), y("y"), xo("xo"), xi("xi");
        Func g("g"), f("f");
        g(x, y) = cast<int32_t>(in(x, y)) * 5 + 1;
        f(x, y) = g(x / 2, y) - g(x, y);
        f.split(x, xo, xi, lanes).vectorize(xi);
        g.compute_at(f, xi);
        std::string stmt = Pipeline(f).lowered_stmt();
        EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xi, 0, " + std::to_string(lanes) + ")")) << stmt;
        Buffer<int32_t> out(kWidth, kHeight);
        f.realize(out);
        for (int py = 0; py < kHeight; py++) {
            for (int px = 0; px < kWidth; px++) {
                int32_t expected = ((int32_t)value_at<int16_t>(px / 2, py) * 5 + 1) -
                                   ((int32_t)value_at<int16_t>(px, py) * 5 + 1);
                ASSERT_EQ(out(px, py), expected) << lanes << " lanes, at (" << px << ", " << py << ")";
            }
        }
    }
}

}  // namespace
