// How the runtime's error messages (loom_error) reach C++: as the text of a loom::RuntimeError,
// or a JITUserContext's custom_error handler.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace loom {
namespace Internal {

/** Installs (once per process) the runtime error handler for JIT code: a message goes to the
 * custom_error handler of the JITUserContext passed as the user context, else to its error
 * buffer, else (no context) to stderr. */
void install_runtime_error_handler();

/** Calls a runtime function outside any pipeline run with a user context of its own: where it
 * returns nonzero, throws loom::RuntimeError with the message it reported (`what` failed,
 * where it reported none). */
void call_runtime(const std::function<int32_t(void *user_context)> &call, const std::string &what);

} // namespace Internal
} // namespace loom
