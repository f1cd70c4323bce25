#include "codegen/LaneOffsets.h"

#include "codegen/LaneIndexShape.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace {

using Offsets = LaneOffsets;

// a + sign * b, with at most one of them depending on a residue.
std::optional<Offsets> combine_rows(const Offsets &a, const Offsets &b, int64_t sign) {
    if (a.modulus > 1 && b.modulus > 1) return std::nullopt;
    const Offsets &rows = a.modulus > 1 ? a : b;
    Offsets r;
    r.base = lane_base_sum(a.base, b.base, sign);
    r.residue = rows.residue;
    r.modulus = rows.modulus;
    for (int m = 0; m < rows.modulus; m++) {
        const std::vector<int64_t> &oa = a.offsets[a.modulus > 1 ? m : 0];
        const std::vector<int64_t> &ob = b.offsets[b.modulus > 1 ? m : 0];
        std::vector<int64_t> row(oa.size());
        for (size_t i = 0; i < oa.size(); i++) row[i] = oa[i] + sign * ob[i];
        r.offsets.push_back(std::move(row));
    }
    return r;
}

// The walk's operations (codegen/LaneIndexShape.h) for a base and residue rows.
struct OffsetOps {
    Offsets leaf(const Expr &base, std::vector<int64_t> offsets) const {
        Offsets r;
        r.base = base;
        r.offsets.push_back(std::move(offsets));
        return r;
    }
    std::optional<Offsets> combine(const Offsets &a, const Offsets &b, int64_t sign) const {
        return combine_rows(a, b, sign);
    }
    Offsets scale(Offsets a, int64_t c) const {
        a.base = Mul::make(a.base, make_const(a.base.type(), c));
        for (auto &row : a.offsets) {
            for (int64_t &o : row)
                o *= c;
        }
        return a;
    }
    // base = q*k + r: lane i is q + floor((r + o_i) / k), or (r + o_i) mod k.
    std::optional<Offsets> divide(const Offsets &a, int64_t k, bool is_modulo) const {
        if (a.modulus > 1) return std::nullopt;
        Offsets r;
        Expr kc = make_const(a.base.type(), k);
        r.base = is_modulo ? make_zero(a.base.type()) : Div::make(a.base, kc);
        r.residue = Mod::make(a.base, kc);
        r.modulus = (int)k;
        for (int64_t res = 0; res < k; res++) {
            std::vector<int64_t> row;
            for (int64_t o : a.offsets[0])
                row.push_back(is_modulo ? floor_mod(res + o, k) : floor_div(res + o, k));
            r.offsets.push_back(std::move(row));
        }
        return r;
    }
};

}  // namespace

std::optional<LaneOffsets> lane_offsets(const Expr &index) {
    return walk_lane_index<Offsets>(index, OffsetOps());
}

}  // namespace Internal
}  // namespace loom
