// The two error channels. user_assert marks a mistake in the user's program and throws
// loom::CompileError (or loom::RuntimeError from a running pipeline) with a message that
// names the object and says what to do. internal_assert marks a bug in Loom itself.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace loom {

/** Base of every exception Loom throws. */
struct Error : std::runtime_error {
    explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/** A mistake found while defining, scheduling or compiling a pipeline. */
struct CompileError : Error {
    using Error::Error;
};

/** A failure reported by a running pipeline (an input read out of bounds, out of memory). */
struct RuntimeError : Error {
    using Error::Error;
};

/** A bug in Loom: please report it with the message. */
struct InternalError : Error {
    using Error::Error;
};

namespace Internal {

/** Collects a message with operator<< and throws when destroyed, so that
 * `user_assert(cond) << "..." << value;` reads as one statement. */
class ErrorReport {
public:
    enum Kind { User, Internal };
    ErrorReport(Kind kind, const char *file, int line, const char *condition)
        : kind(kind) {
        if (kind == Internal) {
            message << "Internal error at " << file << ":" << line;
            if (condition) message << " (condition failed: " << condition << ")";
            message << ": ";
        }
    }
    template<typename T>
    ErrorReport &operator<<(const T &value) {
        message << value;
        return *this;
    }
    [[noreturn]] ~ErrorReport() noexcept(false) {
        if (kind == User) throw CompileError(message.str());
        throw InternalError(message.str());
    }

private:
    Kind kind;
    std::ostringstream message;
};

/** Makes the macro below an expression of type void whichever branch is taken. */
struct Voidifier {
    void operator&(const ErrorReport &) {}
};

}  // namespace Internal
}  // namespace loom

#define LOOM_ASSERT_IMPL(kind, cond)                                                              \
    (cond) ? (void)0                                                                              \
           : ::loom::Internal::Voidifier() &                                                      \
                 ::loom::Internal::ErrorReport(::loom::Internal::ErrorReport::kind, __FILE__,     \
                                               __LINE__, #cond)

#define user_assert(cond) LOOM_ASSERT_IMPL(User, cond)
#define user_error LOOM_ASSERT_IMPL(User, false)
#define internal_assert(cond) LOOM_ASSERT_IMPL(Internal, cond)
#define internal_error LOOM_ASSERT_IMPL(Internal, false)
