#include "lower/autoschedule/RegisterTile.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace autoschedule {

int64_t floor_pow2(int64_t v) {
    int64_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

int vector_lanes(const FuncNode &n, const MachineModel &machine) {
    int smallest = 8;
    for (const Type &t : n.func->output_types)
        smallest = std::min(smallest, t.bytes());
    return machine.lanes(smallest);
}

bool pure_loops_independent(const FuncNode &n, int k) {
    const StageInfo &s = n.stages[k];
    for (int d = 0; d < (int)s.pure_vars.size(); d++) {
        if (!s.pure_vars[d].empty() && !s.independent(d)) return false;
    }
    return true;
}

RegisterTile choose_register_tile(const FuncNode &n, int k, const Region64 &region,
                                  const MachineModel &machine, const Choices &asked) {
    RegisterTile tile;
    const StageInfo &s = n.stages[k];
    if (k == 0 || s.rvars.empty() || n.func->dimensions() == 0 || s.pure_vars[0].empty() ||
        !pure_loops_independent(n, k)) {
        return tile;
    }
    const int lanes = vector_lanes(n, machine);
    for (int d = 1; d < (int)s.pure_vars.size() && tile.row_dim < 0; d++) {
        if (!s.pure_vars[d].empty() && region[d].extent() > 1) tile.row_dim = d;
    }
    // Per call: whether it moves along dimension 0 and along the row dimension, and the bytes
    // of one of its values.
    struct Move {
        bool along0 = false, along_rows = false;
        int bytes = 0;
    };
    std::vector<Move> moves;
    for (const CallSite &call : s.calls) {
        Move m;
        m.bytes = call.bytes;
        for (const Expr &a : call.args) {
            m.along0 = m.along0 || expr_uses_var(a, s.pure_vars[0]);
            if (tile.row_dim >= 0)
                m.along_rows = m.along_rows || expr_uses_var(a, s.pure_vars[tile.row_dim]);
        }
        moves.push_back(m);
    }
    const int registers = machine.vector_registers();
    // The rows of the region the tiles cover, one tile of rows after another: a tile of R rows
    // that does not divide them leaves a last tile of fewer rows (GuardWithIf), which loads
    // the vectors along dimension 0 for fewer operations.
    const int64_t row_extent = tile.row_dim >= 0 ? region[tile.row_dim].extent() : 1;
    double best_loads = 1e30, best_bytes = 1e30;
    for (int cols = 1; cols + 2 <= registers; cols *= 2) {
        if ((int64_t)cols * lanes > std::max<int64_t>(lanes, region[0].extent())) break;
        for (int rows = 1; rows * cols + cols + 1 <= registers; rows++) {
            if (rows > 1 && (tile.row_dim < 0 || rows > row_extent)) break;
            const int64_t tiles = (row_extent + rows - 1) / rows;
            double loads = 0, bytes = 0;
            for (const Move &m : moves) {
                const double vectors =
                    m.along0 ? (m.along_rows ? (double)row_extent * cols : (double)tiles * cols)
                             : (m.along_rows ? (double)row_extent : 0.0);
                loads += vectors;
                // A read along dimension 0 loads whole vectors; one along the rows only, one
                // value broadcast.
                bytes += vectors * m.bytes * (m.along0 ? lanes : 1);
            }
            const double ops = (double)row_extent * cols;
            const double loads_per_op = loads / ops, bytes_per_op = bytes / ops;
            // Ties in loads go to fewer bytes: a read that the register tile does not hold in
            // L1 (the block along the RVar is only as good as L1's sets make it: B's rows in
            // A * B are the width of B apart) streams from farther, at a cost per byte, not
            // per load. Then to fewer rows (a Func computed per row stays so), then to more
            // vectors (independent chains of additions hide their latency).
            const bool fewer_loads = loads_per_op < best_loads * 0.999;
            const bool same_loads = !fewer_loads && loads_per_op <= best_loads * 1.001;
            const bool fewer_bytes = bytes_per_op < best_bytes * 0.999;
            const bool same_bytes = !fewer_bytes && bytes_per_op <= best_bytes * 1.001;
            const bool fewer_rows = rows < tile.rows || (rows == tile.rows && cols > tile.cols);
            if (fewer_loads || (same_loads && fewer_bytes) ||
                (same_loads && same_bytes && fewer_rows)) {
                best_loads = loads_per_op;
                best_bytes = bytes_per_op;
                tile.rows = rows;
                tile.cols = cols;
            }
        }
    }
    if (auto it = asked.tile.find(stage_key(n.func->name, k)); it != asked.tile.end()) {
        // As asked, where the region holds it and the registers do.
        const auto [rows, cols] = it->second;
        if (rows >= 1 && cols >= 1 && rows * cols <= registers &&
            (rows == 1 || (tile.row_dim >= 0 && rows <= region[tile.row_dim].extent())) &&
            (int64_t)cols * lanes <= std::max<int64_t>(lanes, region[0].extent())) {
            tile.rows = rows;
            tile.cols = cols;
        }
    }
    if (tile.rows == 1) tile.row_dim = -1;
    return tile;
}

ReductionBlock block_reduction(Stage stage, const FuncNode &n, int k, const RegisterTile &t,
                               const MachineModel &machine) {
    ReductionBlock block;
    const StageInfo &s = n.stages[k];
    if (s.rvars.empty() || (t.rows == 1 && t.cols == 1)) return block;
    const std::string &r = s.rvars[0];
    double bytes_per_step = 0;
    for (const CallSite &call : s.calls) {
        bool along_r = false, along0 = false, along_rows = false;
        for (const Expr &a : call.args) {
            along_r = along_r || expr_uses_var(a, r);
            along0 = along0 || expr_uses_var(a, s.pure_vars[0]);
            if (t.row_dim >= 0) along_rows = along_rows || expr_uses_var(a, s.pure_vars[t.row_dim]);
        }
        if (along_r && along0 && !along_rows)
            bytes_per_step += (double)t.cols * vector_lanes(n, machine) * call.bytes;
    }
    if (bytes_per_step == 0) return block;
    const int64_t steps =
        std::max<int64_t>(8, floor_pow2((int64_t)(machine.l1_bytes / 2 / bytes_per_step)));
    if (steps >= s.rvar_spans[0].extent()) return block;
    block.rvar = r;
    block.outer = r + "o";
    block.inner = r + "i";
    stage.split(VarOrRVar(r), VarOrRVar(block.outer), VarOrRVar(block.inner), (int)steps,
                TailStrategy::GuardWithIf);
    return block;
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
