// ParamMap: values of a pipeline's Params and buffers of its ImageParams for one run (Halide 14's),
// in place of what Param::set and ImageParam::set gave them.
#pragma once

#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/ImageParam.h"
#include "dsl/Param.h"
#include "dsl/Parameter.h"

namespace loom {

/** What one run of a pipeline reads for some of its Params and ImageParams, leaving the Params'
 * own values alone: threads may run one compiled pipeline with different inputs at once.
 * Params it does not name read their own values; names the pipeline does not read are
 * ignored. An ImageParam mapped to a Buffer pointer is read from that Buffer, and
 * infer_input_bounds fills that Buffer (not the ImageParam) where it is undefined. */
class ParamMap {
public:
    struct ParamMapping {
        std::shared_ptr<Internal::ParameterContents> parameter;
        uint64_t scalar_bits = 0;
        Buffer<> buffer;
        /** For a Buffer given by pointer: reads it, and assigns the Buffer that
         * infer_input_bounds makes. */
        std::function<Buffer<>()> read_out;
        std::function<void(const Buffer<> &)> write_out;

        template <typename T>
        ParamMapping(const Param<T> &p, const T &value) : parameter(p.parameter()) {
            static_assert(sizeof(T) <= sizeof(scalar_bits), "scalar too wide");
            std::memcpy(&scalar_bits, &value, sizeof(T));
        }
        template <typename T, int D>
        ParamMapping(const ImageParam &p, const Buffer<T, D> &b)
            : parameter(p.parameter()), buffer(b) {}
        /** An image parameter by its contents (Loom's own runs: a bounds query's buffer). */
        ParamMapping(std::shared_ptr<Internal::ParameterContents> p, const Buffer<> &b)
            : parameter(std::move(p)), buffer(b) {}
        template <typename T, int D>
        ParamMapping(const ImageParam &p, Buffer<T, D> *b) : parameter(p.parameter()) {
            user_assert(b) << "ParamMap: ImageParam " << p.name()
                           << " is mapped to a null Buffer pointer";
            read_out = [b] { return b->defined() ? Buffer<>(*b) : Buffer<>(); };
            write_out = [b](const Buffer<> &made) { *b = Buffer<T, D>(made); };
        }
        /** An image's Buffer, given or pointed to; undefined where the pointed-to one is. */
        Buffer<> image() const { return read_out ? read_out() : buffer; }
    };

    ParamMap() = default;
    ParamMap(const std::initializer_list<ParamMapping> &init) : mappings(init) {}

    template <typename T> void set(const Param<T> &p, T value) { add(ParamMapping(p, value)); }
    template <typename T, int D> void set(const ImageParam &p, const Buffer<T, D> &b) {
        add(ParamMapping(p, b));
    }
    void set(std::shared_ptr<Internal::ParameterContents> image, const Buffer<> &b) {
        add(ParamMapping(std::move(image), b));
    }
    size_t size() const { return mappings.size(); }
    /** The mapping of a Param or ImageParam, or null. */
    const ParamMapping *find(const Internal::ParameterContents *p) const {
        for (const ParamMapping &m : mappings)
            if (m.parameter.get() == p) return &m;
        return nullptr;
    }
    /** The map that names nothing: every Param reads its own value. */
    static const ParamMap &empty_map() {
        static const ParamMap empty;
        return empty;
    }

private:
    std::vector<ParamMapping> mappings;
    void add(ParamMapping m) {
        for (ParamMapping &old : mappings) {
            if (old.parameter == m.parameter) {
                old = std::move(m);
                return;
            }
        }
        mappings.push_back(std::move(m));
    }
};

} // namespace loom
