#include "codegen/ByteTableLookup.h"

#include <vector>

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>

namespace loom {
namespace Internal {

namespace {

constexpr unsigned kBlock = 64; // bytes in a zmm register: lanes of one permute

} // namespace

llvm::Value *emit_byte_table_lookup(llvm::IRBuilderBase &builder, llvm::Value *table,
                                    uint64_t table_bytes, llvm::Value *index,
                                    const std::function<llvm::LoadInst *(llvm::LoadInst *)> &load) {
    auto *index_type = llvm::cast<llvm::FixedVectorType>(index->getType());
    const unsigned lanes = index_type->getNumElements();
    llvm::Type *i8 = builder.getInt8Ty();
    auto *block_type = llvm::FixedVectorType::get(i8, kBlock);

    // The table in 64-byte vectors; a last partial one reads into the bytes past the table.
    const unsigned vectors = (unsigned)((table_bytes + kBlock - 1) / kBlock);
    const unsigned pairs = (vectors + 1) / 2;
    std::vector<llvm::Value *> parts;
    for (unsigned k = 0; k < 2 * pairs; k++) {
        if (k >= vectors) {
            parts.push_back(llvm::Constant::getNullValue(block_type));
            continue;
        }
        llvm::Value *at = builder.CreateConstInBoundsGEP1_64(i8, table, (uint64_t)k * kBlock);
        parts.push_back(load(builder.CreateAlignedLoad(block_type, at, llvm::Align(1))));
    }

    // Bits 0-6 pick a byte of a pair (vpermi2b ignores the rest); bits 7 and up pick the pair.
    llvm::Value *within = builder.CreateTrunc(index, llvm::FixedVectorType::get(i8, lanes));
    llvm::Value *pair =
        builder.CreateTrunc(builder.CreateLShr(index, llvm::ConstantInt::get(index_type, 7)),
                            llvm::FixedVectorType::get(i8, lanes));

    // Blocks of 64 lanes; the last one's lanes past `lanes` are don't-cares.
    std::vector<llvm::Value *> blocks;
    for (unsigned first = 0; first < lanes; first += kBlock) {
        std::vector<int> take(kBlock);
        for (unsigned i = 0; i < kBlock; i++) {
            take[i] = first + i < lanes ? (int)(first + i) : -1;
        }
        llvm::Value *w = builder.CreateShuffleVector(within, take);
        llvm::Value *p = builder.CreateShuffleVector(pair, take);
        llvm::Value *result = nullptr;
        for (unsigned k = 0; k < pairs; k++) {
            llvm::Value *permuted =
                builder.CreateIntrinsic(llvm::Intrinsic::x86_avx512_vpermi2var_qi_512, {},
                                        {parts[2 * k], w, parts[2 * k + 1]});
            if (!result) {
                result = permuted;
                continue;
            }
            llvm::Value *here = builder.CreateICmpEQ(p, llvm::ConstantInt::get(block_type, k));
            result = builder.CreateSelect(here, permuted, result);
        }
        blocks.push_back(result);
    }

    // The blocks back together, then the first `lanes` lanes.
    llvm::Value *all = blocks.size() == 1 ? blocks[0] : llvm::concatenateVectors(builder, blocks);
    std::vector<int> keep(lanes);
    for (unsigned i = 0; i < lanes; i++)
        keep[i] = (int)i;
    return builder.CreateShuffleVector(all, keep);
}

} // namespace Internal
} // namespace loom
