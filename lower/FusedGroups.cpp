#include "lower/FusedGroups.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "dsl/Error.h"
#include "dsl/Var.h"

namespace loom {
namespace Internal {

std::string stage_loop_name(const StageRef &s, const Definition &def, int position) {
    const std::vector<Dim> &dims = def.schedule.dims;
    return s.first + ".s" + std::to_string(s.second) + "." + dims[dims.size() - 1 - position].var;
}

StageRef fuse_parent(const Definition &def) {
    const LoopLevel &level = def.schedule.fuse_level.level;
    if (level.is_inlined() || level.is_root()) return {"", -1};
    return {level.func(), std::max(level.stage_index(), 0)};
}

namespace {

std::string stage_name(const StageRef &s) {
    return s.second == 0 ? s.first : s.first + ".update(" + std::to_string(s.second - 1) + ")";
}

// The last component of a loop's name: the name the user gave it ("x.xo" -> "xo").
std::string short_name(const std::string &loop) {
    size_t dot = loop.rfind('.');
    return dot == std::string::npos ? loop : loop.substr(dot + 1);
}

// Where the level of a Func's computation is, outputs counting as the root.
LoopLevel effective_compute_level(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs) {
    for (const FunctionPtr &o : outputs) {
        if (o == f) return LoopLevel::root();
    }
    return f->schedule.compute_level;
}

std::string loop_kind(ForType t) {
    return t == ForType::Serial ? "serial" : for_type_name(t);
}

// How many loops, outermost first, the child stage shares with its parent, checked against
// every version of the parent stage (each specialization has loops of its own).
int check_shared_loops(const StageRef &child, const Definition &child_def, const StageRef &parent,
                       const Definition &parent_def) {
    const std::string &var = child_def.schedule.fuse_level.level.var();
    const std::string what = "compute_with of " + stage_name(child) + " at " + stage_name(parent) +
                             "'s loop " + var;
    auto position = [&](const std::vector<Dim> &dims, const std::string &of) -> size_t {
        if (var == Var::outermost().name()) return dims.size();
        for (size_t i = 0; i < dims.size(); i++) {
            if (loop_name_matches(dims[i].var, var)) return i;
        }
        user_error << what << ": " << var << " is not a loop of " << of
                   << ". Its loops, outermost first, are: " << loops_outermost_first(dims)
                   << ". Name a loop both stages have.";
        return 0;
    };
    const std::vector<Dim> &cd = child_def.schedule.dims;
    const size_t in_child = position(cd, stage_name(child));
    const int shared = (int)(cd.size() - in_child);
    auto check_version = [&](const Definition &pd, const std::string &version) {
        const std::vector<Dim> &dims = pd.schedule.dims;
        const size_t in_parent = position(dims, stage_name(parent) + version);
        user_assert((int)(dims.size() - in_parent) == shared)
            << what << ": the two stages share the loops from " << var
            << " outward, which must be as many in each, outermost first, but "
            << stage_name(parent) << version << " has " << loops_outermost_first(dims) << " and "
            << stage_name(child) << " has " << loops_outermost_first(cd)
            << ". Reorder or split them so that the loops from " << var << " outward match.";
        for (int p = 0; p < shared; p++) {
            const Dim &a = dims[dims.size() - 1 - p], &b = cd[cd.size() - 1 - p];
            user_assert(short_name(a.var) == short_name(b.var))
                << what << ": shared loop " << p + 1 << " (outermost first) is " << a.var
                << " in " << stage_name(parent) << version << " but " << b.var << " in "
                << stage_name(child) << ". The shared loops must have the same names; rename or "
                << "reorder them.";
            // (A specialization of the parent may run the shared loops its own way: the child's
            // are lets of whichever version runs.)
            user_assert(!version.empty() ||
                        (a.for_type == b.for_type && a.device_api == b.device_api))
                << what << ": shared loop " << a.var << " is " << loop_kind(a.for_type) << " in "
                << stage_name(parent) << " but " << loop_kind(b.for_type) << " in "
                << stage_name(child)
                << ". Shared loops run once for both stages: give them the same loop type.";
            user_assert(a.is_rvar == b.is_rvar)
                << what << ": shared loop " << a.var << " is a reduction loop in one stage and a "
                << "pure loop in the other. Share only loops of the same kind.";
            user_assert(a.for_type != ForType::Vectorized && b.for_type != ForType::Vectorized)
                << what << ": shared loop " << a.var
                << " is vectorized. Share the loops outside the vectorized one (compute_with at "
                   "an outer loop), and vectorize each stage's own inner loop.";
        }
    };
    for (const auto &[name, strategy] : child_def.schedule.fuse_level.align) {
        bool found = false;
        for (int p = 0; p < shared; p++)
            found = found || loop_name_matches(cd[cd.size() - 1 - p].var, name);
        user_assert(found) << what << ": its alignment names loop " << name
                           << ", which is not one of the loops the stages share ("
                           << loops_outermost_first(std::vector<Dim>(cd.begin() + in_child, cd.end()))
                           << "). Align only shared loops.";
    }
    check_version(parent_def, "");
    for (size_t i = 0; i < parent_def.specializations.size(); i++) {
        const Specialization &s = parent_def.specializations[i];
        if (s.definition) check_version(*s.definition, " (specialization " + std::to_string(i) + ")");
    }
    return shared;
}

// Whether `from` reads `to`, directly or through other Funcs.
class Reachability {
public:
    explicit Reachability(const Environment &env) : env(env) {}
    bool reads(const std::string &from, const std::string &to) {
        const std::set<std::string> &r = reached(from);
        return r.count(to) > 0;
    }

private:
    const Environment &env;
    std::map<std::string, std::set<std::string>> memo;
    const std::set<std::string> &reached(const std::string &f) {
        auto it = memo.find(f);
        if (it != memo.end()) return it->second;
        std::set<std::string> r;
        for (const FunctionPtr &c : direct_callees(env.functions.at(f))) {
            r.insert(c->name);
            const std::set<std::string> &more = reached(c->name);
            r.insert(more.begin(), more.end());
        }
        return memo[f] = std::move(r);
    }
};

// Halide 14's rule for the stages of one Func: each stage computed with a stage of another
// Func must follow the stages of that Func its earlier stages are computed with (f.update(0)
// can't be computed with g's pure stage once f's pure stage is computed with g.update(0)).
void check_stage_order(const FunctionPtr &f) {
    std::map<std::string, std::pair<int, int>> last; // parent Func -> (f's stage, its stage)
    bool previous_fused = false;
    for (int k = 0; k < f->stages(); k++) {
        const StageRef parent = fuse_parent(f->stage(k));
        if (parent.second < 0) {
            previous_fused = false;
            continue;
        }
        auto it = last.find(parent.first);
        if (it != last.end()) {
            const auto [mine, theirs] = it->second;
            user_assert(parent.second > theirs || (parent.second == theirs && previous_fused))
                << "compute_with: " << stage_name({f->name, mine}) << " is computed with "
                << stage_name({parent.first, theirs}) << ", and the later "
                << stage_name({f->name, k}) << " with the earlier "
                << stage_name(parent) << ": no order runs each Func's stages in turn. Compute "
                << "later stages with later stages.";
        }
        last[parent.first] = {k, parent.second};
        previous_fused = true;
    }
}

// The order of a group's stages (Halide 14's): each Func's stages in order; a stage after the
// stage it is computed with; the stage computed with, after the stages before the one computed
// with it (unless they too are computed with it).
std::vector<StageRef> order_stages(const std::vector<std::string> &funcs, const Environment &env) {
    std::map<StageRef, int> waiting;                    // unmet dependencies
    std::map<StageRef, std::vector<StageRef>> unblocks; // stage -> stages waiting on it
    for (const std::string &name : funcs) {
        const FunctionPtr &f = env.functions.at(name);
        StageRef previous_parent{"", -1};
        for (int k = 0; k < f->stages(); k++) {
            const StageRef me{name, k}, parent = fuse_parent(f->stage(k));
            waiting[me];
            if (parent.second < 0) {
                previous_parent = parent;
                continue;
            }
            waiting[me]++;
            unblocks[parent].push_back(me);
            if (parent != previous_parent) {
                for (int j = 0; j < k; j++) {
                    waiting[parent]++;
                    unblocks[{name, j}].push_back(parent);
                }
            }
            previous_parent = parent;
        }
    }
    std::vector<StageRef> order;
    std::map<std::string, int> next;
    size_t total = waiting.size();
    while (order.size() < total) {
        bool progress = false;
        for (const std::string &name : funcs) {
            const int stages = env.functions.at(name)->stages();
            while (next[name] < stages && waiting[{name, next[name]}] == 0) {
                const StageRef s{name, next[name]++};
                for (const StageRef &u : unblocks[s])
                    waiting[u]--;
                order.push_back(s);
                progress = true;
            }
        }
        if (!progress) {
            std::ostringstream stuck;
            for (const std::string &name : funcs) {
                if (next[name] < env.functions.at(name)->stages())
                    stuck << " " << stage_name({name, next[name]});
            }
            user_error << "compute_with: the stages of " << funcs[0]
                       << "'s group can't be put in an order where each Func's stages run in "
                          "turn and each stage after the one it is computed with (stuck at"
                       << stuck.str() << "). Remove the compute_with that crosses another.";
        }
    }
    return order;
}

}  // namespace

std::vector<FusedGroup> find_fused_groups(Environment &env, const std::vector<FunctionPtr> &outputs) {
    // Undirected links between Funcs that share loops, and the checks of each pair.
    std::map<std::string, std::set<std::string>> links;
    std::map<StageRef, int> shared;
    bool any = false;
    for (const std::string &name : env.order) {
        const FunctionPtr &f = env.functions.at(name);
        for (int k = 0; k < f->stages(); k++) {
            const Definition &def = f->stage(k);
            const StageRef parent = fuse_parent(def);
            if (parent.second < 0) continue;
            any = true;
            const StageRef me{name, k};
            auto it = env.functions.find(parent.first);
            user_assert(it != env.functions.end())
                << "compute_with of " << stage_name(me) << ": " << parent.first
                << " is not a Func this pipeline computes. Compute it with a stage of a Func the "
                   "outputs read.";
            const FunctionPtr &p = it->second;
            user_assert(parent.second < p->stages())
                << "compute_with of " << stage_name(me) << ": " << parent.first << " has no stage "
                << parent.second << " (it has " << p->updates.size() << " updates).";
            shared[me] = check_shared_loops(me, def, parent, p->stage(parent.second));
            const LoopLevel mine = effective_compute_level(f, outputs),
                            theirs = effective_compute_level(p, outputs);
            // (A Func with updates and no compute level is computed at its use by default,
            // which need not be the other's.)
            user_assert(!mine.is_inlined() && !theirs.is_inlined())
                << "compute_with of " << stage_name(me) << " with " << stage_name(parent) << ": "
                << (mine.is_inlined() ? name : parent.first)
                << " is inlined (it has no compute_root or compute_at), so it has no loops of "
                   "its own to share. Compute both at the same level (compute_root(), or "
                   "compute_at the same loop).";
            user_assert(mine == theirs)
                << "compute_with of " << stage_name(me) << " with " << stage_name(parent) << ": "
                << name << " is computed at " << mine.to_string() << " but " << parent.first
                << " at " << theirs.to_string()
                << ". Stages that share loops are computed at the same level: give both the same "
                   "compute_root() or compute_at.";
            links[name].insert(parent.first);
            links[parent.first].insert(name);
        }
        check_stage_order(f);
    }
    if (!any) return {};

    // The groups: the connected Funcs.
    std::map<std::string, int> group_of;
    std::vector<std::vector<std::string>> members;
    for (const std::string &name : env.order) {
        if (!links.count(name) || group_of.count(name)) continue;
        const int g = (int)members.size();
        members.emplace_back();
        std::vector<std::string> pending{name};
        group_of[name] = g;
        while (!pending.empty()) {
            std::string n = pending.back();
            pending.pop_back();
            members[g].push_back(n);
            for (const std::string &m : links[n]) {
                if (group_of.emplace(m, g).second) pending.push_back(m);
            }
        }
    }

    // No member may read another: their stages run interleaved.
    Reachability reach(env);
    for (const std::vector<std::string> &group : members) {
        for (const std::string &a : group) {
            for (const std::string &b : group) {
                user_assert(a == b || !reach.reads(a, b))
                    << "compute_with: " << a << " reads " << b
                    << " (directly or through other Funcs), but the two share loops (their "
                       "compute_with joins them into one group), where neither may read the "
                       "other: their points are computed interleaved. Compute "
                    << b << " before " << a << " instead (compute_root, or compute_at a loop of "
                    << a << ").";
            }
        }
    }

    std::vector<FusedGroup> groups;
    for (const std::vector<std::string> &group : members) {
        FusedGroup g;
        // Keep the pipeline's order among Funcs whose stages do not depend on each other.
        std::vector<std::string> funcs;
        for (const std::string &n : env.order) {
            if (std::find(group.begin(), group.end(), n) != group.end()) funcs.push_back(n);
        }
        g.stage_order = order_stages(funcs, env);
        for (const StageRef &s : g.stage_order) {
            if (std::find(g.funcs.begin(), g.funcs.end(), s.first) == g.funcs.end())
                g.funcs.push_back(s.first);
            const StageRef parent = fuse_parent(env.functions.at(s.first)->stage(s.second));
            if (parent.second < 0) continue;
            g.children[parent].push_back(s);
            g.shared_loops[s] = shared.at(s);
        }
        env.fused_members[g.funcs[0]].assign(g.funcs.begin() + 1, g.funcs.end());
        groups.push_back(std::move(g));
    }

    // env.order with each group's Funcs adjacent: a Func (or group) after all it reads.
    std::vector<std::string> order;
    std::set<std::string> placed, in_progress;
    std::function<void(const std::string &)> place = [&](const std::string &name) {
        if (placed.count(name)) return;
        auto g = group_of.find(name);
        const std::vector<std::string> unit =
            g == group_of.end() ? std::vector<std::string>{name} : groups[g->second].funcs;
        internal_assert(!in_progress.count(unit[0])) << "cycle through fused group of " << name;
        in_progress.insert(unit[0]);
        for (const std::string &m : unit) {
            for (const FunctionPtr &c : direct_callees(env.functions.at(m))) {
                if (std::find(unit.begin(), unit.end(), c->name) == unit.end()) place(c->name);
            }
        }
        in_progress.erase(unit[0]);
        for (const std::string &m : unit) {
            placed.insert(m);
            order.push_back(m);
        }
    };
    for (const std::string &name : env.order)
        place(name);
    env.order = order;
    return groups;
}

}  // namespace Internal
}  // namespace loom
