// Streaming stores that need no aligned address: the lines a row of vector stores fills, each
// streamed whole, across the ends of rows that lie one after another in memory.
//
// A streaming store (StreamingStores.h) takes a 64-byte-aligned address. A row of 16-bit outputs
// 4094 wide (blur's) starts at another offset into a line on every row, so none of its stores
// could stream: each line was read from memory to be owned before it was written (the traffic
// x 1.5). Here a store site keeps what it stored last, and the address just past it, in a
// state carried from one store to the next (and from one row to the next):
//  - where a store continues the last (its address is the end of the last), the line it
//    completes is the last vector's elements in that line and this vector's first ones, put
//    together by one two-source permute and streamed whole; the elements past that line wait
//    in the state for the next store;
//  - where a store overlaps the last within the line the last one left open (a ShiftInwards
//    split's shifted last vector), the line is put together the same way, this vector's
//    elements taking precedence where both have one (it is the later store);
//  - otherwise (a row that does not start where the last ended, the first store) the waiting
//    elements are stored the plain way (masked to exactly them), and so are this vector's
//    elements up to its first line boundary: they share their lines with elements stored
//    elsewhere. These two cases, once or twice a row, are a call to a function of the module's
//    own per vector type: inline, they cost blur 25% more compile time;
//  - the owner of the state (the outermost serial loop whose body holds this one store to the
//    buffer and no other) stores what still waits, plain, after its loop.
// The state delays the elements of one store until the next store of the same site, or the end
// of the owner's loop. Nothing in between reads the buffer (streamed outputs are never loaded)
// or writes it (no other store to it in the owner's body), so the delay is not observable.
// Rows of one task are joined; where two tasks' rows meet, each stores its side of the shared
// line plain, and neither streams it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Whether `loop_body`, the body of a serial loop, holds exactly one Store to `buffer` (seen
 * once), and that store is one codegen would stream: a 512-bit vector of 8-, 16-, 32- or 64-bit
 * lanes at a ramp of stride 1, in a loop with a few stores and no loop inside (or directly in
 * `loop_body`, where `body_streams` says that of the loop itself), with no parallel loop
 * between. Returns the store's value type. `byte_lanes` (8-bit lanes) needs the target's byte
 * permutes, `word_lanes` (16-bit) its word permutes. */
std::optional<Type> joinable_streamed_store(const Stmt &loop_body, const std::string &buffer,
                                            bool body_streams, bool byte_lanes, bool word_lanes);

/** The state a store site carries: {the vector it stored last, the address just past it}. */
llvm::StructType *joined_lines_state_type(llvm::Type *vector_type);

/** Empties the state at `state` (a stack slot of joined_lines_state_type): nothing waits. */
void start_joined_lines(llvm::IRBuilderBase &b, llvm::StructType *state_type, llvm::Value *state);

/** Stores `v` (a 512-bit vector) at `addr` as above, where `allowed` (an i1: the output spans
 * enough to stream, see StreamingStores.h) holds and addr is a multiple of the lane size;
 * otherwise the plain way, with alignment plain_align. Returns the stores that write the
 * buffer, for alias tags. The builder is left after them. */
std::vector<llvm::Instruction *>
store_streaming_joined(llvm::IRBuilderBase &b, llvm::Value *v, llvm::Value *addr,
                       llvm::Align plain_align, llvm::Value *allowed, llvm::StructType *state_type,
                       llvm::Value *state, const std::string &name);

/** Stores, plain, the elements still waiting in the state (after the owner's loop), through a
 * call to a function of the module's own per vector type. Returns the call, for an alias tag. */
llvm::Instruction *flush_joined_lines(llvm::IRBuilderBase &b, llvm::StructType *state_type,
                                      llvm::Value *state, llvm::Align plain_align,
                                      const std::string &name);

} // namespace Internal
} // namespace loom
