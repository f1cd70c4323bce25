// The runtime (runtime/*.c), compiled when Loom was built and kept inside libloom as object
// files, with the text of loom_runtime.h: compile_to_static_library copies both into what it
// writes, so that an ahead-of-time library needs neither LLVM nor libloom.
#pragma once

#include <cstddef>
#include <vector>

namespace loom {
namespace Internal {

struct EmbeddedObject {
    const char *member_name; // the file name inside a static library
    const unsigned char *data;
    size_t size;
};

const std::vector<EmbeddedObject> &embedded_runtime_objects();
const char *embedded_runtime_header();

} // namespace Internal
} // namespace loom
