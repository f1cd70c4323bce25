#include "dsl/RuntimeErrors.h"

#include <cstdio>

#include "codegen/JIT.h"
#include "dsl/Error.h"
#include "dsl/JITUserContext.h"

namespace loom {
namespace Internal {

namespace {

// The JIT passes its JITUserContext as the user context, whose custom_error handler takes the
// message, or else its error buffer, whose text becomes that of a C++ exception.
void collect_error(void *user_context, const char *message) {
    auto *context = static_cast<JITUserContext *>(user_context);
    if (context && context->handlers.custom_error) {
        context->handlers.custom_error(context, message);
    } else if (context && context->error_buffer) {
        context->error_buffer->text.append(message);
    } else {
        std::fprintf(stderr, "loom error: %s\n", message);
    }
}

} // namespace

void install_runtime_error_handler() {
    static const bool installed = (loom_set_error_handler(collect_error), true);
    (void)installed;
}

void call_runtime(const std::function<int32_t(void *user_context)> &call, const std::string &what) {
    install_runtime_error_handler();
    JITErrorBuffer error;
    JITUserContext context;
    context.error_buffer = &error;
    if (call(&context) != 0) throw RuntimeError(error.text.empty() ? what + " failed" : error.text);
}

} // namespace Internal
} // namespace loom
