// What an auto-scheduler knows of a pipeline before it decides anything: its Funcs, who reads
// whom and how, the region of each Func that the outputs' estimates require, and the work of
// each stage. Every size here is a constant, from the estimates (Func::set_estimate,
// Param::set_estimate, ImageParam::set_estimates) or, where one is missing, from a stated
// default reported through the warning callback.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {
namespace autoschedule {

/** [min, max] of one dimension, both inclusive. */
struct Span {
    int64_t min = 0, max = -1;
    int64_t extent() const { return max - min + 1; }
};
/** One Span per dimension. */
using Region64 = std::vector<Span>;

int64_t points_in(const Region64 &r);
Region64 region_union(const Region64 &a, const Region64 &b);

/** One read of a Func or an input image by a stage. */
struct CallSite {
    std::string callee;
    bool is_func = false; // a Func of the pipeline (else an input image)
    std::vector<Expr> args;
    int bytes = 0; // of the value read
};

struct StageInfo {
    /** For each dimension of the Func, the pure Var that this stage's left side has there, or ""
     * where it has an RVar or an expression (the stage scatters along it). */
    std::vector<std::string> pure_vars;
    /** The RDom's variables with constant bounds (from the estimates), outermost last. */
    std::vector<std::string> rvars;
    std::vector<Span> rvar_spans;
    /** Reads of other Funcs and of input images, in the values, the left side and the
     * predicates. */
    std::vector<CallSite> calls;
    /** Reads of the Func itself (updates), whose coordinates order the stage's iterations. */
    std::vector<CallSite> self_calls;
    /** The arithmetic of one iteration of the stage, as the bytes its operations produce (an
     * operation on floats counts 4, on 16-bit values 2; a division by a variable 20 times that):
     * divided by a vector's bytes, the cycles it takes vectorized. Address arithmetic inside a
     * read's coordinates counts nothing but its divisions (the rest folds into addressing, and
     * loop partitioning takes clamps to the edge out of the loops' steady state), nor does
     * arithmetic the same at every iteration (hoisted). Calls to other Funcs are not included. */
    double op_bytes = 0;
    /** Bytes the stage reads from Funcs and images per iteration. */
    double load_bytes = 0;
    /** The operations and reads in its expressions: their size, which inlining multiplies. */
    double nodes = 0;
    /** Whether pure dimension d may run in any order, in parallel or as a vector: every read of
     * the Func itself in this stage reads exactly the point it writes along d. Always true for
     * the pure definition. */
    bool independent(int d) const;
};

struct FuncNode {
    FunctionPtr func;
    bool is_output = false;
    /** The region the outputs' estimates require (bounds inference over constants); for an
     * output, its estimate. */
    Region64 region;
    /** Whether every read of this Func has constant bounds; false where a consumer reads it at
     * data-dependent coordinates (then region is its own estimate or the default). */
    bool bounded = true;
    std::vector<StageInfo> stages;
    /** The Funcs whose stages read this one. */
    std::set<std::string> consumers;
    /** Bytes of one point (every Tuple element). */
    int bytes = 0;
};

/** The analysis. Construction evaluates the regions; `warn` receives one line per missing
 * estimate, saying what was assumed and how to give it. */
class PipelineGraph {
public:
    PipelineGraph(const std::vector<FunctionPtr> &outputs,
                  const std::function<void(const std::string &)> &warn);

    const Environment &environment() const { return env; }
    /** The Funcs, each after every Func it reads (producers first). */
    const std::vector<std::string> &order() const { return env.order; }
    const FuncNode &node(const std::string &name) const { return nodes.at(name); }
    bool has(const std::string &name) const { return nodes.count(name) != 0; }

    /** The region of `callee` that stage `stage` of `consumer` reads when the consumer's pure
     * Vars range over `box` and its RVars over their domains; nullopt where some read has no
     * constant bounds. Reads of `callee` inside Funcs in `through` (inlined into the consumer)
     * are followed. */
    std::optional<Region64> required(const std::string &consumer, int stage, const Region64 &box,
                                     const std::string &callee) const;

    /** The region of `root` and of each Func computed with it that its stage `stage` needs
     * over `box` (a strip of it, a GPU block's tile): bounds inference over constants from the
     * root down through the Funcs `inside` says are computed with it (inlined, or in its strips
     * or blocks). nullopt where a read has no constant bounds. */
    std::optional<std::map<std::string, Region64>>
    regions_within(const std::string &root, int stage, const Region64 &box,
                   const std::function<bool(const std::string &)> &inside) const;

    /** The iterations of one stage over `box` (its pure Vars' region): box's points times the
     * RDom's for an update. */
    int64_t iterations(const std::string &func, int stage, const Region64 &box) const;

    /** e with every Param and image dimension replaced by its estimate. */
    Expr with_estimates(const Expr &e) const;

private:
    void add_estimate_of(const Variable *v);
    void evaluate_regions(const std::vector<FunctionPtr> &outputs);

    Environment env;
    std::map<std::string, FuncNode> nodes;
    std::map<std::string, Expr> estimates; // Param / image-dimension names to their values
    std::function<void(const std::string &)> warn;
};

/** The default extent the analysis assumes for a dimension with no estimate. */
constexpr int64_t default_extent = 1024;

} // namespace autoschedule
} // namespace Internal
} // namespace loom
