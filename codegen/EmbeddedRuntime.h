// The runtime (runtime/*.c), compiled when Loom was built and kept inside libloom as one
// object file (a partial link of its sources' objects), with the text of loom_runtime.h:
// compile_to_static_library copies both into what it writes, so that an ahead-of-time library needs
// neither LLVM nor libloom.
#pragma once

#include <cstddef>

namespace loom {
namespace Internal {

struct EmbeddedObject {
    const char *member_name; // the file name inside a static library
    const unsigned char *data;
    size_t size;
};

EmbeddedObject embedded_runtime_object();
const char *embedded_runtime_header();

} // namespace Internal
} // namespace loom
