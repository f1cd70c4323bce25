// Builds a PipelineDesc with Halide 14: the backend of FuzzBackend.inc in a namespace that uses
// Halide, over Halide buffers that view the memory of Loom's.

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include "FuzzHalide.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "FuzzEmit.h"

namespace loom_fuzz {

namespace with_halide {

namespace L = Halide;
using namespace Halide;
using InputBuffer = Buffer<>;

Type elem_type(ET t) {
    loom::Type l = loom_type(t);
    return Type((halide_type_code_t)l.code, l.bits(), 1);
}
RDom make_rdom(const RDomDesc &rd) {
    Region region;
    for (size_t i = 0; i < rd.mins.size(); i++) region.emplace_back(rd.mins[i], rd.extents[i]);
    return RDom(region, rd.name);
}
VarOrRVar named_loop(const std::string &name, bool rvar) {
    return rvar ? VarOrRVar(RVar(name)) : VarOrRVar(Var(name));
}
Stage stage_of(Func f, int k) { return k == 0 ? Stage(f) : f.update(k - 1); }
// Halide 14 rejects a LoopLevel that names its stage even where it lists that very loop as
// legal (see test/schedule/HalideScheduleDiff.h); without one it matches loop v of the
// stage that uses the producer, which is the one the schedule generator names.
LoopLevel stage_level(Func f, int, const VarOrRVar &v) { return LoopLevel(f, v); }

#include "FuzzBackend.inc"

/** A Halide buffer over the memory of a Loom buffer: same mins, extents and strides. */
Buffer<> view(const loom::Buffer<> &b) {
    std::vector<halide_dimension_t> dims;
    for (int d = 0; d < b.dimensions(); d++) {
        dims.push_back(halide_dimension_t(b.dim(d).min(), b.dim(d).extent(), b.dim(d).stride()));
    }
    halide_type_t type((halide_type_code_t)b.type().code, b.type().bits(), 1);
    return Buffer<>(type, b.raw_data(), (int)dims.size(), dims.data(), b.name());
}

// Halide's warnings (an unscheduled update beside scheduled ones, abs of an unsigned value)
// are about schedules the generator writes on purpose: dropped, so that the fuzzer's output
// stays one line a pair. Errors still throw, as Halide's own reporter does.
class QuietReporter : public CompileTimeErrorReporter {
public:
    void warning(const char *) override {}
    void error(const char *msg) override { throw std::runtime_error(msg); }
};

const Target &target() {
    static QuietReporter reporter;
    static const bool quiet = (set_custom_compile_time_error_reporter(&reporter), true);
    (void)quiet;
    static const Target t = get_host_target()
                                .without_feature(Target::AVX512_SapphireRapids)
                                .with_feature(Target::StrictFloat);
    return t;
}

std::vector<Buffer<>> views(const std::vector<loom::Buffer<>> &inputs) {
    std::vector<Buffer<>> v;
    for (const loom::Buffer<> &b : inputs) v.push_back(view(b));
    return v;
}

// Halide's intermediates come from Loom's heap too (apps/common/HalideRunner.h says why: Loom's
// keeps freed blocks between runs; on malloc the peer would pay page faults Loom does not, and
// the ratio would compare allocators). Halide may read 8 bytes past a block's end.
void *peer_malloc(JITUserContext *, size_t bytes) { return loom_malloc(nullptr, (int64_t)bytes + 64); }
void peer_free(JITUserContext *, void *ptr) { loom_free(nullptr, ptr); }

Pipeline pipeline_of(const PipelineDesc &p, const Backend &b) {
    std::vector<Func> outputs;
    for (int o : p.outputs) outputs.push_back(b.funcs[o]);
    return Pipeline(outputs);
}

}  // namespace with_halide

PreparedRun prepare_halide(const PipelineDesc &p, const Schedule &s,
                           const std::vector<loom::Buffer<>> &inputs) {
    using namespace with_halide;
    Backend b = build(p, s, views(inputs));
    auto pipeline = std::make_shared<Halide::Pipeline>(pipeline_of(p, b));
    pipeline->jit_handlers().custom_malloc = peer_malloc;
    pipeline->jit_handlers().custom_free = peer_free;
    PreparedRun prepared;
    auto start = std::chrono::steady_clock::now();
    pipeline->compile_jit(target());
    prepared.compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // Halide's realize(sizes) does the same: outputs without memory are a bounds query.
    std::vector<Halide::Buffer<>> query;
    for (int o : p.outputs) {
        for (ET t : p.funcs[o].types) {
            query.emplace_back(elem_type(t), nullptr, p.out_extents);
            query.back().set_min(p.out_mins);
        }
    }
    Halide::Realization query_realization(query);
    pipeline->realize(query_realization, target());
    size_t i = 0;
    for (int o : p.outputs) {
        for (size_t k = 0; k < p.funcs[o].types.size(); k++, i++) {
            const Halide::Buffer<> &q = query_realization[i];
            std::vector<int> extents, mins;
            for (int d = 0; d < q.dimensions(); d++) {
                extents.push_back(q.dim(d).extent());
                mins.push_back(q.dim(d).min());
            }
            prepared.whole.emplace_back(loom_type(p.funcs[o].types[k]), extents,
                                        p.funcs[o].name + "_out" + std::to_string(k));
            prepared.whole.back().set_min(mins);
        }
    }
    std::vector<Halide::Buffer<>> whole = views(prepared.whole);
    auto realization = std::make_shared<Halide::Realization>(whole);
    // The backend's Funcs and inputs stay alive with the pipeline that calls them.
    auto keep = std::make_shared<Backend>(std::move(b));
    prepared.run = [pipeline, realization, keep] { pipeline->realize(*realization, target()); };
    return prepared;
}

std::string halide_lowered(const PipelineDesc &p, const Schedule &s,
                           const std::vector<loom::Buffer<>> &inputs) {
    using namespace with_halide;
    Backend b = build(p, s, views(inputs));
    char path[] = "/tmp/loom_perf_fuzz_stmt_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return "(no temporary file for Halide's lowered statement)";
    close(fd);
    pipeline_of(p, b).compile_to_lowered_stmt(path, {}, Halide::StmtOutputFormat::Text, target());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path);
    return text.str();
}

}  // namespace loom_fuzz
