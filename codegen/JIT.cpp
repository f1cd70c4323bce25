#include "codegen/JIT.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/CodeGen_LLVM.h"
#include "codegen/DeviceGlue.h"
#include "codegen/JITCache.h"
#include "codegen/JITCacheKey.h"
#include "codegen/KeyWriter.h"
#include "codegen/LLVMTarget.h"
#include "codegen/LoopOutlining.h"
#include "codegen/ParallelCompile.h"
#include "codegen/PerfMap.h"
#include "codegen/TargetMachinePool.h"
#include "dsl/Error.h"
#include "runtime/loom_runtime.h"

namespace loom {
namespace Internal {

// The module cache slots of a pipeline's kernels (codegen/DeviceGlue.h), where its objects
// put them in memory. Filled while the objects link, which ORC may do on other threads.
struct KernelModuleSlots {
    std::mutex lock;
    std::vector<void **> slots;
};

struct JITModule::Impl {
    std::unique_ptr<llvm::orc::LLJIT> jit;
    std::shared_ptr<KernelModuleSlots> kernel_modules; // null: the target has no CUDA
};

// The kernels' CUDA modules go with the code that launched them: unloaded before the memory
// holding their slots is freed with the JIT.
JITModule::~JITModule() {
    if (!impl || !impl->kernel_modules) return;
    std::vector<void **> &slots = impl->kernel_modules->slots;
    if (!slots.empty()) loom_cuda_unload_modules(nullptr, slots.data(), (int32_t)slots.size());
}

namespace {

std::string error_text(llvm::Error e) {
    std::string text;
    llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase &info) { text += info.message(); });
    return text;
}

template<typename T>
T check(llvm::Expected<T> value, const char *what) {
    if (!value) internal_error << what << ": " << error_text(value.takeError());
    return std::move(*value);
}

// LLJIT's IR compile layer is never used: Loom hands it machine code compiled on its own
// threads (codegen/ParallelCompile). By default LLJIT would make a TargetMachine for that
// layer, and another to learn the data layout, on every compile (~0.3 ms each); this
// compiler stands in for the layer's, and the data layout comes from Loom's own machine.
class NoIRCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
    NoIRCompiler() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module &) override {
        return llvm::make_error<llvm::StringError>("Loom's JIT is given objects, not LLVM IR",
                                                   llvm::inconvertibleErrorCode());
    }
};

// The runtime's entry points that the run's JITUserContext may take over: the compiled code
// passes the context Pipeline::realize gave it as the user context of every runtime call.
JITUserContext *run_context(void *user_context) {
    return static_cast<JITUserContext *>(user_context);
}

void jit_print(void *user_context, const char *message) {
    JITUserContext *c = run_context(user_context);
    if (c && c->handlers.custom_print) {
        c->handlers.custom_print(c, message);
    } else {
        loom_print(user_context, message);
    }
}

int32_t jit_trace(void *user_context, const loom_trace_event_t *event) {
    JITUserContext *c = run_context(user_context);
    if (c && c->handlers.custom_trace) return c->handlers.custom_trace(c, event);
    if (c && c->handlers.custom_print) {
        // The default handler's line, through custom_print (Halide's default trace handler
        // prints through halide_print), with ids of its own (positive, increasing).
        static std::atomic<int32_t> ids{1};
        char line[4096];
        loom_trace_event_to_string(event, line, sizeof(line) - 1);
        std::strcat(line, "\n");
        c->handlers.custom_print(c, line);
        return ids++;
    }
    return loom_trace(user_context, event);
}

void *jit_malloc(void *user_context, int64_t bytes) {
    JITUserContext *c = run_context(user_context);
    if (c && c->handlers.custom_malloc) return c->handlers.custom_malloc(c, (size_t)bytes);
    return loom_malloc(user_context, bytes);
}

void jit_free(void *user_context, void *ptr) {
    JITUserContext *c = run_context(user_context);
    if (c && c->handlers.custom_free) {
        c->handlers.custom_free(c, ptr);
    } else {
        loom_free(user_context, ptr);
    }
}

using JITTask = int (*)(JITUserContext *, int, uint8_t *);

int32_t jit_do_par_for(void *user_context, loom_task_fn f, int32_t min, int32_t extent,
                       void *closure) {
    JITUserContext *c = run_context(user_context);
    // A task is called with the context as its user context, which is the JITUserContext.
    JITTask task = reinterpret_cast<JITTask>(f);
    if (c && c->handlers.custom_do_par_for)
        return c->handlers.custom_do_par_for(c, task, min, extent, (uint8_t *)closure);
    if (c && c->handlers.custom_do_task) {
        for (int32_t i = min; i < min + extent; i++) {
            if (int result = c->handlers.custom_do_task(c, task, i, (uint8_t *)closure))
                return result;
        }
        return 0;
    }
    return loom_do_par_for(user_context, f, min, extent, closure);
}

// The stream a JIT run's CUDA work goes on: its custom_cuda_get_stream's (Halide's hook), else
// the process's stream handler's. Returns 0 or an error code (reported).
int32_t jit_cuda_stream(void *user_context, void **stream) {
    JITUserContext *c = run_context(user_context);
    if (!c || !c->handlers.custom_cuda_get_stream)
        return loom_cuda_stream_for(user_context, stream);
    *stream = nullptr;
    // Without a driver there is no context to give: the call itself reports why.
    void *context = loom_cuda_primary_context();
    if (!context) return 0;
    if (int32_t result = c->handlers.custom_cuda_get_stream(c, context, stream)) {
        const std::string message = "JITHandlers::custom_cuda_get_stream returned " +
                                    std::to_string(result) +
                                    " instead of a stream: see why it failed, or leave it unset "
                                    "for the default stream.";
        loom_error(user_context, message.c_str());
        return loom_code_device_error;
    }
    return 0;
}

int32_t jit_cuda_copy_to_device(void *user_context, loom_buffer_t *b, const char *name) {
    void *stream;
    if (int32_t error = jit_cuda_stream(user_context, &stream)) return error;
    return loom_cuda_copy_to_device_on_stream(user_context, stream, b, name);
}

int32_t jit_cuda_copy_to_host(void *user_context, loom_buffer_t *b, const char *name) {
    if (!(b->flags & loom_buffer_device_dirty)) return 0;
    void *stream;
    if (int32_t error = jit_cuda_stream(user_context, &stream)) return error;
    return loom_cuda_copy_to_host_on_stream(user_context, stream, b, name);
}

int32_t jit_cuda_device_free(void *user_context, loom_buffer_t *b) {
    void *stream;
    if (int32_t error = jit_cuda_stream(user_context, &stream)) return error;
    return loom_cuda_device_free_on_stream(user_context, stream, b);
}

int32_t jit_cuda_launch(void *user_context, void **module_cache, const char *ptx,
                        const char *kernel_name, int32_t grid_x, int32_t grid_y, int32_t grid_z,
                        int32_t block_x, int32_t block_y, int32_t block_z, void **args) {
    void *stream;
    if (int32_t error = jit_cuda_stream(user_context, &stream)) return error;
    return loom_cuda_launch_on_stream(user_context, stream, module_cache, ptx, kernel_name, grid_x,
                                      grid_y, grid_z, block_x, block_y, block_z, args);
}

// The runtime functions compiled code may call, by name.
const JITExternAddresses &runtime_functions() {
    static const JITExternAddresses functions = [] {
        JITExternAddresses symbols;
        auto add = [&](const char *name, auto *fn) {
            symbols[name] = reinterpret_cast<void *>(fn);
        };
        add("loom_malloc", &jit_malloc);
        add("loom_free", &jit_free);
        add("loom_error", &loom_error);
        add("loom_error_access_out_of_bounds", &loom_error_access_out_of_bounds);
        add("loom_error_out_of_memory", &loom_error_out_of_memory);
        add("loom_error_buffer_allocation_too_large", &loom_error_buffer_allocation_too_large);
        add("loom_error_param_out_of_range", &loom_error_param_out_of_range);
        add("loom_error_output_too_small", &loom_error_output_too_small);
        add("loom_do_par_for", &jit_do_par_for);
        add("loom_do_fork", &loom_do_fork);
        add("loom_semaphore_init", &loom_semaphore_init);
        add("loom_semaphore_release", &loom_semaphore_release);
        add("loom_semaphore_acquire", &loom_semaphore_acquire);
        add("loom_error_bound_too_small", &loom_error_bound_too_small);
        add("loom_buffer_is_bounds_query", &loom_buffer_is_bounds_query);
        add("loom_buffer_bounds_query", &loom_buffer_bounds_query);
        add("loom_error_fold_too_small", &loom_error_fold_too_small);
        add("loom_debug_to_file", &loom_debug_to_file);
        add("loom_error_debug_to_file_failed", &loom_error_debug_to_file_failed);
        add("loom_error_bad_buffer", &loom_error_bad_buffer);
        add("loom_cpu_has_features", &loom_cpu_has_features);
        add("loom_cuda_copy_to_device", &jit_cuda_copy_to_device);
        add("loom_cuda_copy_to_host", &jit_cuda_copy_to_host);
        add("loom_cuda_mark_device_dirty", &loom_cuda_mark_device_dirty);
        add("loom_cuda_mark_host_dirty", &loom_cuda_mark_host_dirty);
        add("loom_cuda_device_free", &jit_cuda_device_free);
        add("loom_cuda_launch", &jit_cuda_launch);
        add("loom_trace", &jit_trace);
        add("loom_print", &jit_print);
        add("loom_error_requirement_failed", &loom_error_requirement_failed);
        add("loom_error_extern_stage_failed", &loom_error_extern_stage_failed);
        add("loom_memoization_cache_lookup", &loom_memoization_cache_lookup);
        add("loom_memoization_cache_store", &loom_memoization_cache_store);
        add("loom_error_extern_bounds_query_failed", &loom_error_extern_bounds_query_failed);
        add("loom_append_string", &loom_append_string);
        add("loom_append_int64", &loom_append_int64);
        add("loom_append_uint64", &loom_append_uint64);
        add("loom_append_double", &loom_append_double);
        // llvm.fma on a CPU without FMA instructions (Loom's exp uses it): given here so that a
        // statically linked binary, whose libm symbols the process search may not see, runs it.
        add("fmaf", static_cast<float (*)(float, float, float)>(&::fmaf));
        add("fma", static_cast<double (*)(double, double, double)>(&::fma));
        return symbols;
    }();
    return functions;
}

llvm::orc::SymbolMap absolute_symbols(llvm::orc::LLJIT &jit, const JITExternAddresses &functions) {
    llvm::orc::SymbolMap symbols;
    for (const auto &[name, address] : functions) {
        symbols[jit.mangleAndIntern(name)] = llvm::orc::ExecutorSymbolDef(
            llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported);
    }
    return symbols;
}

// Records where each object's kernel module slots landed, once the object is fixed up in
// memory: the words of its section of slots (local symbols, which no JIT lookup finds, and
// whose names the object need not keep).
class KernelModuleSlotFinder : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
    explicit KernelModuleSlotFinder(std::shared_ptr<KernelModuleSlots> found)
        : found(std::move(found)) {}

    void modifyPassConfig(llvm::orc::MaterializationResponsibility &, llvm::jitlink::LinkGraph &,
                          llvm::jitlink::PassConfiguration &config) override {
        config.PostFixupPasses.push_back([found = found](llvm::jitlink::LinkGraph &g) {
            llvm::jitlink::Section *section = g.findSectionByName(kernel_module_section());
            if (!section) return llvm::Error::success();
            std::lock_guard<std::mutex> hold(found->lock);
            for (llvm::jitlink::Block *b : section->blocks()) {
                char *start = b->getAddress().toPtr<char *>();
                for (uint64_t at = 0; at + sizeof(void *) <= b->getSize(); at += sizeof(void *))
                    found->slots.push_back(reinterpret_cast<void **>(start + at));
            }
            return llvm::Error::success();
        });
    }
    llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility &) override {
        return llvm::Error::success();
    }
    llvm::Error notifyRemovingResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey) override {
        return llvm::Error::success();
    }
    void notifyTransferringResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey,
                                     llvm::orc::ResourceKey) override {}

private:
    std::shared_ptr<KernelModuleSlots> found;
};

} // namespace

bool is_jit_runtime_function(const std::string &name) {
    return runtime_functions().count(name) != 0;
}

namespace {

unsigned thread_count(int compile_threads) {
    return compile_threads > 0 ? (unsigned)compile_threads
                               : std::max(1u, std::thread::hardware_concurrency());
}

// The module the JIT compiles on `threads` threads.
std::unique_ptr<llvm::Module> codegen_for_jit(const LoweredPipeline &pipeline,
                                              llvm::LLVMContext &ctx, llvm::TargetMachine &tm,
                                              unsigned threads, bool verify = true) {
    return codegen_llvm(pipeline, ctx, tm, outlining_helps(pipeline.body, threads) ? threads : 0,
                        verify);
}

std::unique_ptr<llvm::Module> build_optimized(const LoweredPipeline &pipeline,
                                              llvm::LLVMContext &ctx, llvm::TargetMachine &tm,
                                              int compile_threads) {
    std::unique_ptr<llvm::Module> m =
        codegen_for_jit(pipeline, ctx, tm, thread_count(compile_threads));
    optimize_module(*m, tm);
    return m;
}

} // namespace

// Links machine code into a fresh JIT. A friend of JITModule; returns an error rather than
// throwing, so that a cached entry that does not link falls back to a compile. Needs no
// TargetMachine (nor LLVM's registered targets): JITLink reads the objects, and the machine's
// description and data layout are given.
struct JITLinker {
    static llvm::Expected<std::shared_ptr<JITModule>>
    link(const std::string &entry_name, const std::vector<std::string> &objects,
         const MachineSpec &machine, const std::string &data_layout,
         const JITExternAddresses &externs, bool launches_kernels) {
        llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(machine.triple)};
        jtmb.setCPU(machine.cpu);
        jtmb.addFeatures(std::vector<std::string>{machine.features});

        auto layout = llvm::DataLayout::parse(data_layout);
        if (!layout) return layout.takeError();
        llvm::orc::LLJITBuilder builder;
        builder.setJITTargetMachineBuilder(std::move(jtmb));
        builder.setDataLayout(std::move(*layout));
        // The objects have no static initializers to run (Loom emits none), so the JIT needs
        // no platform support for them; setting it up cost about 0.1 ms per link.
        builder.setPlatformSetUp(llvm::orc::setUpInactivePlatform);
        builder.setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder)
            -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
            return std::make_unique<NoIRCompiler>();
        });
        auto jit = builder.create();
        if (!jit) return jit.takeError();
        std::shared_ptr<KernelModuleSlots> kernel_modules;
        if (launches_kernels) {
            auto *layer =
                llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&(*jit)->getObjLinkingLayer());
            internal_assert(layer) << "The JIT links with RuntimeDyld, where Loom expects JITLink: "
                                      "the kernels' modules could not be unloaded";
            kernel_modules = std::make_shared<KernelModuleSlots>();
            layer->addPlugin(std::make_unique<KernelModuleSlotFinder>(kernel_modules));
        }
        llvm::orc::JITDylib &lib = (*jit)->getMainJITDylib();
        if (auto e = lib.define(
                llvm::orc::absoluteSymbols(absolute_symbols(**jit, runtime_functions()))))
            return e;
        // Defined before the process is searched, so that they take the place of its symbols.
        if (!externs.empty()) {
            if (auto e = lib.define(llvm::orc::absoluteSymbols(absolute_symbols(**jit, externs))))
                return e;
        }
        auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            (*jit)->getDataLayout().getGlobalPrefix());
        if (!process) return process.takeError();
        lib.addGenerator(std::move(*process));
        for (const std::string &object : objects) {
            if (auto e = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object, entry_name)))
                return e;
        }
        auto addr = (*jit)->lookup(entry_name);
        if (!addr) return addr.takeError();
        std::shared_ptr<JITModule> result(new JITModule);
        result->impl = std::make_unique<JITModule::Impl>();
        result->impl->kernel_modules = std::move(kernel_modules);
        result->entry_point = addr->toPtr<JITModule::Entry>();
        if (perf_map_wanted()) {
            append_to_perf_map(objects, [&](const std::string &name) -> uint64_t {
                auto found = (*jit)->lookup(name);
                if (!found) {
                    llvm::consumeError(found.takeError());
                    return 0;
                }
                return found->getValue();
            });
        }
        result->impl->jit = std::move(*jit);
        return result;
    }
};

namespace {

// An entry's interface (JITCacheEntry::interface): what the code expects of the process that
// links it. First the data layout it was compiled for (the JIT needs one, and making a
// TargetMachine to learn it would cost a hit more than the rest of the load), then the entry
// point's name and the arguments in the order it reads them, with what each is bound to in
// realize() (an embedded Buffer, a Param or ImageParam, an output). The objects' symbols say
// nothing of the order of arguments: an entry is run only where this part matches.
std::string interface_of(const std::string &name, const std::vector<LoweredArgument> &args) {
    KeyWriter w;
    w.str(name);
    w.u64(args.size());
    for (const LoweredArgument &a : args) {
        w.str(a.name);
        w.u64(a.kind);
        w.type(a.type);
        w.u64((uint64_t)a.dimensions);
        w.u64((uint64_t)a.value_index);
        w.u64(a.buffer ? 1 : a.param ? 2 : a.output ? 3 : 0);
    }
    return std::move(w.out);
}

std::string entry_interface(const std::string &data_layout, const std::string &name,
                            const std::vector<LoweredArgument> &args) {
    KeyWriter w;
    w.str(data_layout);
    return w.out + interface_of(name, args);
}

// The data layout an entry's interface gives, if the rest of it is `expected`.
std::optional<std::string> data_layout_of(const std::string &interface,
                                          const std::string &expected) {
    uint32_t n;
    if (interface.size() < 4) return std::nullopt;
    std::memcpy(&n, interface.data(), 4);
    if (interface.size() - 4 < n || interface.compare(4 + n, std::string::npos, expected) != 0) {
        return std::nullopt;
    }
    return interface.substr(4, n);
}

}  // namespace

std::shared_ptr<JITModule>
JITModule::load_cached(const std::string &definition, const std::string &name,
                       const std::vector<LoweredArgument> &args, const Target &target,
                       const CompileOptions &options, const JITExternAddresses &externs) {
    const JITCache cache(options);
    if (!cache.enabled()) return nullptr;
    const MachineSpec machine = machine_spec(target);
    const std::string key =
        jit_cache_key(definition, target, machine, thread_count(options.compile_threads));
    std::optional<JITCacheEntry> entry = cache.load(key);
    if (!entry) return nullptr;
    // The key holds everything the arguments are inferred from, so a difference here is a
    // key that misses something: the entry is dropped rather than run with wrong arguments.
    std::optional<std::string> data_layout = data_layout_of(entry->interface, interface_of(name, args));
    if (!data_layout) {
        cache.forget(key, "its entry point or arguments differ from the pipeline's");
        return nullptr;
    }
    auto linked = JITLinker::link(name, entry->objects, machine, *data_layout, externs,
                                  target.has_feature(Target::CUDA));
    if (!linked) {
        cache.forget(key, "its objects do not link: " + error_text(linked.takeError()));
        return nullptr;
    }
    (*linked)->from_cache = true;
    return std::move(*linked);
}

std::shared_ptr<JITModule> JITModule::compile(const LoweredPipeline &pipeline, const Target &target,
                                              const CompileOptions &options,
                                              const std::string &definition,
                                              const JITExternAddresses &externs) {
    initialize_llvm();
    PooledTargetMachine tm = borrow_target_machine(target);
    const unsigned threads = thread_count(options.compile_threads);
    ModuleBuilder build = [&pipeline, threads](llvm::LLVMContext &ctx, llvm::TargetMachine &tm,
                                               bool verify) {
        return codegen_for_jit(pipeline, ctx, tm, threads, verify);
    };
    std::vector<std::string> objects = compile_to_objects(build, *tm, target, threads);
    const MachineSpec machine = machine_spec(target);
    const std::string data_layout = tm->createDataLayout().getStringRepresentation();
    std::shared_ptr<JITModule> result =
        check(JITLinker::link(pipeline.name, objects, machine, data_layout, externs,
                              target.has_feature(Target::CUDA)),
              "Linking the compiled pipeline");
    // Stored only once the objects linked: an entry is code that ran through the linker.
    // Entries are keyed by the definition alone, not also by the lowered code: the cache's
    // purpose is a repeated program, which repeats its definitions exactly, while a second
    // key per entry would cost a second file (or a second lookup on every hit) for the rare
    // pipelines whose different definitions lower alike. Within one process, Pipeline still
    // reuses code whose lowering did not change.
    const JITCache cache(options);
    if (cache.enabled() && !definition.empty()) {
        cache.store(jit_cache_key(definition, target, machine, threads),
                    JITCacheEntry{entry_interface(data_layout, pipeline.name, pipeline.args),
                                  std::move(objects)});
    }
    return result;
}

std::string compile_to_llvm_ir(const LoweredPipeline &pipeline, const Target &target,
                               int compile_threads) {
    PooledTargetMachine tm = borrow_target_machine(target);
    llvm::LLVMContext ctx;
    return module_to_llvm_ir(*build_optimized(pipeline, ctx, *tm, compile_threads));
}

std::string compile_to_assembly_text(const LoweredPipeline &pipeline, const Target &target,
                                     int compile_threads) {
    PooledTargetMachine tm = borrow_target_machine(target);
    llvm::LLVMContext ctx;
    return module_to_assembly(*build_optimized(pipeline, ctx, *tm, compile_threads), *tm);
}

}  // namespace Internal
}  // namespace loom
