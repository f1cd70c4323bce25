// Differential tests: the same algorithm written in Halide 14 and in Loom, realized over the same
// input data, must produce the same bytes. Each check builds one Func per language whose value is
// a Tuple of the Exprs listed, so that one compilation covers a family of operators.
//
// Halide side: the host target with StrictFloat, because Halide otherwise may fuse a * b + c into
// an FMA and reassociate float math; Loom never does either. See halide_target().

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <loom.h>

namespace {

const Halide::Target &halide_target() {
    // Halide 14 reports AVX512_SapphireRapids on CPUs that have AVX512-BF16 and -VNNI but not
    // AVX-VNNI (seen on this project's machines), then emits instructions they lack: SIGILL in
    // an int16 shift. The oracle does not need that feature, so it never uses it.
    static const Halide::Target target = Halide::get_host_target()
                                             .without_feature(Halide::Target::AVX512_SapphireRapids)
                                             .with_feature(Halide::Target::StrictFloat);
    return target;
}

template<typename T>
constexpr bool is_float_v = std::is_floating_point<T>::value;

// ---------------------------------------------------------------------------------------------
// Data.

/** n values spread over [lo, hi] from a fixed seed. */
template<typename T>
std::vector<T> random_values(size_t n, uint32_t seed, T lo, T hi) {
    std::mt19937_64 rng(seed);
    std::vector<T> out(n);
    for (T &v : out) {
        if constexpr (is_float_v<T>) {
            v = (T)std::uniform_real_distribution<double>((double)lo, (double)hi)(rng);
        } else if constexpr (std::is_signed<T>::value) {
            v = (T)std::uniform_int_distribution<int64_t>(lo, hi)(rng);
        } else {
            v = (T)std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
        }
    }
    return out;
}

template<typename T>
std::vector<T> full_range(size_t n, uint32_t seed) {
    return random_values<T>(n, seed, std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
}

template<typename T>
std::vector<T> concat(std::vector<T> a, const std::vector<T> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

constexpr size_t N = 512;

// ---------------------------------------------------------------------------------------------
// Printing elements.

template<typename T>
std::string show(T v) {
    std::ostringstream s;
    if constexpr (std::is_integral<T>::value && sizeof(T) == 1) {
        s << int(v);
    } else if constexpr (is_float_v<T>) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof(T));
        s << std::setprecision(std::numeric_limits<T>::max_digits10) << v << " (0x" << std::hex
          << bits << ")";
    } else {
        s << v;
    }
    return s.str();
}

/** Element i of a buffer of the given type code (0 int, 1 uint, 2 float) and width. */
std::string show_element(int code, int bits, const uint8_t *host, int i) {
    const uint8_t *p = host + (size_t)i * ((bits + 7) / 8);
    auto read = [&](auto v) {
        std::memcpy(&v, p, sizeof(v));
        return show(v);
    };
    if (code == 0 && bits == 8) return read(int8_t());
    if (code == 0 && bits == 16) return read(int16_t());
    if (code == 0 && bits == 32) return read(int32_t());
    if (code == 0 && bits == 64) return read(int64_t());
    if (code == 1 && bits == 1) return read(uint8_t());
    if (code == 1 && bits == 8) return read(uint8_t());
    if (code == 1 && bits == 16) return read(uint16_t());
    if (code == 1 && bits == 32) return read(uint32_t());
    if (code == 1 && bits == 64) return read(uint64_t());
    if (code == 2 && bits == 32) return read(float());
    if (code == 2 && bits == 64) return read(double());
    return "<type " + std::to_string(code) + "/" + std::to_string(bits) + ">";
}

std::string type_name(int code, int bits) {
    if (code == 1 && bits == 1) return "bool";
    return std::string(code == 0 ? "int" : code == 1 ? "uint" : "float") + std::to_string(bits);
}

/** "a / b, min(a, b)" -> {"a / b", "min(a, b)"}: splits at commas outside parentheses. */
std::vector<std::string> split_top_level(const std::string &list) {
    std::vector<std::string> parts(1);
    int depth = 0;
    for (char ch : list) {
        if (ch == '(' || ch == '{' || ch == '[') depth++;
        if (ch == ')' || ch == '}' || ch == ']') depth--;
        if (ch == ',' && depth == 0) {
            parts.emplace_back();
            continue;
        }
        if (!(parts.back().empty() && ch == ' ')) parts.back() += ch;
    }
    return parts;
}

// ---------------------------------------------------------------------------------------------
// The harness.

/** The input buffers, one per vector, identical in both languages, named a, b, c. */
class Inputs {
public:
    template<typename... Ts>
    explicit Inputs(const std::vector<Ts> &...values) {
        (add(values), ...);
    }

    int size() const { return n; }

    /** a(x), b(x), c(x) in each language; missing inputs are undefined Exprs. */
    std::vector<Halide::Expr> halide_calls(const Halide::Var &x) const {
        std::vector<Halide::Expr> calls(3);
        for (size_t i = 0; i < halide_buffers.size(); i++) calls[i] = halide_buffers[i](x);
        return calls;
    }
    std::vector<loom::Expr> loom_calls(const loom::Var &x) const {
        std::vector<loom::Expr> calls(3);
        for (size_t i = 0; i < loom_buffers.size(); i++) calls[i] = loom_buffers[i](x);
        return calls;
    }

    std::string describe(int i) const {
        std::string s;
        for (size_t k = 0; k < printers.size(); k++) {
            s += (k ? ", " : "") + std::string(1, char('a' + k)) + " = " + printers[k](i);
        }
        return s;
    }

private:
    int n = -1;
    std::vector<Halide::Buffer<>> halide_buffers;
    std::vector<loom::Buffer<>> loom_buffers;
    std::vector<std::function<std::string(int)>> printers;

    template<typename T>
    void add(const std::vector<T> &values) {
        if (n < 0) n = (int)values.size();
        EXPECT_EQ((int)values.size(), n) << "inputs of different lengths";
        std::string name(1, char('a' + halide_buffers.size()));
        Halide::Buffer<T> h(std::vector<int>{(int)values.size()}, name);
        loom::Buffer<T> l(std::vector<int>{(int)values.size()}, name);
        std::copy(values.begin(), values.end(), h.data());
        std::copy(values.begin(), values.end(), l.data());
        halide_buffers.push_back(h);
        loom_buffers.push_back(l);
        printers.push_back([values](int i) { return show(values[i]); });
    }
};

// Distance in units of the last place between two finite float32 values of the same sign
// region (the integers their bit patterns order as).
int64_t ulp_distance(float a, float b) {
    auto ordered = [](float f) {
        int32_t i;
        std::memcpy(&i, &f, sizeof i);
        return i < 0 ? (int64_t)INT32_MIN - i : (int64_t)i;
    };
    int64_t d = ordered(a) - ordered(b);
    return d < 0 ? -d : d;
}

/** max_ulps == 0: the bytes must be identical. Otherwise float32 outputs may differ by at most
 * max_ulps units in the last place (and every other output must still be identical). */
template<typename HalideFn, typename LoomFn>
void expect_same_bytes(const std::string &exprs_text, HalideFn halide_fn, LoomFn loom_fn,
                       const Inputs &inputs, int max_ulps = 0) {
    const int n = inputs.size();
    const std::vector<std::string> names = split_top_level(exprs_text);

    std::vector<Halide::Buffer<>> halide_out;
    try {
        Halide::Var x("x");
        std::vector<Halide::Expr> in = inputs.halide_calls(x);
        std::vector<Halide::Expr> values = halide_fn(in[0], in[1], in[2]);
        Halide::Func f("halide_f");
        if (values.size() == 1) {
            f(x) = values[0];
        } else {
            f(x) = Halide::Tuple(values);
        }
        Halide::Realization r = f.realize({n}, halide_target());
        for (size_t k = 0; k < r.size(); k++) halide_out.push_back(r[k]);
    } catch (const std::exception &e) {
        ADD_FAILURE() << "Halide failed on {" << exprs_text << "}: " << e.what();
        return;
    }

    loom::Realization loom_out;
    try {
        loom::Var x("x");
        std::vector<loom::Expr> in = inputs.loom_calls(x);
        std::vector<loom::Expr> values = loom_fn(in[0], in[1], in[2]);
        loom::Func f("loom_f");
        if (values.size() == 1) {
            f(x) = values[0];
        } else {
            f(x) = loom::Tuple(values);
        }
        loom_out = f.realize({n});
    } catch (const std::exception &e) {
        ADD_FAILURE() << "Loom threw on {" << exprs_text << "}: " << e.what();
        return;
    }

    ASSERT_EQ(loom_out.size(), halide_out.size()) << exprs_text;
    for (size_t k = 0; k < halide_out.size(); k++) {
        const std::string &what = k < names.size() ? names[k] : exprs_text;
        const halide_buffer_t *h = halide_out[k].raw_buffer();
        const loom::Buffer<> &l = loom_out[k];
        int code = h->type.code, bits = h->type.bits;
        if (l.type().code != code || l.type().bits() != bits) {
            ADD_FAILURE() << what << ": Halide gives " << type_name(code, bits) << ", Loom gives "
                          << loom::type_to_string(l.type());
            continue;
        }
        if (l.number_of_elements() != n) {
            ADD_FAILURE() << what << ": Loom's output has " << l.number_of_elements()
                          << " elements, expected " << n;
            continue;
        }
        const uint8_t *hp = h->host;
        const uint8_t *lp = static_cast<const uint8_t *>(l.raw_data());
        size_t elem = (bits + 7) / 8;
        if (std::memcmp(hp, lp, n * elem) == 0) continue;
        if (max_ulps > 0 && code == halide_type_float && bits == 32) {
            int64_t worst = 0;
            int at = 0;
            for (int i = 0; i < n; i++) {
                float hv, lv;
                std::memcpy(&hv, hp + i * 4, 4);
                std::memcpy(&lv, lp + i * 4, 4);
                int64_t d = ulp_distance(hv, lv);
                if (d > worst) {
                    worst = d;
                    at = i;
                }
            }
            EXPECT_LE(worst, max_ulps) << what << ": differs by " << worst << " ulps at " << at
                                       << " with " << inputs.describe(at) << ": Halide "
                                       << show_element(code, bits, hp, at) << ", Loom "
                                       << show_element(code, bits, lp, at);
            continue;
        }
        int first = 0, count = 0;
        for (int i = n - 1; i >= 0; i--) {
            if (std::memcmp(hp + i * elem, lp + i * elem, elem) != 0) {
                first = i;
                count++;
            }
        }
        ADD_FAILURE() << what << " (" << type_name(code, bits) << "): " << count << " of " << n
                      << " elements differ. First at " << first << " with " << inputs.describe(first)
                      << ": Halide " << show_element(code, bits, hp, first) << ", Loom "
                      << show_element(code, bits, lp, first);
    }
}

// The Exprs are written once and compiled in each language: `using namespace` picks Halide's or
// Loom's cast, select, min, sqrt... The inputs are a, b and c.
#define SAME_ALGORITHM(...)                                                                     \
    [&](Halide::Expr a, Halide::Expr b, Halide::Expr c) {                                       \
        using namespace Halide;                                                                 \
        (void)a, (void)b, (void)c;                                                              \
        return std::vector<Halide::Expr>{__VA_ARGS__};                                          \
    },                                                                                          \
        [&](loom::Expr a, loom::Expr b, loom::Expr c) {                                         \
            using namespace loom;                                                               \
            (void)a, (void)b, (void)c;                                                          \
            return std::vector<loom::Expr>{__VA_ARGS__};                                        \
        }

/** EXPECT_SAME_AS_HALIDE(Inputs(av, bv), a / b, a % b): each listed Expr, same bytes. */
#define EXPECT_SAME_AS_HALIDE(INPUTS, ...)                                                      \
    expect_same_bytes(#__VA_ARGS__, SAME_ALGORITHM(__VA_ARGS__), INPUTS)

/** Float32 outputs within ULPS units in the last place of Halide's; see Float32.ExpLogPow. */
#define EXPECT_WITHIN_ULPS_OF_HALIDE(ULPS, INPUTS, ...)                                         \
    expect_same_bytes(#__VA_ARGS__, SAME_ALGORITHM(__VA_ARGS__), INPUTS, ULPS)

template<typename T>
struct TypeTag {
    using type = T;
};

/** Calls f(TypeTag<T>()) for each T. */
template<typename... Ts, typename F>
void for_each_type(F f) {
    (f(TypeTag<Ts>()), ...);
}

// ---------------------------------------------------------------------------------------------
// Integer arithmetic on every width up to 32 bits.

template<typename T>
class Integers : public ::testing::Test {};
using IntegerTypes = ::testing::Types<int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t>;
TYPED_TEST_SUITE(Integers, IntegerTypes);

/** Dividend/divisor pairs: random over the range, small divisors (where rounding matters), zero
 * divisors, and the extremes: MIN / -1, MIN / MIN, MAX / MIN, -1 / MIN. */
template<typename T>
std::pair<std::vector<T>, std::vector<T>> division_pairs() {
    const T mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
    std::vector<T> a = full_range<T>(N, 100), b = full_range<T>(N, 101);
    std::vector<T> small = std::is_signed<T>::value ? random_values<T>(N / 2, 102, T(-9), T(9))
                                                    : random_values<T>(N / 2, 102, T(0), T(9));
    std::copy(small.begin(), small.end(), b.begin());
    std::vector<T> ea, eb;
    auto pair = [&](T x, T y) {
        ea.push_back(x);
        eb.push_back(y);
    };
    pair(mn, 1), pair(mx, 1), pair(mn, mn), pair(mx, mx), pair(mx, mn), pair(0, 0), pair(mn, 0),
        pair(mx, 0), pair(7, 2), pair(7, 0);
    if constexpr (std::is_signed<T>::value) {
        pair(mn, -1), pair(mx, -1), pair(-1, mn), pair(-7, 2), pair(7, -2), pair(-7, -2),
            pair(-1, 0), pair(-8, 4), pair(-8, -4), pair(mn + 1, -1);
    }
    return {concat(a, ea), concat(b, eb)};
}

TYPED_TEST(Integers, DivisionAndModulo) {
    using T = TypeParam;
    auto [av, bv] = division_pairs<T>();
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), a / b, a % b);
}

TYPED_TEST(Integers, DivisionAndModuloByConstants) {
    using T = TypeParam;
    std::vector<T> av = concat(full_range<T>(N, 103),
                               {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0),
                                T(1), T(7), T(8), T(9)});
    EXPECT_SAME_AS_HALIDE(Inputs(av), a / 7, a % 7, a / 8, a % 8, a / 1, a % 1, a / 0, a % 0,
                          a / 127, a % 127);
    if constexpr (std::is_signed<T>::value) {
        std::vector<T> negative = concat(av, {T(-1), T(-7), T(-8), T(-9)});
        EXPECT_SAME_AS_HALIDE(Inputs(negative), a / -7, a % -7, a / -8, a % -8, a / -1, a % -1,
                              a / -128, a % -128);
    }
}

TYPED_TEST(Integers, WrapAround) {
    using T = TypeParam;
    std::vector<T> av = full_range<T>(N, 104), bv = full_range<T>(N, 105);
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), a + b, a - b, a * b, -a, a * 3 + 100, cast<T>(a * b - 1),
                          cast<T>(cast<int64_t>(a) * 1000));
}

TYPED_TEST(Integers, ComparisonsAndSelect) {
    using T = TypeParam;
    std::vector<T> av = full_range<T>(N, 106), bv = full_range<T>(N, 107);
    std::copy(av.begin(), av.begin() + 20, bv.begin());  // ties
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), select(a < b, 1, 0) + select(a <= b, 2, 0) +
                                              select(a == b, 4, 0) + select(a != b, 8, 0) +
                                              select(a > b, 16, 0) + select(a >= b, 32, 0),
                          select(a > b, a - b, b - a), select(a < 10, a, b),
                          select(a == b || a < 3, b, a), a < b, a == b);
}

TYPED_TEST(Integers, MinMaxClamp) {
    using T = TypeParam;
    std::vector<T> av = full_range<T>(N, 108), bv = full_range<T>(N, 109), cv = full_range<T>(N, 110);
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, cv), min(a, b), max(a, b), min(a, 100), max(a, 3),
                          clamp(a, 10, 100), clamp(a, b, c), clamp(a, min(b, c), max(b, c)));
}

TYPED_TEST(Integers, AbsAndAbsd) {
    using T = TypeParam;
    std::vector<T> av = concat(full_range<T>(N, 111),
                               {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0)});
    std::vector<T> bv = concat(full_range<T>(N, 112),
                               {std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), T(0)});
    if constexpr (std::is_signed<T>::value) {
        EXPECT_SAME_AS_HALIDE(Inputs(av, bv), abs(a), absd(a, b), absd(b, a));
    } else {
        EXPECT_SAME_AS_HALIDE(Inputs(av, bv), absd(a, b), absd(b, a));  // abs is a no-op
    }
}

TYPED_TEST(Integers, BitwiseOperators) {
    using T = TypeParam;
    std::vector<T> av = full_range<T>(N, 113), bv = full_range<T>(N, 114);
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), a & b, a | b, a ^ b, ~a, a & 0x0F, a | 1, a ^ 0x55,
                          ~(a & b) | (a ^ b));
}

TYPED_TEST(Integers, Shifts) {
    using T = TypeParam;
    constexpr int bits = 8 * sizeof(T);
    std::vector<T> av = full_range<T>(N, 115);
    // Amounts below the width; negative (reversing the direction) for signed types.
    std::vector<T> bv = std::is_signed<T>::value ? random_values<T>(N, 116, T(1 - bits), T(bits - 1))
                                                 : random_values<T>(N, 116, T(0), T(bits - 1));
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), a << b, a >> b, a << 3, a >> 3, a >> (bits - 1),
                          a << 1);
}

TEST(Uint8, Lerp) {
    std::vector<uint8_t> av = full_range<uint8_t>(N, 117), bv = full_range<uint8_t>(N, 118);
    std::vector<uint8_t> wv = concat(full_range<uint8_t>(N - 4, 119), {0, 255, 128, 127});
    std::vector<float> fw =
        concat(random_values<float>(N - 4, 120, 0.0f, 1.0f), {0.0f, 1.0f, 0.5f, 0.25f});
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, wv), lerp(a, b, c), lerp(b, a, c),
                          lerp(a, b, cast<uint8_t>(128)));
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, fw), lerp(a, b, c), lerp(a, b, 0.25f));
}

// ---------------------------------------------------------------------------------------------
// Casts between every pair of int, uint and float widths, for values the destination holds.

/** Values of Src inside the range of Dst, so that float -> int is defined: random over (99% of)
 * that range, with fractions, plus the small values where rounding toward zero shows. */
template<typename Src, typename Dst>
std::vector<Src> float_values_for(uint32_t seed) {
    double lo = std::max((double)std::numeric_limits<Dst>::lowest(), -1e15) * 0.99;
    double hi = std::min((double)std::numeric_limits<Dst>::max(), 1e15) * 0.99;
    std::vector<double> wide = random_values<double>(N, seed, lo, hi);
    std::vector<double> near_zero = random_values<double>(N / 4, seed + 1, std::max(lo, -10.0), 10.0);
    std::vector<Src> out;
    for (double v : concat(wide, near_zero)) out.push_back((Src)v);
    for (double v : {0.0, 0.5, 0.999, 1.0, 1.5, 2.5, -0.5, -1.5, -2.5}) {
        if (v >= lo && v <= hi) out.push_back((Src)v);
    }
    return out;
}

template<typename Src>
class IntegerCasts : public ::testing::Test {};
using AllIntegerTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                                         uint32_t, uint64_t>;
TYPED_TEST_SUITE(IntegerCasts, AllIntegerTypes);

TYPED_TEST(IntegerCasts, ToEveryType) {
    using Src = TypeParam;
    std::vector<Src> av =
        concat(full_range<Src>(N, 121), {std::numeric_limits<Src>::min(),
                                         std::numeric_limits<Src>::max(), Src(0), Src(1), Src(-1)});
    EXPECT_SAME_AS_HALIDE(Inputs(av), cast<int8_t>(a), cast<int16_t>(a), cast<int32_t>(a),
                          cast<int64_t>(a), cast<uint8_t>(a), cast<uint16_t>(a), cast<uint32_t>(a),
                          cast<uint64_t>(a), cast<float>(a), cast<double>(a));
}

template<typename Src>
class FloatCasts : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FloatCasts, FloatTypes);

TYPED_TEST(FloatCasts, ToEveryIntegerTypeForValuesInItsRange) {
    using Src = TypeParam;
    for_each_type<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>(
        [&](auto tag) {
            using Dst = typename decltype(tag)::type;
            SCOPED_TRACE(std::string("to ") + loom::type_to_string(loom::type_of<Dst>()));
            EXPECT_SAME_AS_HALIDE(Inputs(float_values_for<Src, Dst>(122)), cast<Dst>(a));
        });
}

TYPED_TEST(FloatCasts, BetweenFloatWidths) {
    using Src = TypeParam;
    // Values float holds: finite, not below its smallest normal.
    std::vector<Src> fv = concat(random_values<Src>(N, 123, Src(-1e6), Src(1e6)),
                                 random_values<Src>(N, 124, Src(-1e30), Src(1e30)));
    fv = concat(fv, {Src(0.1), Src(1.0 / 3.0), Src(-0.0), Src(1e-30), Src(3.4e38)});
    EXPECT_SAME_AS_HALIDE(Inputs(fv), cast<float>(a), cast<double>(a));
}

// ---------------------------------------------------------------------------------------------
// float32.

std::vector<float> floats(uint32_t seed, float lo = -100, float hi = 100, size_t n = N) {
    return random_values<float>(n, seed, lo, hi);
}

TEST(Float32, ArithmeticMixingMultiplyAndAdd) {
    std::vector<float> av = floats(130), bv = floats(131), cv = floats(132);
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, cv), a * b + c, a * b - c * a, (a + b) * c, c - a * b,
                          a * b * c + a, a + b + c, a - b - c);
}

TEST(Float32, DivisionAndModulo) {
    std::vector<float> av = floats(133), bv = floats(134);
    bv = concat(bv, {2.0f, -2.0f, 0.1f, 3.0f});
    av = concat(av, {5.5f, -5.5f, 0.25f, -7.0f});
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), a / b, a % b, a / 4.0f, a % 2.5f);
}

TEST(Float32, ComparisonsSelectMinMaxClamp) {
    std::vector<float> av = concat(floats(135), {0.0f, -0.0f, 1.0f}),
                       bv = concat(floats(136), {-0.0f, 0.0f, 1.0f}),
                       cv = concat(floats(137), {1.0f, 1.0f, 1.0f});
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, cv),
                          select(a < b, 1, 0) + select(a <= b, 2, 0) + select(a == b, 4, 0) +
                              select(a != b, 8, 0) + select(a > b, 16, 0) + select(a >= b, 32, 0),
                          select(a > b, a - b, c), min(a, b), max(a, b), clamp(a, -1.0f, 1.0f),
                          clamp(a, min(b, c), max(b, c)), abs(a), absd(a, b));
}

TEST(Float32, ComparisonsWithInfinity) {
    // No NaNs: Halide 14 compiles float comparisons with LLVM's no-NaNs flag even under
    // StrictFloat (NaN == NaN gives true), so its NaN results are not a semantics to match.
    // Loom's IEEE comparisons with NaN are checked in the e2e tests.
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> av = {inf, -inf, inf, 1.0f, -inf, 0.0f};
    std::vector<float> bv = {inf, inf, 1.0f, -inf, -inf, -0.0f};
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), select(a < b, 1, 0), select(a <= b, 1, 0),
                          select(a == b, 1, 0), select(a != b, 1, 0), select(a > b, 1, 0),
                          select(a >= b, 1, 0), min(a, b), max(a, b));
}

TEST(Float32, Lerp) {
    std::vector<float> av = floats(138), bv = floats(139), wv = floats(140, 0.0f, 1.0f);
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, wv), lerp(a, b, c), lerp(a, b, 0.25f));
}

TEST(Float32, MathFunctions) {
    std::vector<float> av = concat(floats(141, 1e-6f, 1000.0f), {1.0f, 0.5f, 2.0f, 1e-30f, -1.0f});
    std::vector<float> bv = concat(floats(142, -10.0f, 10.0f), {0.0f, -0.0f, 1.0f, -1.0f, 0.0f});
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv), sqrt(a), sin(b), cos(b), tan(b), tanh(b), atan2(a, b),
                          atan2(b, a), sin(a), cos(a));
}

TEST(Float32, ExpLogPow) {
    // A deliberate difference. Halide 14 does not call expf, logf and powf for float32: it
    // expands them into its own polynomial approximations (pow into exp(log(x) * y)), compiled
    // with fast-math flags, so its bits depend on its LLVM's choices. Loom's log and pow are
    // the C library's (checked bit-exactly in e2e/math_test.cpp) and its exp is its own
    // expansion without fast-math, within 0.85 ulp and the same for every vector width
    // (e2e/exp_test.cpp). Here the two must agree to within a few ulps: Halide documents its
    // approximations as accurate "up to the last few bits".
    std::vector<float> pos = concat(floats(143, 1e-6f, 1000.0f), {1.0f, 0.5f, 2.0f, 1e-30f});
    std::vector<float> any = concat(floats(144, -80.0f, 80.0f), {0.0f, -0.0f, 1.0f, -1.0f});
    std::vector<float> ex = concat(floats(145, -4.0f, 4.0f), {0.5f, 2.0f, -1.0f, 0.0f});
    EXPECT_WITHIN_ULPS_OF_HALIDE(2, Inputs(pos, any, ex), exp(b), log(a));
    // exp(y * log(x)) amplifies log's rounding error by |y * ln(x)|, up to about 23 here.
    EXPECT_WITHIN_ULPS_OF_HALIDE(32, Inputs(pos, any, ex), pow(a, c));
}

TEST(Float32, Rounding) {
    std::vector<float> av = concat(floats(146), {-2.5f, -1.5f, -0.5f, -0.0f, 0.5f, 1.5f, 2.5f,
                                                 2.4999998f, 8388607.5f, -8388607.5f});
    EXPECT_SAME_AS_HALIDE(Inputs(av), floor(a), ceil(a), round(a), trunc(a));
}

TEST(Float32, MathOutsideTheDomain) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> av = {-1.0f, 0.0f, -0.0f, inf, -inf};
    EXPECT_SAME_AS_HALIDE(Inputs(av), sqrt(a), sin(a), floor(a), tanh(a));
}

TEST(Float32, PowWithAConstantIntegerExponent) {
    // Halide 14 expands pow(x, n) for a constant integer n into multiplications (x * x * x),
    // which rounds differently from powf(x, 3.0f).
    std::vector<float> av = concat(floats(146, -10.0f, 10.0f), {0.5f, -2.0f, 3.0f});
    EXPECT_SAME_AS_HALIDE(Inputs(av), pow(a, 2), pow(a, 3), pow(a, -1));
}

TEST(Float64, ArithmeticAndMath) {
    std::vector<double> av = random_values<double>(N, 150, -100, 100),
                        bv = random_values<double>(N, 151, -100, 100),
                        cv = random_values<double>(N, 152, 1e-3, 100);
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, cv), a * b + c, a / b, a % b, sqrt(c), exp(b / 10), log(c),
                          floor(a), round(a), min(a, b));
}

// ---------------------------------------------------------------------------------------------
// Halide 14's helpers for values: mux and saturating_cast.

TEST(Mux, IndexInAndOutOfRange) {
    std::vector<int32_t> ids =
        concat(random_values<int32_t>(N, 160, -3, 6), {INT32_MIN, INT32_MAX, 0, 1, 2, 3});
    std::vector<int32_t> bv = full_range<int32_t>(ids.size(), 161),
                         cv = full_range<int32_t>(ids.size(), 162);
    EXPECT_SAME_AS_HALIDE(Inputs(ids, bv, cv), mux(a, {b, c, b + c, b * 3}), mux(a, {c}),
                          mux(a, {b, c}), mux(a, Tuple(c, b, b - c)));
}

TEST(Mux, UnsignedIndexAndFloatValues) {
    std::vector<uint8_t> ids = concat(random_values<uint8_t>(N, 163, 0, 5), {uint8_t(255)});
    std::vector<float> bv = random_values<float>(ids.size(), 164, -1, 1),
                       cv = random_values<float>(ids.size(), 165, -1, 1);
    EXPECT_SAME_AS_HALIDE(Inputs(ids, bv, cv), mux(a, {b, c, b * c, 0.5f}));
}

/** Values of T across its range with its limits, and for floats the infinities and values far
 * past every integer type's range. */
template <typename T> std::vector<T> saturating_inputs(uint32_t seed) {
    std::vector<T> spread;
    if constexpr (is_float_v<T>) {
        spread = random_values<T>(N, seed, T(-1e30), T(1e30));
    } else {
        spread = full_range<T>(N, seed);
    }
    std::vector<T> v =
        concat(spread, {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0), T(1),
                        T(127), T(128), T(255), T(256)});
    if constexpr (std::is_signed<T>::value) v = concat(v, {T(-1), T(-128), T(-129)});
    if constexpr (is_float_v<T>) {
        v = concat(v, {std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                       T(2147483647.0), T(2147483648.0), T(-2147483649.0), T(4294967295.0),
                       T(4294967296.0), T(65535.5), T(-0.75), T(32767.9)});
        v = concat(v, random_values<T>(N, seed + 1, T(-70000), T(70000)));
    }
    return v;
}

template <typename T> class SaturatingCastFrom : public ::testing::Test {};
using SaturatingSources =
    ::testing::Types<int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t, int64_t, float, double>;
TYPED_TEST_SUITE(SaturatingCastFrom, SaturatingSources);

TYPED_TEST(SaturatingCastFrom, EveryTargetType) {
    using T = TypeParam;
    std::vector<T> av = saturating_inputs<T>(170);
    EXPECT_SAME_AS_HALIDE(Inputs(av), saturating_cast<int8_t>(a), saturating_cast<uint8_t>(a),
                          saturating_cast<int16_t>(a), saturating_cast<uint16_t>(a),
                          saturating_cast<int32_t>(a), saturating_cast<uint32_t>(a),
                          saturating_cast<float>(a), saturating_cast(Int(64), a),
                          saturating_cast(UInt(64), a), saturating_cast(Float(64), a));
}

TEST(ConciseCasts, PlainAndSaturating) {
    std::vector<int32_t> av =
        concat(full_range<int32_t>(N, 180), {INT32_MIN, INT32_MAX, 0, -1, 255, 256});
    std::vector<float> bv = concat(random_values<float>(av.size() - 6, 181, -70000, 70000),
                                   {-1e10f, 1e10f, 0.5f, -0.5f, 65535.5f, 255.5f});
    // A float cast to an integer type that can't hold it is undefined in Halide (Halide 14
    // gives 32767 for i16(38417.8f) on a CPU with AVX-512, -27119 on one without): the plain
    // cast of b is compared on values inside int16's range, the saturating ones on all.
    EXPECT_SAME_AS_HALIDE(
        Inputs(av, bv), ConciseCasts::u8(a), ConciseCasts::i8(a), ConciseCasts::u16(a),
        ConciseCasts::i16(clamp(b, -32768.0f, 32767.0f)), ConciseCasts::u32(b * 0),
        ConciseCasts::i64(a), ConciseCasts::u64(a), ConciseCasts::f32(a), ConciseCasts::f64(b),
        ConciseCasts::u8_sat(a), ConciseCasts::i8_sat(b), ConciseCasts::u16_sat(b),
        ConciseCasts::i16_sat(a), ConciseCasts::i32_sat(b), ConciseCasts::u32_sat(a),
        ConciseCasts::i64_sat(b), ConciseCasts::u64_sat(b));
}

TEST(MinAndMax, OfThreeOrMoreValues) {
    std::vector<int16_t> av = full_range<int16_t>(N, 182), bv = full_range<int16_t>(N, 183),
                         cv = full_range<int16_t>(N, 184);
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, cv), min(a, b, c), max(a, b, c), min(a, b, c, 7),
                          max(c, 100, a, b), min(a, max(b, c, 0), 5));
}

TEST(TupleSelect, ByOneConditionAndByATupleOfThem) {
    std::vector<int32_t> av = full_range<int32_t>(N, 185), bv = full_range<int32_t>(N, 186),
                         cv = full_range<int32_t>(N, 187);
    auto halide = [](Halide::Expr a, Halide::Expr b, Halide::Expr c) {
        Halide::Tuple t = Halide::tuple_select(a < b, {a, b}, {b, c});
        Halide::Tuple u = Halide::tuple_select({a < 0, b < 0}, {a, b}, {c, c});
        Halide::Tuple v = Halide::tuple_select(a < 0, Halide::Tuple(a, c), b < 0,
                                               Halide::Tuple(b, a), Halide::Tuple(c, b));
        return std::vector<Halide::Expr>{t[0], t[1], u[0], u[1], v[0], v[1]};
    };
    auto loom_fn = [](loom::Expr a, loom::Expr b, loom::Expr c) {
        loom::Tuple t = loom::tuple_select(a < b, {a, b}, {b, c});
        loom::Tuple u = loom::tuple_select({a < 0, b < 0}, {a, b}, {c, c});
        loom::Tuple v = loom::tuple_select(a < 0, loom::Tuple(a, c), b < 0, loom::Tuple(b, a),
                                           loom::Tuple(c, b));
        return std::vector<loom::Expr>{t[0], t[1], u[0], u[1], v[0], v[1]};
    };
    expect_same_bytes("t0, t1, u0, u1, v0, v1", halide, loom_fn, Inputs(av, bv, cv));
}

template <typename T> class RoundToZero : public ::testing::Test {};
TYPED_TEST_SUITE(RoundToZero, IntegerTypes);

TYPED_TEST(RoundToZero, DivisionAndRemainder) {
    using T = TypeParam;
    // Halide leaves a zero divisor, and MIN / -1, to the machine: those are left out.
    std::vector<T> av = full_range<T>(N, 188), bv = full_range<T>(N, 189);
    std::vector<T> small = std::is_signed<T>::value ? random_values<T>(N / 2, 190, T(-9), T(9))
                                                    : random_values<T>(N / 2, 190, T(1), T(9));
    std::copy(small.begin(), small.end(), bv.begin());
    for (size_t i = 0; i < av.size(); i++) {
        if (bv[i] == 0) bv[i] = 3;
        if (std::is_signed<T>::value && av[i] == std::numeric_limits<T>::min() && bv[i] == T(-1))
            bv[i] = 2;
    }
    // A divisor of 7 in a buffer: Halide 14 miscomputes div_round_to_zero by a literal 7 (it
    // gives 13 for -113 and -2 for an unsigned 15); Loom's by constants is checked against C++
    // in test/e2e/arithmetic_test.cpp (RoundToZero.ByConstantsAsC).
    std::vector<T> sevens(av.size(), T(7));
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, sevens), div_round_to_zero(a, b), mod_round_to_zero(a, b),
                          div_round_to_zero(a, c), mod_round_to_zero(a, c));
}

TEST(Float32, HyperbolicInversesAndHypot) {
    std::vector<float> av = concat(floats(191, -20.0f, 20.0f), {0.0f, -0.0f, 1.0f, -1.0f, 0.5f});
    std::vector<float> bv = floats(192, 1.0f, 30.0f, av.size());
    std::vector<float> cv = floats(193, -0.999f, 0.999f, av.size());
    EXPECT_SAME_AS_HALIDE(Inputs(av, bv, cv), asinh(a), acosh(b), atanh(c), hypot(a, b),
                          hypot(a, c));
}

// MachineParams, the auto-schedulers' description of a machine: Halide 14's generic machine and
// its string form, written and parsed alike.
TEST(MachineParams, GenericAndStringFormAsHalides) {
    EXPECT_EQ(loom::MachineParams::generic().to_string(),
              Halide::MachineParams::generic().to_string());
    for (const char *text : {"2,33554432,12.5", "16,16777216,40", "128,268435456,0.25"}) {
        Halide::MachineParams h{std::string(text)};
        loom::MachineParams l{std::string(text)};
        EXPECT_EQ(l.parallelism, h.parallelism) << text;
        EXPECT_EQ(l.last_level_cache_size, h.last_level_cache_size) << text;
        EXPECT_EQ(l.balance, h.balance) << text;
        EXPECT_EQ(l.to_string(), h.to_string()) << text;
    }
}

} // namespace
