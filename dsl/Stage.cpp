#include "dsl/Stage.h"
#include "dsl/Associativity.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"

#include <cctype>

namespace loom {

using namespace Internal;

Definition &Stage::definition() const {
    user_assert(func->defined()) << "Func " << func->name
                                 << " must be defined before it is scheduled";
    if (specialized) return *specialized;
    if (index == 0) return func->init;
    internal_assert(index - 1 < (int)func->updates.size()) << "No update " << index - 1;
    return func->updates[index - 1];
}

std::string Stage::stage_name() const {
    return index == 0 ? func->name : func->name + ".update(" + std::to_string(index - 1) + ")";
}

namespace Internal {

const std::string &prefetched_name(const PrefetchDirective &p) {
    return p.image ? p.image->name : p.func->name;
}

bool loop_name_matches(const std::string &loop, const std::string &name) {
    if (loop == name) return true;
    return loop.size() > name.size() && loop.compare(loop.size() - name.size(), name.size(), name) == 0 &&
           loop[loop.size() - name.size() - 1] == '.';
}

std::string loops_outermost_first(const std::vector<Dim> &dims) {
    std::string s;
    for (auto d = dims.rbegin(); d != dims.rend(); ++d)
        s += (s.empty() ? "" : ", ") + d->var;
    return s.empty() ? "(none)" : s;
}

} // namespace Internal

// A loop name the user gives a new loop must not name a loop the stage already has (other than
// the one it replaces): every later directive names loops by their last component, and two
// loops ending in the same name could not be told apart. Halide rejects the same schedules.
void Stage::check_new_loop_name(const std::string &name, const std::string &replaced,
                                const char *directive) const {
    if (name == replaced) return;
    for (const Dim &d : schedule().dims) {
        user_assert(!loop_name_matches(d.var, name))
            << "In " << directive << " of " << stage_name() << ": can't name a new loop " << name
            << ", because this stage already has the loop " << d.var
            << ", and a later directive naming " << name
            << " could not tell the two apart. Give the new loop another name.";
    }
}

size_t Stage::find_dim(const std::string &var, const char *directive) const {
    const std::vector<Dim> &dims = schedule().dims;
    size_t found = dims.size();
    for (size_t i = 0; i < dims.size(); i++) {
        if (dims[i].var == var) return i;
        if (loop_name_matches(dims[i].var, var)) {
            user_assert(found == dims.size())
                << "In " << directive << " of " << stage_name() << ": " << var
                << " is ambiguous; it could be " << dims[found].var << " or " << dims[i].var;
            found = i;
        }
    }
    if (found != dims.size()) return found;
    user_error << "In " << directive << " of " << stage_name() << ": " << var
               << " is not a loop of this stage. Its loops, outermost first, are: "
               << loops_outermost_first(dims) << ".";
    return 0;
}

namespace {

// The inner loop of vectorize(var, n), unroll(var, n) or parallel(var, n): Halide 14 splits
// with a fresh `Var tmp` (an RVar for an RVar), so the loop prints as var.v7 (var.r3).
VarOrRVar unnamed_loop(const VarOrRVar &var) {
    return VarOrRVar(unique_loop_name(var.is_rvar ? 'r' : 'v'), var.is_rvar);
}

void check_factor(const Expr &factor, const std::string &stage, const std::string &var,
                  const char *directive) {
    user_assert(factor.defined()) << "In " << directive << " of " << stage << " (" << var
                                  << "): the factor is undefined";
    user_assert(factor.type().is_int_or_uint() && factor.type().is_scalar())
        << "In " << directive << " of " << stage << " (" << var
        << "): the factor must be an integer, not " << factor;
    if (const int64_t *c = as_const_int(factor)) {
        user_assert(*c > 0) << "Can't " << directive << " " << var << " of " << stage << " by "
                            << *c << ". The factor of " << directive << " must be strictly positive.";
    }
}

// The loops of a stage that lie inside the inner loop of one of its splits: the inner loops,
// their outer and inner parts when split again, their renames, and a fusion with one of them.
std::set<std::string> loops_inside_an_inner_loop(const std::vector<Split> &splits) {
    std::set<std::string> inner;
    for (const Split &s : splits) {
        if (s.kind == Split::SplitVar) {
            inner.insert(s.inner);
            if (inner.count(s.old_var)) inner.insert(s.outer);
        } else if (s.kind == Split::RenameVar) {
            if (inner.count(s.old_var)) inner.insert(s.outer);
        } else if (inner.count(s.inner) || inner.count(s.outer)) { // FuseVars
            inner.insert(s.old_var);
        }
    }
    return inner;
}

// What TailStrategy::Auto means for a split of the loop `var`, exactly as Halide 14 resolves it
// (Stage::split in its Func.cpp), when the split is made:
//
//   loop split                                   | Auto becomes
//   ---------------------------------------------|--------------------------------------------
//   an RVar, or a loop split from one            | GuardWithIf (the RDom must not be exceeded)
//   update, pure loop not inside an inner loop   | RoundUp (computes a little more; the
//                                                | output's region grows, see realize)
//   update, pure loop inside an inner loop       | GuardWithIf (rounding up there would apply
//                                                | the update to points twice)
//   pure definition, a loop inside the blocks of | RoundUp (the earlier split already keeps
//     an earlier ShiftInwards split whose factor | every point inside the region; shifting
//     is at least this one's                     | again would start before it)
//   pure definition, otherwise                   | ShiftInwards
//
// (f.vectorize(x, 8).unroll(x, 4) is the pure case inside shifted blocks; a tile's outer loop
// split again, likewise.) Whether the Func is an output or an intermediate does not matter.
TailStrategy auto_tail(const std::vector<Split> &splits, const std::string &var, bool update,
                       bool is_rvar, const Expr &factor) {
    if (is_rvar) return TailStrategy::GuardWithIf;
    if (update) {
        return loops_inside_an_inner_loop(splits).count(var) ? TailStrategy::GuardWithIf
                                                             : TailStrategy::RoundUp;
    }
    std::map<std::string, Expr> inside_shifted_blocks; // loop -> the shifted split's factor
    for (const Split &s : splits) {
        auto from = inside_shifted_blocks.find(s.old_var);
        if (s.kind == Split::SplitVar && s.tail == TailStrategy::ShiftInwards) {
            inside_shifted_blocks[s.outer] = s.factor;
        } else if (s.kind == Split::SplitVar && from != inside_shifted_blocks.end()) {
            Expr f = from->second;
            inside_shifted_blocks[s.outer] = f;
            inside_shifted_blocks[s.inner] = f;
        } else if (s.kind == Split::RenameVar && from != inside_shifted_blocks.end()) {
            inside_shifted_blocks[s.outer] = from->second;
        }
    }
    auto it = inside_shifted_blocks.find(var);
    if (it == inside_shifted_blocks.end()) return TailStrategy::ShiftInwards;
    // Halide asks its prover; constant factors and equal expressions are what it can prove.
    const Expr &earlier = it->second;
    std::optional<int64_t> a = const_int_value(earlier), b = const_int_value(factor);
    const bool at_least = (a && b) ? *a >= *b : deep_equal(earlier, factor);
    return at_least ? TailStrategy::RoundUp : TailStrategy::ShiftInwards;
}

}  // namespace

Stage &Stage::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                    const Expr &factor, TailStrategy tail) {
    return split_for(old, outer, inner, factor, tail, "split", true);
}

Stage &Stage::split_for(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                        const Expr &factor, TailStrategy tail, const char *directive,
                        bool names_from_user) {
    check_factor(factor, stage_name(), old.name(), directive);
    if (tail == TailStrategy::Predicate || tail == TailStrategy::PredicateLoads ||
        tail == TailStrategy::PredicateStores)
        tail = TailStrategy::GuardWithIf;
    std::vector<Dim> &dims = schedule().dims;
    size_t i = find_dim(old.name(), directive);
    user_assert(outer.name() != inner.name()) << "In " << directive << " of " << stage_name()
                                              << ": outer and inner loops must have distinct names";
    if (names_from_user) {
        check_new_loop_name(outer.name(), old.name(), directive);
        check_new_loop_name(inner.name(), old.name(), directive);
    }
    std::string old_name = dims[i].var;
    std::string outer_name = old_name + "." + outer.name(), inner_name = old_name + "." + inner.name();
    if (index > 0) {
        user_assert(tail != TailStrategy::ShiftInwards)
            << "Can't split " << old.name() << " of " << stage_name()
            << " with TailStrategy::ShiftInwards: it recomputes some points, and an update "
               "applied twice changes the result. Use GuardWithIf (the default) or RoundUp.";
        user_assert(!(dims[i].is_rvar && tail == TailStrategy::RoundUp))
            << "Can't split RVar " << old.name() << " of " << stage_name()
            << " with TailStrategy::RoundUp: it would iterate outside the RDom and change the "
               "result. Use GuardWithIf (the default).";
        user_assert(!(tail == TailStrategy::RoundUp &&
                      loops_inside_an_inner_loop(schedule().splits).count(old_name)))
            << "Can't split " << old.name() << " of " << stage_name()
            << " with TailStrategy::RoundUp: it lies inside the inner loop of an earlier split, "
               "so rounding it up would apply the update to some points twice. Use GuardWithIf "
               "(the default there).";
    }
    if (tail == TailStrategy::Auto)
        tail = auto_tail(schedule().splits, old_name, index > 0, dims[i].is_rvar, factor);
    Split s;
    s.kind = Split::SplitVar;
    s.old_var = old_name;
    s.outer = outer_name;
    s.inner = inner_name;
    s.factor = factor.type() == Int(32) ? factor : cast(Int(32), factor);
    s.tail = tail;
    schedule().splits.push_back(s);
    Dim inner_dim = dims[i], outer_dim = dims[i];
    inner_dim.var = inner_name;
    outer_dim.var = outer_name;
    inner_dim.for_type = outer_dim.for_type = ForType::Serial;
    inner_dim.device_api = outer_dim.device_api = DeviceAPI::Host;
    dims[i] = inner_dim;
    dims.insert(dims.begin() + i + 1, outer_dim);
    return *this;
}

Stage &Stage::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
    std::vector<Dim> &dims = schedule().dims;
    size_t i = find_dim(inner.name(), "fuse");
    size_t o = find_dim(outer.name(), "fuse");
    if (fused.name() != inner.name() && fused.name() != outer.name()) {
        check_new_loop_name(fused.name(), inner.name(), "fuse");
    }
    user_assert(o == i + 1) << "In fuse of " << stage_name() << ": " << outer.name()
                            << " must be the loop directly outside " << inner.name()
                            << ". Reorder them first.";
    Split s;
    s.kind = Split::FuseVars;
    s.old_var = dims[i].var + "." + fused.name();
    s.outer = dims[o].var;
    s.inner = dims[i].var;
    schedule().splits.push_back(s);
    dims[i].var = s.old_var;
    dims.erase(dims.begin() + o);
    return *this;
}

Stage &Stage::reorder(const std::vector<VarOrRVar> &vars) {
    std::vector<Dim> &dims = schedule().dims;
    std::vector<size_t> positions;
    for (const VarOrRVar &v : vars) {
        size_t p = find_dim(v.name(), "reorder");
        for (size_t q : positions) {
            user_assert(q != p) << "In reorder of " << stage_name() << ": " << v.name()
                                << " is listed twice";
        }
        positions.push_back(p);
    }
    // The listed loops take the positions they occupied, in sorted order, innermost first.
    std::vector<size_t> sorted = positions;
    std::sort(sorted.begin(), sorted.end());
    std::vector<Dim> picked;
    for (size_t p : positions) picked.push_back(dims[p]);
    std::vector<Dim> reordered = dims;
    for (size_t k = 0; k < sorted.size(); k++) reordered[sorted[k]] = picked[k];
    // The RVars of an update run in the order the RDom gives them: a recurrence reads what
    // earlier iterations wrote, so swapping two RVar loops may change the result.
    std::vector<std::string> before, after;
    for (const Dim &d : dims) {
        if (d.is_rvar) before.push_back(d.var);
    }
    for (const Dim &d : reordered) {
        if (d.is_rvar) after.push_back(d.var);
    }
    // Halide's rule: they may move relative to each other when the update is an associative and
    // commutative reduction (for float + and *, up to rounding: docs/SCHEDULING.md).
    user_assert(before == after ||
                (index > 0 && is_order_independent_reduction(func, definition())))
        << "In reorder of " << stage_name() << ": the RVar loops would change order. RVars "
        << "iterate in the RDom's order (an update may read what earlier iterations wrote), so "
        << "they may move relative to pure Vars but not relative to each other, unless the update "
        << "is a reduction f(args) = f(args) op e with op one of + * min max & | ^ and e not "
           "reading "
        << func->name << ", or writes values that use no RVar and do not read " << func->name
        << ".";
    dims = reordered;
    return *this;
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo,
                   const VarOrRVar &yo, const VarOrRVar &xi, const VarOrRVar &yi,
                   const Expr &xfactor, const Expr &yfactor, TailStrategy tail) {
    split_for(x, xo, xi, xfactor, tail, "tile", true);
    split_for(y, yo, yi, yfactor, tail, "tile", true);
    return reorder(xi, yi, xo, yo);
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi,
                   const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                   TailStrategy tail) {
    split_for(x, x, xi, xfactor, tail, "tile", true);
    split_for(y, y, yi, yfactor, tail, "tile", true);
    return reorder(xi, yi, x, y);
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                   const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                   const std::vector<TailStrategy> &tails) {
    const size_t n = previous.size();
    user_assert(outers.size() == n && inners.size() == n && factors.size() == n &&
                tails.size() == n)
        << "tile of " << stage_name() << ": the lists of previous, outer and inner loops, "
        << "factors and tail strategies must have one entry per dimension (" << n << ").";
    for (size_t i = 0; i < n; i++)
        split_for(previous[i], outers[i], inners[i], factors[i], tails[i], "tile", true);
    std::vector<VarOrRVar> order = inners;
    order.insert(order.end(), outers.begin(), outers.end());
    return reorder(order);
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                   const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                   TailStrategy tail) {
    return tile(previous, outers, inners, factors,
                std::vector<TailStrategy>(previous.size(), tail));
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                   const std::vector<Expr> &factors, TailStrategy tail) {
    return tile(previous, previous, inners, factors, tail);
}

Stage &Stage::rename(const VarOrRVar &old, const VarOrRVar &new_name) {
    size_t i = find_dim(old.name(), "rename");
    check_new_loop_name(new_name.name(), old.name(), "rename");
    Split s;
    s.kind = Split::RenameVar;
    s.old_var = schedule().dims[i].var;
    s.outer = s.old_var + "." + new_name.name();
    schedule().splits.push_back(s);
    schedule().dims[i].var = s.outer;
    return *this;
}

void Stage::set_loop_type(const VarOrRVar &var, ForType t, const char *directive) {
    size_t i = find_dim(var.name(), directive);
    Dim &dim = schedule().dims[i];
    if (dim.is_rvar && t != ForType::Serial && t != ForType::Unrolled) {
        check_no_race(dim.var, directive);
    }
    dim.for_type = t;
    dim.device_api = DeviceAPI::Host;  // set_gpu_loop_type names the GPU's
}

// Whether the stage's values read its Func only at the left-hand side's coordinates.
bool Stage::reads_only_the_element_written() const {
    const Definition &d = definition();
    std::string lhs =
        to_string(Call::make(func->output_types[0], func->name, d.args, Call::Halide));
    for (const Expr &v : d.values) {
        std::string text = to_string(v);
        for (size_t pos = text.find(func->name + "("); pos != std::string::npos;
             pos = text.find(func->name + "(", pos + 1)) {
            if (pos > 0 && (std::isalnum((unsigned char)text[pos - 1]) || text[pos - 1] == '_' ||
                            text[pos - 1] == '.'))
                continue;
            if (text.compare(pos, lhs.size(), lhs) != 0) return false;
        }
    }
    return true;
}

// Iterations of an RVar loop may run at once only if each writes its own element and reads
// the Func only there: the RVar (the one this loop was split from) is a bare argument on the
// left, and every read of the Func itself is at exactly the left-hand side's coordinates. An
// atomic stage's iterations may collide: each update is atomic.
void Stage::check_no_race(const std::string &loop, const char *directive) const {
    if (schedule().allow_race_conditions || schedule().atomic) return;
    std::string root = loop;
    const std::vector<Split> &splits = schedule().splits;
    for (auto it = splits.rbegin(); it != splits.rend(); ++it) {
        if (it->kind == Split::SplitVar && (it->outer == root || it->inner == root)) root = it->old_var;
        if (it->kind == Split::RenameVar && it->outer == root) root = it->old_var;
    }
    const Definition &d = definition();
    bool bare = false;
    for (const Expr &a : d.args) {
        const Variable *v = a.as<Variable>();
        bare |= v && v->name == root;
    }
    user_assert(bare && reads_only_the_element_written())
        << "Can't " << directive << " RVar " << loop << " of " << stage_name()
        << ": different iterations may write or read the same element of " << func->name
        << ", so running them at once would race. Only an RVar that is a bare argument on the "
           "left, with the Func read only at the left-hand side's coordinates, may run its "
           "iterations at once. Use rfactor, or keep this loop serial (or, where you have "
           "proven that the iterations write distinct elements, call allow_race_conditions() "
           "on the stage before this directive).";
}

void Stage::unscheduled() {
    user_assert(!definition().schedule.touched)
        << "unscheduled() on " << stage_name() << ", which has a schedule: remove the call, or "
        << "the directives before it.";
    definition().schedule.touched = true;
}

Stage &Stage::atomic(bool override_associativity_test) {
    user_assert(index > 0)
        << "atomic() on " << stage_name()
        << ", the pure definition, which writes each element once: make an update definition "
           "atomic ("
        << func->name << ".update(k).atomic()).";
    user_assert(func->outputs() == 1)
        << "atomic() on " << stage_name() << ", whose Func has a Tuple of " << func->outputs()
        << " values: Loom updates one value atomically, not several together. Keep the loops "
           "over its RVars serial, or use rfactor.";
    user_assert(func->output_types[0].bits() >= 8)
        << "atomic() on " << stage_name() << ", whose Func has type " << func->output_types[0]
        << ": Loom updates whole bytes atomically. Give the Func a type of 8 bits or more "
           "(uint8 for a Bool).";
    const Definition &d = definition();
    user_assert(override_associativity_test || is_order_independent_reduction(func, d))
        << "atomic() on " << stage_name()
        << ": Loom can't prove that the update gives the same result in any order (it must be "
        << func->name << "(args) = " << func->name
        << "(args) op e with op one of + * min max & | ^ and e not reading " << func->name
        << "). Rewrite it so, or call atomic(true) if you know the order does not matter.";
    // Each store updates one element from that element alone.
    user_assert(reads_only_the_element_written())
        << "atomic() on " << stage_name() << ": it reads " << func->name
        << " at other coordinates than the ones it writes, so no single atomic operation "
           "updates an element. Keep its RVar loops serial.";
    schedule().atomic = true;
    schedule().touched = true;
    return *this;
}

Stage &Stage::allow_race_conditions() {
    schedule().allow_race_conditions = true;
    return *this;
}

Stage &Stage::serial(const VarOrRVar &var) {
    set_loop_type(var, ForType::Serial, "serial");
    return *this;
}

Stage &Stage::parallel(const VarOrRVar &var) {
    set_loop_type(var, ForType::Parallel, "parallel");
    return *this;
}

Stage &Stage::parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail) {
    split_for(var, var, unnamed_loop(var), task_size, tail, "parallel", false);
    return parallel(var);
}

Stage &Stage::vectorize(const VarOrRVar &var) {
    set_loop_type(var, ForType::Vectorized, "vectorize");
    return *this;
}

Stage &Stage::vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    const std::string old_loop = schedule().dims[find_dim(var.name(), "vectorize")].var;
    const VarOrRVar inner = unnamed_loop(var);
    split_for(var, var, inner, factor, tail, "vectorize", false);
    return vectorize(VarOrRVar(old_loop + "." + inner.name(), var.is_rvar));
}

void Stage::set_gpu_loop_type(const std::vector<VarOrRVar> &vars, ForType t, DeviceAPI device_api,
                              const char *directive) {
    user_assert(device_api != DeviceAPI::Host)
        << "In " << directive << " of " << stage_name()
        << ": DeviceAPI::Host names no GPU. Pass DeviceAPI::CUDA or leave the API out.";
    user_assert(device_api == DeviceAPI::CUDA || device_api == DeviceAPI::Default_GPU)
        << "In " << directive << " of " << stage_name() << ": Loom's only GPU API is CUDA "
        << "(it has no backend for OpenCL, Metal, OpenGLCompute, D3D12Compute or Hexagon). "
           "Pass DeviceAPI::CUDA or leave the API out.";
    const DeviceAPI api = device_api == DeviceAPI::Default_GPU ? DeviceAPI::CUDA : device_api;
    for (const VarOrRVar &v : vars) {
        set_loop_type(v, t, directive);
        schedule().dims[find_dim(v.name(), directive)].device_api = api;
    }
}

Stage &Stage::gpu_blocks(const VarOrRVar &x, DeviceAPI api) {
    set_gpu_loop_type({x}, ForType::GPUBlock, api, "gpu_blocks");
    return *this;
}

Stage &Stage::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api) {
    set_gpu_loop_type({x, y}, ForType::GPUBlock, api, "gpu_blocks");
    return *this;
}

Stage &Stage::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api) {
    set_gpu_loop_type({x, y, z}, ForType::GPUBlock, api, "gpu_blocks");
    return *this;
}

Stage &Stage::gpu_threads(const VarOrRVar &x, DeviceAPI api) {
    set_gpu_loop_type({x}, ForType::GPUThread, api, "gpu_threads");
    return *this;
}

Stage &Stage::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api) {
    set_gpu_loop_type({x, y}, ForType::GPUThread, api, "gpu_threads");
    return *this;
}

Stage &Stage::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api) {
    set_gpu_loop_type({x, y, z}, ForType::GPUThread, api, "gpu_threads");
    return *this;
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                       const Expr &x_size, TailStrategy tail, DeviceAPI api) {
    split_for(x, bx, tx, x_size, tail, "gpu_tile", true);
    set_gpu_loop_type({tx}, ForType::GPUThread, api, "gpu_tile");
    set_gpu_loop_type({bx}, ForType::GPUBlock, api, "gpu_tile");
    return *this;
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                       const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                       const Expr &x_size, const Expr &y_size, TailStrategy tail, DeviceAPI api) {
    tile(x, y, bx, by, tx, ty, x_size, y_size, tail);
    set_gpu_loop_type({tx, ty}, ForType::GPUThread, api, "gpu_tile");
    set_gpu_loop_type({bx, by}, ForType::GPUBlock, api, "gpu_tile");
    return *this;
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                       const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                       TailStrategy tail, DeviceAPI api) {
    tile(x, y, tx, ty, x_size, y_size, tail);
    set_gpu_loop_type({tx, ty}, ForType::GPUThread, api, "gpu_tile");
    set_gpu_loop_type({x, y}, ForType::GPUBlock, api, "gpu_tile");
    return *this;
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                       TailStrategy tail, DeviceAPI api) {
    return gpu_tile(x, x, tx, x_size, tail, api);
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                       const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                       const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                       const Expr &x_size, const Expr &y_size, const Expr &z_size,
                       TailStrategy tail, DeviceAPI api) {
    tile({x, y, z}, {bx, by, bz}, {tx, ty, tz}, {x_size, y_size, z_size}, tail);
    return gpu(bx, by, bz, tx, ty, tz, api);
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                       const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                       const Expr &x_size, const Expr &y_size, const Expr &z_size,
                       TailStrategy tail, DeviceAPI api) {
    return gpu_tile(x, y, z, x, y, z, tx, ty, tz, x_size, y_size, z_size, tail, api);
}

Stage &Stage::gpu(const VarOrRVar &bx, const VarOrRVar &tx, DeviceAPI api) {
    set_gpu_loop_type({tx}, ForType::GPUThread, api, "gpu");
    set_gpu_loop_type({bx}, ForType::GPUBlock, api, "gpu");
    return *this;
}

Stage &Stage::gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &tx,
                  const VarOrRVar &ty, DeviceAPI api) {
    set_gpu_loop_type({tx, ty}, ForType::GPUThread, api, "gpu");
    set_gpu_loop_type({bx, by}, ForType::GPUBlock, api, "gpu");
    return *this;
}

Stage &Stage::gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                  const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz, DeviceAPI api) {
    set_gpu_loop_type({tx, ty, tz}, ForType::GPUThread, api, "gpu");
    set_gpu_loop_type({bx, by, bz}, ForType::GPUBlock, api, "gpu");
    return *this;
}

Stage &Stage::prefetch(const ImageParam &image, const VarOrRVar &at, const VarOrRVar &from,
                       const Expr &offset, PrefetchBoundStrategy strategy) {
    user_assert(image.defined()) << "In prefetch of " << stage_name()
                                 << ": the ImageParam is undefined. Pass one the pipeline reads.";
    Internal::PrefetchDirective p;
    p.image = image.parameter();
    return add_prefetch(std::move(p), at, from, offset, strategy);
}

Stage &Stage::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from,
                       const Expr &offset, PrefetchBoundStrategy strategy) {
    user_assert(f.defined()) << "In prefetch of " << stage_name()
                             << ": the Func is undefined. Pass one this stage reads.";
    // The schedule holds the Func it prefetches: its own would make a cycle of references.
    user_assert(f.function() != func)
        << "In prefetch of " << stage_name() << ": " << func->name
        << " can't prefetch its own buffer. Prefetch the Funcs or images it reads.";
    Internal::PrefetchDirective p;
    p.func = f.function();
    return add_prefetch(std::move(p), at, from, offset, strategy);
}

Stage &Stage::add_prefetch(Internal::PrefetchDirective p, const VarOrRVar &at,
                           const VarOrRVar &from, const Expr &offset,
                           PrefetchBoundStrategy strategy) {
    const std::string &what = Internal::prefetched_name(p);
    user_assert(offset.defined() && offset.type().is_int() && offset.type().bits() <= 32)
        << "In prefetch of " << what << " in " << stage_name()
        << ": the offset must be a 32-bit integer expression (iterations of " << from.name()
        << " ahead).";
    // Both loops must exist now; ScheduleFunctions matches the names again after later splits.
    const size_t at_dim = find_dim(at.name(), "prefetch");
    const size_t from_dim = find_dim(from.name(), "prefetch");
    user_assert(from_dim >= at_dim)
        << "In prefetch of " << what << " in " << stage_name() << ": loop " << from.name()
        << " is inside loop " << at.name()
        << "; the loop whose later iteration is prefetched ('from') must be 'at' or a loop "
           "outside it. Swap the two, or pick an outer loop.";
    p.at = at.name();
    p.from = from.name();
    p.offset = offset;
    p.strategy = strategy;
    schedule().prefetches.push_back(std::move(p));
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &var) {
    set_loop_type(var, ForType::Unrolled, "unroll");
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    const std::string old_loop = schedule().dims[find_dim(var.name(), "unroll")].var;
    const VarOrRVar inner = unnamed_loop(var);
    split_for(var, var, inner, factor, tail, "unroll", false);
    return unroll(VarOrRVar(old_loop + "." + inner.name(), var.is_rvar));
}

namespace {

// The first variable of a specialization's condition that is not fixed for a whole run: not a
// Param or an input's shape, nor the shape of the Func's own output buffer (f.stride.0, ...,
// when the Func is a pipeline's output: Halide's output_buffer().stride()).
class UsesLoopVars : public IRVisitor {
public:
    explicit UsesLoopVars(const Internal::FunctionContents &f) : f(f) {}
    std::string found;

private:
    const Internal::FunctionContents &f;
    bool own_output_shape(const std::string &name) const {
        for (int i = 0; i < f.outputs(); i++) {
            for (const char *field : {".min.", ".extent.", ".stride."}) {
                const std::string prefix = f.buffer_name(i) + field;
                if (name.compare(0, prefix.size(), prefix) == 0) return true;
            }
        }
        return false;
    }
    void visit(const Variable *op) override {
        if (!op->param && found.empty() && !own_output_shape(op->name)) found = op->name;
    }
};

}  // namespace

Stage Stage::specialize(const Expr &condition) {
    user_assert(condition.defined() && condition.type().is_bool() && condition.type().is_scalar())
        << "specialize() of " << stage_name() << " needs a scalar bool condition, not " << condition;
    UsesLoopVars uses(*func);
    condition.accept(&uses);
    user_assert(uses.found.empty())
        << "The condition of specialize() of " << stage_name() << " uses " << uses.found
        << "; it may use only Params and the shapes of inputs and of its own output buffer, "
           "which are fixed for a whole run.";
    user_assert(schedule().fuse_level.level.is_inlined())
        << "specialize() of " << stage_name() << ", which is computed with "
        << schedule().fuse_level.level.to_string()
        << ": a stage computed with another must not be specialized (Halide 14's rule). "
           "Specialize the stage it is computed with instead.";
    Definition &d = definition();
    for (const Specialization &s : d.specializations) {
        user_assert(!s.failure) << "specialize() of " << stage_name()
                                << " after specialize_fail(): the failure must come last";
        if (to_string(s.condition) == to_string(condition)) return Stage(func, index, s.definition.get());
    }
    Specialization s;
    s.condition = condition;
    s.definition = std::make_shared<Definition>(d);
    s.definition->specializations.clear();
    d.specializations.push_back(s);
    return Stage(func, index, d.specializations.back().definition.get());
}

void Stage::specialize_fail(const std::string &message) {
    Definition &d = definition();
    user_assert(!d.specializations.empty())
        << "specialize_fail() of " << stage_name() << " needs a specialize() before it";
    user_assert(!d.specializations.back().failure)
        << "specialize_fail() of " << stage_name() << " was already called";
    Specialization s;
    s.condition = Internal::const_true();
    s.failure = true;
    s.failure_message = message;
    d.specializations.push_back(s);
}

Stage &Stage::compute_with(const Stage &s, const VarOrRVar &var,
                           const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    return set_fuse_level(s.at(var), align, LoopAlignStrategy::Auto);
}

Stage &Stage::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align) {
    return set_fuse_level(s.at(var), {}, align);
}

Stage &Stage::compute_with(const LoopLevel &level,
                           const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    return set_fuse_level(level, align, LoopAlignStrategy::Auto);
}

Stage &Stage::compute_with(const LoopLevel &level, LoopAlignStrategy align) {
    return set_fuse_level(level, {}, align);
}

Stage &Stage::set_fuse_level(const LoopLevel &level,
                             const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align,
                             LoopAlignStrategy default_align) {
    user_assert(!level.is_root() && !level.is_inlined())
        << "compute_with of " << stage_name() << " at " << level.to_string()
        << ": name a loop of the stage to compute it with (g.compute_with(f, y), or "
           "compute_with(f.at(y))), not root or inline.";
    user_assert(level.func() != func->name)
        << "compute_with of " << stage_name() << " names a loop of " << func->name
        << " itself; the stages of one Func already run one after another. Compute it with a "
           "stage of another Func.";
    user_assert(!specialized)
        << "compute_with of a specialization of " << stage_name()
        << ": a stage computed with another must not be specialized. Call compute_with on the "
           "stage itself, and specialize the stage it is computed with instead.";
    user_assert(definition().specializations.empty())
        << "compute_with of " << stage_name()
        << ", which has specializations: a stage computed with another must not be "
           "specialized (Halide 14's rule). Specialize the stage it is computed with instead.";
    FuseLevel &fuse = schedule().fuse_level;
    fuse.level = level;
    fuse.align.clear();
    for (const auto &[var, strategy] : align)
        fuse.align.push_back({var.name(), strategy});
    fuse.default_align = default_align;
    return *this;
}

LoopLevel Stage::at(const VarOrRVar &var) const {
    // Var::outermost(): inside the stage's production, outside all its loops.
    // Resolved when the pipeline is lowered, so that the consumer's loops may still be split
    // and renamed after this call (as in Halide).
    return LoopLevel(func->name, var.name(), index);
}

std::string Stage::dump_loops() const {
    std::string s;
    const std::vector<Dim> &dims = definition().schedule.dims;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        s += std::string(for_type_name(it->for_type)) + " " + it->var + "\n";
    }
    return s;
}

std::string Stage::dump_argument_list() const {
    std::string s = "Vars:";
    for (const Dim &d : definition().schedule.dims)
        s += " " + d.var;
    return s + " __outermost\n";
}

}  // namespace loom
