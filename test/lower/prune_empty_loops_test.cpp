// Unit tests of prune_empty_loops: each builds a Func's production as bounds inference sees it
// (a GuardWithIf split into a main loop and a tail, written in the Func's region lets), runs
// the pass with the region's values, and compares with the expected Stmt.
#include <gtest/gtest.h>

#include <loom.h>

#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/PruneEmptyLoops.h"

using namespace loom;
using namespace loom::Internal;

namespace {

Expr i32(const std::string &name) { return Variable::make(Int(32), name); }

Stmt store_at(const std::string &func, const Expr &x) {
    return Store::make(func, make_const(Float(32), 1.0), x);
}

Stmt serial(const std::string &name, const Expr &min, const Expr &extent, const Stmt &body) {
    return For::make(name, min, extent, ForType::Serial, DeviceAPI::Host, body);
}

// f's dimension x split by 8 with GuardWithIf, as ScheduleFunctions writes it: the main loop
// over the whole vectors of 8, then at most one more outer iteration whose inner loop stops at
// the region's end.
Stmt split_by_8(const std::string &func) {
    const std::string x = func + ".s0.x";
    Expr extent = i32(x + ".loop_extent"), xo = i32(x + ".xo"), xi = i32(x + ".xi");
    Expr outer_extent = i32(x + ".xo.loop_extent");
    Stmt main =
        serial(x + ".xo", 0, extent / 8, serial(x + ".xi", 0, 8, store_at(func, xo * 8 + xi)));
    Expr done = max(extent / 8, 0);
    Stmt tail = serial(x + ".xo", done, min(outer_extent - done, 1),
                       serial(x + ".xi", 0, min(8, extent - xo * 8), store_at(func, xo * 8 + xi)));
    Stmt body = Block::make(main, tail);
    body = LetStmt::make(x + ".xo.loop_extent", (extent + 7) / 8, body);
    body = LetStmt::make(x + ".loop_extent", i32(x + ".max") - i32(x + ".min") + 1, body);
    return ProducerConsumer::make(func, true, body);
}

Stmt main_loop_only(const std::string &func) {
    const std::string x = func + ".s0.x";
    Expr extent = i32(x + ".loop_extent"), xo = i32(x + ".xo"), xi = i32(x + ".xi");
    Stmt main =
        serial(x + ".xo", 0, extent / 8, serial(x + ".xi", 0, 8, store_at(func, xo * 8 + xi)));
    Stmt body = Block::make(main, Evaluate::make(0));
    body = LetStmt::make(x + ".xo.loop_extent", (extent + 7) / 8, body);
    body = LetStmt::make(x + ".loop_extent", i32(x + ".max") - i32(x + ".min") + 1, body);
    return ProducerConsumer::make(func, true, body);
}

void check(const Stmt &input, const std::map<std::string, Expr> &region, const Stmt &expected) {
    Stmt output = prune_empty_loops(input, region);
    EXPECT_EQ(to_string(output), to_string(expected)) << "input:\n"
                                                      << input << "expected:\n"
                                                      << expected << "got:\n"
                                                      << output;
}

TEST(PruneEmptyLoops, TailOfATileOfTheSplitFactorIsDropped) {
    // The region is a tile of 16 at the consumer's column xo * 16: two whole vectors of 8.
    Expr tile_min = i32("out.min.0") + i32("xo") * 16;
    check(split_by_8("f"), {{"f.s0.x.min", tile_min}, {"f.s0.x.max", tile_min + 15}},
          main_loop_only("f"));
}

TEST(PruneEmptyLoops, TailThatMayRunIsKept) {
    // The last tile of an image of width n is clamped: its size is not a multiple of 8.
    Expr tile_min = i32("out.min.0") + i32("xo") * 16;
    Stmt s = split_by_8("f");
    check(s, {{"f.s0.x.min", tile_min}, {"f.s0.x.max", min(tile_min + 15, i32("n") - 1)}}, s);
}

TEST(PruneEmptyLoops, RegionOfUnknownSizeKeepsTheTail) {
    Stmt s = split_by_8("f");
    check(s, {}, s);
}

TEST(PruneEmptyLoops, NestedProductionIsLeftAsItIs) {
    // g's production inside f's: f's region says nothing of g's, which bounds inference pruned
    // when it found g's region; the pass does not walk it again.
    Expr tile_min = i32("out.min.0") + i32("xo") * 16;
    Stmt g = split_by_8("g");
    Stmt s = ProducerConsumer::make(
        "f", true, Block::make(g, serial("f.s0.y", 0, 4, store_at("f", i32("f.s0.y")))));
    std::map<std::string, Expr> region = {{"f.s0.x.min", tile_min},
                                          {"f.s0.x.max", tile_min + 15},
                                          {"g.s0.x.min", tile_min},
                                          {"g.s0.x.max", tile_min + 15}};
    check(s, region, s);
}

TEST(PruneEmptyLoops, LoopThatRebindsARegionNameSeesItsOwnVariable) {
    // Inside a loop over a variable named like the region's max, the tail's extent does not
    // read the region's value.
    Expr tile_min = i32("out.min.0") + i32("xo") * 16;
    Stmt s = serial("f.s0.x.max", 0, 3, split_by_8("f"));
    check(s, {{"f.s0.x.min", tile_min}, {"f.s0.x.max", tile_min + 15}}, s);
}

} // namespace
