// Streaming (non-temporal) stores of a pipeline's outputs. An output that the pipeline writes
// once and never reads back gains nothing from having its lines in the cache: a plain store
// first reads each line from memory (to own it), then evicts data the pipeline still uses;
// a streaming store writes the whole line past the cache. Measured in one process, the same
// code with and without (31 runs each, alternating): bias_relu 14-20% faster, layer_norm
// 16-22%, softmax 11-25%, chain 8-22%.
//
// Codegen streams a store where all of these hold:
//  - it is a full 512-bit vector (one cache line) to an output buffer the pipeline does not
//    load from;
//  - it is one of at most kMaxStreamedStoresPerLoop stores of an innermost loop (a row of
//    outputs written vector after vector, or a few planes of one: interpolate's 3 colour
//    planes, 5% faster streamed): each streamed store carries an alignment test and a branch,
//    which in a loop storing a tile (matmul's, conv_relu's 16 stores) cost 8-20% more compile
//    time and 2% run time;
//  - the output spans at least CompileOptions::streaming_min_bytes (tested once per call): a
//    smaller one may still be in the last-level cache when it is read (conv_relu's 8 MiB
//    output ran 1.8% slower streamed). 16 MiB by default, half of this machine's 32 MiB L3:
//    blur's 4094 x 4094 16-bit output (31.97 MiB) was just under the 32 MiB of before;
//  - at run time, its address is 64-byte aligned (the instruction requires it), or, where the
//    store is the only one to the output in a loop nest, the line it completes is put together
//    with the store before it (JoinedStreamingStores.h): rows that start anywhere in a line,
//    a ShiftInwards split's shifted last vector. Elsewhere a misaligned vector is stored the
//    plain way.
// The pipeline's entry function ends with a store fence where any of its functions streams,
// and the thread pool fences once per thread and job before it counts the thread's work done,
// so the lines are in memory before the caller sees the pipeline as done. Tasks don't fence:
// a fence per row waited for the row's stores before the next row's loads could start.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** The buffers `s` loads from. */
std::set<std::string> buffers_loaded(const Stmt &s);

constexpr int kMaxStreamedStoresPerLoop = 4;

/** Whether a loop's body has from one to kMaxStreamedStoresPerLoop stores and no loop inside
 * it. */
bool stores_few_without_loops(const Stmt &loop_body);

/** Whether a buffer of the given (32-bit) extents and strides, in elements of elem_bytes,
 * spans at least min_bytes from its first element to its last, as an i1. */
llvm::Value *spans_enough_to_stream(llvm::IRBuilderBase &b,
                                    const std::vector<llvm::Value *> &extents,
                                    const std::vector<llvm::Value *> &strides, int elem_bytes,
                                    int64_t min_bytes);

/** The two stores of v at addr: the streaming one (taken where `allowed`, an i1, holds and addr
 * is 64-byte aligned) and the plain one, with alignment plain_align. The builder is left after
 * both. */
struct StreamedStore {
    llvm::StoreInst *streaming, *plain;
};
StreamedStore store_streaming_where_aligned(llvm::IRBuilderBase &b, llvm::Value *v,
                                            llvm::Value *addr, llvm::Align plain_align,
                                            llvm::Value *allowed, const std::string &name);

/** The store fence that ends the entry function of a pipeline with streaming stores. */
void fence_streaming_stores(llvm::IRBuilderBase &b);

} // namespace Internal
} // namespace loom
