// Interval arithmetic over Exprs: the range of values an expression takes when its variables
// range over intervals, and the region of a Func or buffer that a statement reads.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dsl/IR.h"
#include "dsl/IREquality.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {

/** [min, max], both inclusive. An undefined end is unbounded on that side. */
struct Interval {
    Expr min, max;
    Interval() = default;
    Interval(Expr min, Expr max) : min(std::move(min)), max(std::move(max)) {}
    static Interval single_point(const Expr &e) { return Interval(e, e); }
    static Interval everything() { return Interval(); }
    bool is_bounded() const { return min.defined() && max.defined(); }
    /** One value: both ends the same expression. */
    bool is_single_point() const { return is_bounded() && deep_equal(min, max); }
    bool has_lower_bound() const { return min.defined(); }
    bool has_upper_bound() const { return max.defined(); }
};

/** The smallest interval containing both. */
Interval interval_union(const Interval &a, const Interval &b);

/** One Interval per dimension. */
using Box = std::vector<Interval>;
Box box_union(const Box &a, const Box &b);

/** The range of e when each Variable in scope ranges over its interval; Variables not in
 * scope are treated as fixed symbols. The result is simplified. */
Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope);

/** How the boxes below treat a region let inside s (<f>.s<k>.<v>.min or .max) whose value does
 * not change over the loops of s. Expanded: its value is repeated in each bound that uses it.
 * Named: it is bound by a Let in the boxes that use it, under a fresh name: the boxes stay
 * exact and small, but may hold Lets, which hide from the simplifier what the value would
 * cancel against. NamedWhenLarge: named only where its value, expanded, is larger than a few
 * dozen operations: a consumer's region written in terms of its own consumers', through splits
 * whose tails repeat both ends several times, grows exponentially with the depth of a nest
 * when expanded (auto-scheduled camera_pipe: 21 MB of IR and 15 s of bounds inference with
 * four Funcs in one strip loop), while small values stay exact for the simplifier. */
enum class FixedRegionLets { Expanded, NamedWhenLarge, Named };

/** For each Func or input buffer that s reads (through Calls), the box of coordinates it
 * reads, as expressions of the variables free in s. Loops and lets inside s are accounted for.
 * Keyed by the called name. */
std::map<std::string, Box> boxes_required(const Stmt &s, const Scope<Interval> &scope = {},
                                          FixedRegionLets region_lets = FixedRegionLets::Expanded);

/** For each Func that s writes (through Provides), the box of coordinates it writes. */
std::map<std::string, Box> boxes_provided(const Stmt &s, const Scope<Interval> &scope = {},
                                          FixedRegionLets region_lets = FixedRegionLets::Expanded);

/** boxes_required(s, {}, region_lets)[func] (empty where s doesn't read func), walking
 * only the statements of s that read func. */
Box box_required(const Stmt &s, const std::string &func,
                 FixedRegionLets region_lets = FixedRegionLets::Expanded);

/** box_required(s, f, region_lets) for each f of funcs that s reads (keyed by name), in
 * one walk of the statements of s that read any of them. */
std::map<std::string, Box>
boxes_required_of(const Stmt &s, const std::set<std::string> &funcs,
                  FixedRegionLets region_lets = FixedRegionLets::Expanded);

/** boxes_provided(s, {}, region_lets)[func], walking only the statements of s that
 * write func. */
Box box_provided(const Stmt &s, const std::string &func,
                 FixedRegionLets region_lets = FixedRegionLets::Expanded);

}  // namespace Internal
}  // namespace loom
