// Unit tests of fold_allocation_indices: each builds a Stmt, runs the pass, and compares with
// the expected Stmt, printing all three on failure.
#include <gtest/gtest.h>

#include <loom.h>

#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/FoldAllocationIndices.h"

using namespace loom;
using namespace loom::Internal;

namespace {

void check(const Stmt &input, const Stmt &expected) {
    Stmt output = fold_allocation_indices(input);
    EXPECT_EQ(to_string(output), to_string(expected)) << "input:\n"
                                                      << input << "expected:\n"
                                                      << expected << "got:\n"
                                                      << output;
}

Expr i32(const char *name) { return Variable::make(Int(32), name); }

// A 4 x 2 tile computed at a consumer's loop and read back by it: the read's index is
// (x - tile.x.min) + 4 * (y - tile.y.min), where x and y are the consumer's coordinates, lets
// of the same loop variables as the tile's mins.
Stmt tile_read_back(const Expr &read_index) {
    Expr xo = i32("xo"), y = i32("y");
    Stmt read = Store::make("out", Load::make(Float(32, 4), "tile", read_index),
                            Ramp::make(i32("x") + y * 100, 1, 4));
    Stmt body = LetStmt::make("x", xo * 4 + i32("out.min.0"), read);
    body = LetStmt::make("tile.x.min", i32("out.min.0") + xo * 4, body);
    body = LetStmt::make("tile.y.min", y, body);
    Stmt tile = Allocate::make("tile", Float(32), {4, 2}, body);
    return For::make("xo", 0, 25, ForType::Serial, DeviceAPI::Host, tile);
}

TEST(FoldAllocationIndices, ReadOfATileThroughLetsBecomesConstant) {
    Expr index =
        Ramp::make((i32("x") - i32("tile.x.min")) + (i32("y") + 1 - i32("tile.y.min")) * 4, 1, 4);
    check(tile_read_back(index), tile_read_back(Ramp::make(4, 1, 4)));
}

TEST(FoldAllocationIndices, IndexThatVariesIsKept) {
    // y + 1 - tile.y.min is 1, but xo itself does not cancel.
    Expr index = Ramp::make(i32("xo") + (i32("y") + 1 - i32("tile.y.min")) * 4, 1, 4);
    Stmt s = tile_read_back(index);
    check(s, s);
}

TEST(FoldAllocationIndices, AllocationOfVariableSizeIsLeftAlone) {
    Stmt read = Store::make("out", Load::make(Float(32), "buf", i32("i") - i32("lo")), 0);
    Stmt body = LetStmt::make("i", i32("lo") + 3, read);
    body = LetStmt::make("lo", i32("n") * 2, body);
    Stmt s = Allocate::make("buf", Float(32), {i32("n")}, body);
    check(s, s);
}

TEST(FoldAllocationIndices, LoopVariableHidesALetOfTheSameName) {
    // Inside the loop, i is the loop's variable, not the let's 3: tile[i] must stay.
    Stmt read = Store::make("out", Load::make(Float(32), "tile", i32("i")), i32("i"));
    Stmt loop = For::make("i", 0, 8, ForType::Serial, DeviceAPI::Host, read);
    Stmt s = Allocate::make("tile", Float(32), {8}, LetStmt::make("i", 3, loop));
    check(s, s);
    // Outside it, the let's value is used.
    Stmt outside =
        Allocate::make("tile", Float(32), {8}, LetStmt::make("i", 3, Block::make(read, loop)));
    Stmt folded_read = Store::make("out", Load::make(Float(32), "tile", 3), i32("i"));
    check(outside, Allocate::make("tile", Float(32), {8},
                                  LetStmt::make("i", 3, Block::make(folded_read, loop))));
}

TEST(FoldAllocationIndices, ALetBindingANameAgainHidesTheLetsThatUseIt) {
    // b = a + 1 = 6 and a = 7 where tile is read: b - a is -1. Substituting the innermost a
    // into b's value would give 1.
    Expr a = i32("a"), b = i32("b");
    Stmt read = Store::make("out", Load::make(Float(32), "tile", b - a), 0);
    Stmt s = Allocate::make(
        "tile", Float(32), {8},
        LetStmt::make("a", 5, LetStmt::make("b", a + 1, LetStmt::make("a", 7, read))));
    check(s, s);
}

TEST(FoldAllocationIndices, ALoopBindingANameAgainHidesTheLetsThatUseIt) {
    // t is the outer i + 1; inside the inner loop i is that loop's, so t - i is not 1.
    Expr i = i32("i"), t = i32("t");
    Stmt read = Store::make("out", Load::make(Float(32), "tile", t - i), i);
    Stmt inner = For::make("i", 0, 4, ForType::Serial, DeviceAPI::Host, read);
    Stmt s = Allocate::make(
        "tile", Float(32), {8},
        For::make("i", 0, 2, ForType::Serial, DeviceAPI::Host, LetStmt::make("t", i + 1, inner)));
    check(s, s);
}

// A tile over the few points around a consumer's point (x - 1 and x, y - 1 and y), computed by
// loops from the point's neighbours: the loops run from 0, their variables plus the old mins
// in the body, and the tile's indices simplify to the loop variables.
TEST(FoldAllocationIndices, LoopsFromAVariableMinIndexingATileRunFromZero) {
    Expr x = i32("x"), y = i32("y"), tx = i32("t.x"), ty = i32("t.y");
    auto nest = [&](const Expr &x_min, const Expr &y_min, const Expr &tile_index,
                    const Expr &input_index) {
        Stmt store = Store::make("t", Load::make(Int(32), "in", input_index), tile_index);
        Stmt inner = For::make("t.x", x_min, 2, ForType::Serial, DeviceAPI::Host, store);
        return Allocate::make("t", Int(32), {2, 2},
                              For::make("t.y", y_min, 2, ForType::Serial, DeviceAPI::Host, inner));
    };
    Stmt before = nest(x - 1, y - 1, (tx - x) + (ty - y) * 2 + 3, tx + ty * 100);
    Stmt after = nest(0, 0, tx + ty * 2, (tx + (x - 1)) + (ty + (y - 1)) * 100);
    check(before, after);
    // A loop whose variable does not index the tile keeps its min.
    Stmt other = nest(x - 1, y - 1, Expr(0), tx + ty * 100);
    check(other, other);
}

} // namespace
