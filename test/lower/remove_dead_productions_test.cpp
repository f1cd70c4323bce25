// Productions nobody reads are dropped (lower/RemoveDeadProductions): a Func whose every read
// folds away once simplified (select(c, -81, -78) >> 8 is -1 whatever c reads) is not
// computed, nor is a Func read only by it; a Func that a live consumer also reads stays. The
// outputs equal a plain C++ evaluation.
#include <gtest/gtest.h>

#include <string>

#include <loom.h>

using namespace loom;

namespace {

int count(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
    return n;
}

Buffer<int> ramp_input(int w, int h) {
    Buffer<int> in(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) in(x, y) = (x * 7 + y * 13) % 50 - 20;
    return in;
}

// f0 (with an update over an RDom, reading a boundary condition computed at root) is read
// only inside a select whose two branches shift to the same value.
struct Pipe {
    Var x{"x"}, y{"y"};
    Func bc, f0{"f0"}, out{"out"};
    RDom r{0, 8, "r"};
    explicit Pipe(const Buffer<int> &in) : bc(BoundaryConditions::repeat_edge(in)) {
        f0(x, y) = bc(x, y) * 2;
        f0(r.x, y) = f0(r.x, y) + bc(r.x + 1, y);
        bc.compute_root();
    }
};

TEST(RemoveDeadProductions, AFuncWhoseReadsFoldAwayAndWhatOnlyItReadsAreNotComputed) {
    Buffer<int> in = ramp_input(64, 48);
    for (bool at_root : {false, true}) {
        Pipe p(in);
        if (at_root) p.f0.compute_root();
        p.out(p.x, p.y) = (select(p.f0(p.x, p.y) > 3, -81, -78) >> 8) + p.x * p.y;
        Pipeline pl(p.out);
        std::string stmt = pl.lowered_stmt();
        EXPECT_EQ(count(stmt, "produce "), 1) << stmt;  // out's
        EXPECT_EQ(count(stmt, "produce out"), 1) << stmt;
        EXPECT_EQ(count(stmt, "allocate "), 0) << stmt;
        Buffer<int> result = pl.realize({64, 48});
        for (int y = 0; y < 48; y++)
            for (int x = 0; x < 64; x++) ASSERT_EQ(result(x, y), -1 + x * y) << x << ", " << y;
    }
}

TEST(RemoveDeadProductions, AFuncAlsoReadByALiveConsumerStays) {
    Buffer<int> in = ramp_input(64, 48);
    Pipe p(in);
    Func g("g");
    g(p.x, p.y) = p.bc(p.x, p.y) + 1;
    g.compute_root();
    p.out(p.x, p.y) = (select(p.f0(p.x, p.y) > 3, -81, -78) >> 8) + g(p.x, p.y);
    Pipeline pl(p.out);
    std::string stmt = pl.lowered_stmt();
    EXPECT_EQ(count(stmt, "produce f0"), 0) << stmt;
    EXPECT_EQ(count(stmt, "produce g"), 1) << stmt;
    EXPECT_EQ(count(stmt, "produce "), 3) << stmt;  // the boundary condition, g, out
    Buffer<int> result = pl.realize({64, 48});
    for (int y = 0; y < 48; y++)
        for (int x = 0; x < 64; x++) ASSERT_EQ(result(x, y), -1 + in(x, y) + 1) << x << ", " << y;
}

// Where the read does not fold, the producer stays and its values are used.
TEST(RemoveDeadProductions, AReadThatMattersKeepsItsProducer) {
    Buffer<int> in = ramp_input(64, 48);
    Pipe p(in);
    p.out(p.x, p.y) = select(p.f0(p.x, p.y) > 3, -81, -78) >> 2;
    Pipeline pl(p.out);
    std::string stmt = pl.lowered_stmt();
    EXPECT_EQ(count(stmt, "produce f0"), 1) << stmt;
    Buffer<int> result = pl.realize({64, 48});
    for (int y = 0; y < 48; y++) {
        for (int x = 0; x < 64; x++) {
            auto at = [&](int xx) { return in(std::min(std::max(xx, 0), 63), y); };
            int f0 = at(x) * 2 + (x < 8 ? at(x + 1) : 0);
            ASSERT_EQ(result(x, y), f0 > 3 ? (-81 >> 2) : (-78 >> 2)) << x << ", " << y;
        }
    }
}

// A Func stored at root and computed inside a dead production goes with it, and one computed
// at a loop of the output but read only by a dead production goes too.
TEST(RemoveDeadProductions, FuncsComputedInsideOrOnlyForADeadProductionGoWithIt) {
    Buffer<int> in = ramp_input(64, 48);
    Var x("x"), y("y");
    Func h("h"), k("k"), f("f"), out("out");
    h(x, y) = in(x, y) + 1;
    k(x, y) = in(x, y) * 3;
    f(x, y) = h(x, y) * 2 + k(x, y);
    out(x, y) = (select(f(x, y) + x > 3, 100, 101) / 1000) + y;
    h.compute_at(f, y).store_root();
    k.compute_at(out, y);
    f.compute_at(out, y);
    Pipeline pl(out);
    std::string stmt = pl.lowered_stmt();
    EXPECT_EQ(count(stmt, "produce "), 1) << stmt;
    EXPECT_EQ(count(stmt, "allocate "), 0) << stmt;
    Buffer<int> result = pl.realize({64, 48});
    for (int y = 0; y < 48; y++)
        for (int x = 0; x < 64; x++) ASSERT_EQ(result(x, y), y) << x << ", " << y;
}

}  // namespace
