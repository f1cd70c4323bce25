// A named input of a compiled pipeline, in the order a caller passes it.
#pragma once

#include <memory>
#include <string>

#include "dsl/Buffer.h"
#include "dsl/ImageParam.h"
#include "dsl/Param.h"

namespace loom {

struct Argument {
    enum Kind { InputScalar, InputBuffer, OutputBuffer };
    std::string name;
    Kind kind = InputScalar;
    Type type;
    int dimensions = 0;

    Argument() = default;
    Argument(std::string name, Kind kind, Type type, int dimensions)
        : name(std::move(name)), kind(kind), type(type), dimensions(dimensions) {}
    Argument(const ImageParam &p)
        : name(p.name()), kind(InputBuffer), type(p.type()), dimensions(p.dimensions()) {}
    template<typename T>
    Argument(const Param<T> &p) : name(p.name()), kind(InputScalar), type(p.type()) {}
    template <typename T, int D>
    Argument(const Buffer<T, D> &b)
        : name(b.name()), kind(InputBuffer), type(b.type()), dimensions(b.dimensions()) {}

    bool is_buffer() const { return kind != InputScalar; }
};

}  // namespace loom
