// The heuristic scheduler's decision for each Func (where it is computed, in which root's
// loops), shared by its CPU side (Heuristic.cpp: groups of strips) and its GPU side
// (GpuPlacement.cpp: kernels, shared memory).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "lower/autoschedule/Choices.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"

namespace loom {
namespace Internal {
namespace autoschedule {

/** Where a Func is computed. Strip: once per strip of its group's root, before the strip's
 * rows (compute_at the strip loop). Row: once per row of the strip (compute_at the row loop),
 * where consecutive rows read disjoint parts. Sliding: per row, but stored for the whole strip,
 * so that each row computes only what the rows before it did not (store_at the strip loop,
 * compute_at the row loop). Shared: on the GPU, once per block of its group's kernel, by the
 * block's threads, in its shared memory (compute_at the kernel's innermost block loop). */
enum class Placement { Inline, Root, Strip, Row, Sliding, Shared };

/** The name Choices gives a placement ("inline", "root", "strip", ...). */
const char *placement_name(Placement p);

/** The placement Choices asks for `name`, or "". */
std::string asked_placement(const Choices &asked, const std::string &name);

struct Plan {
    Placement placement = Placement::Root;
    std::string group;   // the root Func whose strips (blocks) it is computed in (itself at root)
    int group_stage = 0; // the stage of that Func whose loop it is computed in
    Region64 box;        // members: the region computed at once (in a strip, a row, a block)
    std::string why;
};
using Plans = std::map<std::string, Plan>;

/** Whether stage k of consumer c reads f, directly or through Funcs inlined into it. */
bool stage_reaches(const PipelineGraph &graph, const Plans &plans, const std::string &c, int k,
                   const std::string &f);

/** The group roots (and their stages) that compute the Funcs reading f, through the Funcs
 * inlined into them. */
void sites_of(const PipelineGraph &graph, const Plans &plans, const std::string &f,
              std::set<std::pair<std::string, int>> &sites);

/** Cycles of one iteration of a stage, vectorized, on `model`: its arithmetic and its reads
 * from a cache near the core. */
double iteration_cycles(const StageInfo &s, const MachineModel &model);

/** Cycles a byte costs from a cache near the core (the second level): a Func computed in the
 * strip it is read in, a tile of an input read again by a stencil. */
double near_byte_cost(const MachineModel &model);

/** Cycles a byte costs from the memory beyond every cache (a GPU's device memory). */
double device_memory_byte_cost(const MachineModel &model);

/** Cycles of computing every stage of f over `box`. */
double compute_cycles(const PipelineGraph &graph, const MachineModel &model, const std::string &f,
                      const Region64 &box);

/** A number for a sentence of the scheduler's summary: three significant digits. */
std::string fmt(double v);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
