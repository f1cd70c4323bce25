// What the GPU tests share: the target they compile for, and the skip where no GPU can run it.
#pragma once

#include <gtest/gtest.h>

#include "loom.h"

namespace loom_test {

/** The host with CUDA: kernels compile to PTX on any machine. */
inline loom::Target cuda_target() {
    return loom::get_host_target().with_feature(loom::Target::CUDA);
}

} // namespace loom_test

// Skips the calling test where no CUDA device can run kernels, printing why.
#define REQUIRE_CUDA()                                                                             \
    do {                                                                                           \
        char why[512] = {0};                                                                       \
        if (!loom_cuda_available(why, sizeof(why))) GTEST_SKIP() << "no CUDA device: " << why;     \
    } while (0)
