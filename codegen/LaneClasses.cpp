#include "codegen/LaneClasses.h"

#include <map>

#include "codegen/LaneIndexShape.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace {

struct Analysis {
    LaneClasses classes;
    bool divided = false; // a division made the classes
};

// a + sign * b, with at most one of them divided into several classes.
std::optional<Analysis> combine_classes(const Analysis &a, const Analysis &b, int64_t sign) {
    if (a.classes.bases.size() > 1 && b.classes.bases.size() > 1) return std::nullopt;
    const bool a_rows = a.classes.bases.size() > 1;
    const LaneClasses &many = a_rows ? a.classes : b.classes, &one = a_rows ? b.classes : a.classes;
    Analysis r;
    r.divided = a.divided || b.divided;
    for (const Expr &base : many.bases) {
        r.classes.bases.push_back(a_rows ? lane_base_sum(base, one.bases[0], sign)
                                         : lane_base_sum(one.bases[0], base, sign));
    }
    r.classes.lane_class = many.lane_class;
    for (size_t i = 0; i < many.offsets.size(); i++) {
        const int64_t oa = a.classes.offsets[i], ob = b.classes.offsets[i];
        r.classes.offsets.push_back(oa + sign * ob);
    }
    return r;
}

// The walk's operations (codegen/LaneIndexShape.h) for classes.
struct ClassOps {
    Analysis leaf(const Expr &base, std::vector<int64_t> offsets) const {
        Analysis r;
        r.classes.bases = {base};
        r.classes.lane_class.assign(offsets.size(), 0);
        r.classes.offsets = std::move(offsets);
        return r;
    }
    std::optional<Analysis> combine(const Analysis &a, const Analysis &b, int64_t sign) const {
        return combine_classes(a, b, sign);
    }
    Analysis scale(Analysis a, int64_t c) const {
        for (Expr &base : a.classes.bases)
            base = Mul::make(base, make_const(base.type(), c));
        for (int64_t &o : a.classes.offsets)
            o *= c;
        return a;
    }
    // floor((b + o) / k) with o = k t + s is floor((b + s) / k) + t: a class per residue s.
    std::optional<Analysis> divide(const Analysis &a, int64_t k, bool is_modulo) const {
        if (is_modulo || a.classes.bases.size() > 1) return std::nullopt;
        const Expr &b = a.classes.bases[0];
        Expr kc = make_const(b.type(), k);
        Analysis r;
        r.divided = true;
        std::map<int64_t, int> class_of_residue;
        for (int64_t o : a.classes.offsets) {
            const int64_t s = floor_mod(o, k);
            auto [it, fresh] = class_of_residue.emplace(s, (int)r.classes.bases.size());
            if (fresh)
                r.classes.bases.push_back(
                    Div::make(lane_base_sum(b, make_const(b.type(), s), 1), kc));
            r.classes.lane_class.push_back(it->second);
            r.classes.offsets.push_back((o - s) / k);
        }
        return r;
    }
};

} // namespace

std::optional<LaneClasses> lane_classes(const Expr &index) {
    std::optional<Analysis> a = walk_lane_index<Analysis>(index, ClassOps());
    if (!a || !a->divided) return std::nullopt;
    return a->classes;
}

} // namespace Internal
} // namespace loom
