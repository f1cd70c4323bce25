// The performance fuzzer's peer: a PipelineDesc and a Schedule built with Halide 14, through
// the same backend Loom's side uses (FuzzBackend.inc), over the same input memory.
#pragma once

#include <string>
#include <vector>

#include "FuzzIR.h"

namespace loom_fuzz {

/** p scheduled by s, JIT-compiled by Halide 14 for this machine (its features less
 * AVX512_SapphireRapids, which Halide 14 misreports here, plus StrictFloat: Loom never contracts
 * or reassociates float math either), its outputs over the region the schedule writes. Throws
 * what Halide throws (Halide::CompileError and its siblings derive from std::exception). */
PreparedRun prepare_halide(const PipelineDesc &p, const Schedule &s,
                           const std::vector<loom::Buffer<>> &inputs);
/** The loop nest Halide 14 lowers p scheduled by s to, as text. */
std::string halide_lowered(const PipelineDesc &p, const Schedule &s,
                           const std::vector<loom::Buffer<>> &inputs);

}  // namespace loom_fuzz
