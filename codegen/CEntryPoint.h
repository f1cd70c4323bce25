// The C entry point of an ahead-of-time pipeline:
//   int32_t fn(loom_buffer_t *in0, ..., <scalar> p0, ..., loom_buffer_t *out0, ...)
// with the arguments in the pipeline's order, less the Buffers the pipeline reads directly:
// those are embedded in the library (their elements as they were at compile time, as Halide
// embeds them). It validates every buffer argument (not NULL,
// a host pointer, the element type and dimension count the pipeline was compiled for) and
// returns loom_code_bad_buffer with a message through the runtime's error handler otherwise;
// then packs the arguments and calls the first variant whose CPU features the running
// machine has (cpuid, through loom_cpu_has_features). The pipeline body checks the rest
// (strides, and that each buffer covers the region read or written) before touching memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dsl/Target.h"
#include "lower/InferArguments.h"

namespace llvm {
class Module;
}

namespace loom {
namespace Internal {

/** One compiled version of the pipeline: its argv entry point, int32_t(void *user_context,
 * void **args), and the loom_cpu_feature_t bits it needs (0: any x86-64). */
struct EntryVariant {
    std::string argv_name;
    uint32_t cpu_features = 0;
};

/** Adds `fn_name` to m, declaring the variants' argv functions it calls. Variants are tried
 * in order; when none fits the CPU the call fails with a message naming the targets. */
void add_c_entry_point(llvm::Module &m, const std::vector<LoweredArgument> &args,
                       const std::string &fn_name, const std::vector<EntryVariant> &variants);

/** The loom_cpu_feature_t bits a Target's features need. */
uint32_t cpu_feature_mask(const Target &t);

} // namespace Internal
} // namespace loom
