// Operations on the schedule generator's loop model (FuzzScheduleModel.h): lookups, the tail a
// split uses and what it may compute past the region, and the model's splits and reorders.
#include "FuzzLoopModel.h"

#include <algorithm>

namespace loom_fuzz {

bool unique_name(const StageM &st, const std::string &name) {
    if (name == kUnnamedLoop) return false;
    int n = 0;
    for (const LoopM &l : st.loops)
        n += l.name == name;
    return n == 1;
}

int find_loop(const StageM &st, const std::string &name) {
    for (size_t i = 0; i < st.loops.size(); i++) {
        if (st.loops[i].name == name) return (int)i;
    }
    return -1;
}

bool rvar_order_ok(const StageM &st) {
    const std::vector<int> *prev = nullptr;
    for (auto it = st.loops.rbegin(); it != st.loops.rend(); ++it) {
        if (!it->rvar) continue;
        if (prev && !(*prev < it->key)) return false;
        prev = &it->key;
    }
    return true;
}

/** The tail a split of l with tail t uses (Loom's Auto, as Halide's). */
Tail effective_tail(const StageM &st, const LoopM &l, int factor, Tail t) {
    if (t != Tail::Auto) return t;
    if (st.update) return l.rvar || l.inside_inner ? Tail::GuardWithIf : Tail::RoundUp;
    // Halide's rule: rounds up only inside shifted blocks of at least this factor.
    return l.in_shifted_blocks && l.shifted_factor >= factor ? Tail::RoundUp : Tail::ShiftInwards;
}

/** Points of l's dimension a split of l by factor with tail t may compute beyond the region:
 * a block less one, unless a ShiftInwards split outside already clamps every block. */
long rounding(const StageM &st, const LoopM &l, int factor, Tail t) {
    Tail e = effective_tail(st, l, factor, t);
    if (l.dim < 0 || e == Tail::GuardWithIf) return 0;
    if (e == Tail::RoundUp && l.in_shifted_blocks && !st.update) return 0;
    return (factor - 1) * l.unit;
}

/** Splits loop i of the model (Loom's order: inner at i, outer just outside) with tail t. */
void split_model(StageM &st, int i, const std::string &outer, const std::string &inner, int factor,
                 Tail t) {
    LoopM l = st.loops[i], in = l, out = l;
    const Tail effective = effective_tail(st, l, factor, t);
    if (l.dim >= 0) (*st.rounded)[l.dim] += rounding(st, l, factor, t);
    if (l.dim >= 0 && rounding(st, l, factor, t) > 0)
        (*st.blocks)[l.dim].push_back(l.unit * factor);
    out.unit = l.unit * factor;
    out.in_shifted_blocks = l.in_shifted_blocks || effective == Tail::ShiftInwards;
    in.inside_inner = true;
    out.inside_inner = l.inside_inner;
    if (effective == Tail::ShiftInwards) {
        out.shifted_factor = factor;
    } else if (l.in_shifted_blocks) {
        in.shifted_factor = out.shifted_factor = l.shifted_factor;
    }
    in.name = inner;
    in.extent = factor;
    in.is_const = true;
    in.type = LT::Serial;
    in.derived = out.derived = true;
    out.name = outer;
    out.extent = l.extent >= 0 ? (l.extent + factor - 1) / factor : -1;
    out.type = LT::Serial;
    if (l.rvar) {
        in.key.push_back(1);
        out.key.push_back(0);
    }
    st.loops[i] = in;
    st.loops.insert(st.loops.begin() + i + 1, out);
}

bool has_vectorized(const StageM &st) {
    for (const LoopM &l : st.loops) {
        if (l.type == LT::Vectorized) return true;
    }
    return false;
}

void reorder_model(StageM &st, const std::vector<std::string> &names) {
    std::vector<int> pos;
    for (const std::string &n : names)
        pos.push_back(find_loop(st, n));
    std::vector<int> sorted = pos;
    std::sort(sorted.begin(), sorted.end());
    std::vector<LoopM> picked;
    for (int q : pos)
        picked.push_back(st.loops[q]);
    for (size_t k = 0; k < sorted.size(); k++)
        st.loops[sorted[k]] = picked[k];
}

} // namespace loom_fuzz
