// Builds a PipelineDesc as Loom Funcs, applies a Schedule to them, and realizes the result.
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "FuzzData.h"
#include "FuzzEmit.h"
#include "FuzzIR.h"

// The function the fuzzer's extern stages call (FuncDesc::is_extern), exported from the
// executable for the JIT (ENABLE_EXPORTS). Written once: compiled here, printed by reproducers.
// In bounds-query mode it asks for its output's region moved by dx along dimension 0; then each
// point is in(x + dx, ...) * 3 + k in the element type (wrapping), or * 0.5 + k for floats.
// clang-format off
LOOM_FUZZ_DATA_CODE(kFuzzExternSource,
extern "C" int loom_fuzz_extern(halide_buffer_t *in, int dx, int k, halide_buffer_t *out) {
    if (in->is_bounds_query()) {
        for (int d = 0; d < out->dimensions; d++) {
            in->dim[d].min = out->dim[d].min + (d == 0 ? dx : 0);
            in->dim[d].extent = out->dim[d].extent;
        }
        return 0;
    }
    int pos[3] = {0, 0, 0}, n = 1;
    for (int d = 0; d < out->dimensions; d++) n *= out->dim[d].extent;
    const int bytes = (out->type.bits + 7) / 8;
    for (int i = 0; i < n; i++) {
        int rest = i;
        int64_t at_in = 0, at_out = 0;
        for (int d = 0; d < out->dimensions; d++) {
            pos[d] = out->dim[d].min + rest % out->dim[d].extent;
            rest /= out->dim[d].extent;
            at_out += (int64_t)(pos[d] - out->dim[d].min) * out->dim[d].stride;
            at_in += (int64_t)(pos[d] + (d == 0 ? dx : 0) - in->dim[d].min) * in->dim[d].stride;
        }
        const uint8_t *src = in->host + at_in * bytes;
        uint8_t *dst = out->host + at_out * bytes;
        if (out->type.code == 2) { /* float */
            float v;
            memcpy(&v, src, 4);
            v = v * 0.5f + (float)k;
            memcpy(dst, &v, 4);
        } else {
            uint32_t v = 0;
            if (bytes == 1) v = *src;
            else if (bytes == 2) { uint16_t w; memcpy(&w, src, 2); v = w; }
            else memcpy(&v, src, 4);
            v = v * 3u + (uint32_t)k;
            if (bytes == 1) *dst = (uint8_t)v;
            else if (bytes == 2) { uint16_t w = (uint16_t)v; memcpy(dst, &w, 2); }
            else memcpy(dst, &v, 4);
        }
    }
    return 0;
}
)
// clang-format on

namespace loom_fuzz {

using namespace loom;

const char *fuzz_extern_source() { return kFuzzExternSource; }

// ---------------------------------------------------------------------------------------------
// Element types.

bool is_float(ET t) { return t == ET::F32; }
bool is_signed(ET t) { return t == ET::I16 || t == ET::I32 || t == ET::F32; }
int bits_of(ET t) {
    switch (t) {
    case ET::U8: return 8;
    case ET::U16: case ET::I16: return 16;
    default: return 32;
    }
}
Type loom_type(ET t) {
    switch (t) {
    case ET::U8: return UInt(8);
    case ET::U16: return UInt(16);
    case ET::I16: return Int(16);
    case ET::I32: return Int(32);
    default: return Float(32);
    }
}
const char *cpp_name(ET t) {
    static const char *names[] = {"uint8_t", "uint16_t", "int16_t", "int32_t", "float"};
    return names[(int)t];
}
const char *type_ctor(ET t) {
    static const char *names[] = {"UInt(8)", "UInt(16)", "Int(16)", "Int(32)", "Float(32)"};
    return names[(int)t];
}
double type_lo(ET t) {
    switch (t) {
    case ET::U8: case ET::U16: return 0;
    case ET::I16: return -32768;
    case ET::I32: return -2147483648.0;
    default: return -3.0e38;
    }
}
double type_hi(ET t) {
    switch (t) {
    case ET::U8: return 255;
    case ET::U16: return 65535;
    case ET::I16: return 32767;
    case ET::I32: return 2147483647.0;
    default: return 3.0e38;
    }
}

uint32_t pipeline_seed(uint32_t run_seed, int k) { return fuzz_hash(run_seed, 2u * (uint32_t)k); }
uint32_t schedule_seed(uint32_t run_seed, int k, int j) {
    return fuzz_hash(fuzz_hash(run_seed, 2u * (uint32_t)k + 1u), (uint32_t)j);
}

// ---------------------------------------------------------------------------------------------
// The Loom backend of the Emitter.

namespace with_loom {

namespace L = loom;
using namespace loom;
using InputBuffer = Buffer<>;

Type elem_type(ET t) { return loom_type(t); }
RDom make_rdom(const RDomDesc &rd) {
    Internal::Region region;
    for (size_t i = 0; i < rd.mins.size(); i++) region.emplace_back(Expr(rd.mins[i]), Expr(rd.extents[i]));
    return RDom(region, rd.name);
}
VarOrRVar named_loop(const std::string &name, bool) { return VarOrRVar(name); }
Stage stage_of(Func f, int k) { return k == 0 ? f.stage() : f.update(k - 1); }
LoopLevel stage_level(Func f, int k, const VarOrRVar &v) { return f.update(k - 1).at(v); }

#include "FuzzBackend.inc"

}  // namespace with_loom

std::vector<Buffer<>> make_inputs(const PipelineDesc &p) {
    std::vector<Buffer<>> inputs;
    for (const InputDesc &id : p.inputs) {
        Buffer<> b(loom_type(id.type), id.extents, id.name);
        b.set_min(id.mins);
        fuzz_fill_any(b, id.data_seed);
        inputs.push_back(b);
    }
    return inputs;
}

namespace {

// Copies the elements of `to`'s region from `from` (which contains it), by coordinates.
void copy_region(const Buffer<> &from, Buffer<> &to) {
    const int bytes = to.type().bytes();
    to.for_each_position([&](const std::vector<int> &pos) {
        int64_t src = 0, dst = 0;
        for (size_t d = 0; d < pos.size(); d++) {
            src += int64_t(pos[d] - from.dim(int(d)).min()) * from.dim(int(d)).stride();
            dst += int64_t(pos[d] - to.dim(int(d)).min()) * to.dim(int(d)).stride();
        }
        std::memcpy(static_cast<char *>(to.raw_data()) + dst * bytes,
                    static_cast<const char *>(from.raw_data()) + src * bytes, bytes);
    });
}

} // namespace

std::vector<Func> loom_outputs(const PipelineDesc &p, const Schedule &s,
                               const std::vector<Buffer<>> &inputs) {
    with_loom::Backend b = with_loom::build(p, s, inputs);
    std::vector<Func> outputs;
    for (int o : p.outputs) outputs.push_back(b.funcs[o]);
    return outputs;
}

PreparedRun prepare_loom(const PipelineDesc &p, const Schedule &s,
                         const std::vector<Buffer<>> &inputs, bool stream_every_output,
                         const BeforeCompile &before_compile, const Target &target) {
    auto pipeline = std::make_shared<Pipeline>(loom_outputs(p, s, inputs));
    if (before_compile) before_compile(*pipeline);
    if (stream_every_output) {
        CompileOptions options;
        options.streaming_min_bytes = 0;
        pipeline->set_options(options);
    }
    PreparedRun prepared;
    auto start = std::chrono::steady_clock::now();
    pipeline->compile_jit(target);
    prepared.compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // As Halide's realize(sizes) does: a bounds query first, for a schedule that writes past the
    // requested region (Auto rounds an update's pure loops up), then runs over the region it
    // writes, whose requested part is the result.
    std::vector<Buffer<>> query;
    for (int o : p.outputs) {
        for (size_t k = 0; k < p.funcs[o].types.size(); k++) {
            query.push_back(Buffer<>::from_contents(loom::Internal::BufferContents::bounds_query(
                loom_type(p.funcs[o].types[k]), p.out_extents,
                p.funcs[o].name + "_out" + std::to_string(k))));
            query.back().set_min(p.out_mins);
        }
    }
    pipeline->realize(RealizationArg(query), target);
    for (const Buffer<> &q : query) {
        std::vector<int> extents, mins;
        for (int d = 0; d < q.dimensions(); d++) {
            extents.push_back(q.dim(d).extent());
            mins.push_back(q.dim(d).min());
        }
        prepared.whole.emplace_back(q.type(), extents, q.name());
        prepared.whole.back().set_min(mins);
    }
    std::vector<Buffer<>> whole = prepared.whole;
    prepared.run = [pipeline, whole, target]() mutable {
        pipeline->realize(RealizationArg(whole), target);
    };
    return prepared;
}

std::vector<Buffer<>> requested_outputs(const PipelineDesc &p, const std::vector<Buffer<>> &whole) {
    std::vector<Buffer<>> out;
    for (const Buffer<> &w : whole) {
        out.emplace_back(w.type(), p.out_extents, w.name());
        out.back().set_min(p.out_mins);
        copy_region(w, out.back());
    }
    return out;
}

std::string loom_lowered(const PipelineDesc &p, const Schedule &s, const std::vector<Buffer<>> &inputs) {
    return Pipeline(loom_outputs(p, s, inputs)).lowered_stmt();
}

std::vector<Buffer<>> realize(const PipelineDesc &p, const Schedule &s,
                              const std::vector<Buffer<>> &inputs, Timing *timing,
                              const BeforeCompile &before_compile, const Target &target) {
    PreparedRun prepared = prepare_loom(p, s, inputs, true, before_compile, target);
    auto start = std::chrono::steady_clock::now();
    prepared.run();
    std::vector<Buffer<>> result = requested_outputs(p, prepared.whole);
    if (timing) {
        timing->compile_ms += prepared.compile_ms;
        timing->run_ms +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return result;
}

}  // namespace loom_fuzz
