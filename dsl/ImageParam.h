// ImageParam: an input buffer of a pipeline, bound with set() before each run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Parameter.h"

namespace loom {

class ImageParam {
public:
    ImageParam() = default;
    ImageParam(Type t, int dimensions, const std::string &name = "");

    const std::string &name() const;
    Type type() const;
    int dimensions() const;

    /** Binds the buffer the next run reads. Its type and dimensions must match. */
    void set(const Buffer<> &b);
    Buffer<> get() const;
    bool defined() const { return contents != nullptr; }

    /** A read of the image inside a definition: f(x, y) = in(x, y + 1). */
    template<typename... Args>
    Expr operator()(const Args &...args) const {
        return call({Expr(args)...});
    }
    Expr operator()(const std::vector<Expr> &args) const { return call(args); }

    const std::shared_ptr<Internal::ParameterContents> &parameter() const { return contents; }

private:
    std::shared_ptr<Internal::ParameterContents> contents;
    Expr call(std::vector<Expr> args) const;
};

}  // namespace loom
