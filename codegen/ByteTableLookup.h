// A vector of bytes looked up in a small table with byte permutes instead of a gather.
#pragma once

#include <cstdint>
#include <functional>

namespace llvm {
class IRBuilderBase;
class LoadInst;
class Value;
} // namespace llvm

namespace loom {
namespace Internal {

/** The largest table, in bytes, that emit_byte_table_lookup takes: 8 pairs of 64-byte vectors,
 * 8 two-table byte permutes and 7 selects per 64 lanes. A 16-lane hardware gather of 32-bit
 * words (what a gather of bytes is otherwise, as code generation emits it) takes ~21 cycles on
 * Zen 4; the permutes ~4x less per lane there (measured, 1024 entries), and a table 8x larger
 * would give up most of that. */
constexpr uint64_t kMaxByteTableBytes = 1024;

/** Emits table[index] for `index` a vector of 32-bit integers, every lane in [0, table_bytes),
 * and `table` pointing at table_bytes bytes (table_bytes <= kMaxByteTableBytes) followed by at
 * least 63 readable bytes. The result is a vector of i8 with index's lane count. The table is
 * read in 64-byte vectors (one `load` call each, for the caller's alias tags); each block of
 * 64 lanes permutes every pair of them with AVX512-VBMI's vpermi2b (index bits 0-6) and keeps,
 * lane by lane, the pair that index bits 7 and up name. A lane's index outside the table
 * gives an unspecified byte, never a fault. */
llvm::Value *emit_byte_table_lookup(llvm::IRBuilderBase &builder, llvm::Value *table,
                                    uint64_t table_bytes, llvm::Value *index,
                                    const std::function<llvm::LoadInst *(llvm::LoadInst *)> &load);

} // namespace Internal
} // namespace loom
