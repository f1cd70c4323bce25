// The message of the CompileError a callable throws, for tests that assert error text.
#pragma once

#include <exception>
#include <string>

#include <loom.h>

namespace loom_test {

/** What `f` throws as a loom::CompileError, or "" when it throws none. */
template <typename F> std::string compile_error_of(F f) {
    try {
        f();
    } catch (const loom::CompileError &e) {
        return e.what();
    }
    return "";
}

/** What `f` throws as any std::exception, or "" when it throws none. */
template <typename F> std::string error_of(F f) {
    try {
        f();
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

} // namespace loom_test
