/* The CUDA Driver API glue behind pipelines compiled for Target::CUDA (declared in
 * loom_runtime.h): loading the driver, kernels and events. Device memory and copies are in
 * loom_cuda_memory.c.
 *
 * The driver is opened with dlopen at first use rather than linked, so that the runtime (and
 * every ahead-of-time library that embeds it) loads on machines without an NVIDIA driver; only
 * running a CUDA pipeline there fails, with a message saying so. For the same reason no CUDA
 * header is included: the few types and entry points used are declared below, with the
 * layouts and values of the driver's cuda.h.
 *
 * All work happens in the primary context of one device (LOOM_GPU_DEVICE, else Halide's
 * HL_GPU_DEVICE, else 0), the context the CUDA runtime and other libraries in the process
 * share, so device pointers can be exchanged with them. A context is
 * current per thread, so every entry point makes it current before its first driver call:
 * pipelines run parallel loops on worker threads.
 *
 * Kernels and copies go on the context's default stream unless the caller names another (the
 * _on_stream entry points; the others ask the stream handler, Halide's halide_cuda_get_stream).
 * Copies to the host wait for their stream, so a buffer's flags are true when a copy returns. */
#define _POSIX_C_SOURCE 200809L

#include "loom_cuda_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cuda_driver_t loom_cuda_driver;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

/* Guards every module_cache slot passed to loom_cuda_launch, so that two threads launching
 * from the same module for the first time load it once, and loaded_modules. */
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t loaded_modules = 0;

static const char *const kNoCudaAdvice =
    "run on a machine with an NVIDIA GPU and driver, or compile the pipeline without "
    "Target::CUDA";

/* Writes "CUDA_ERROR_NAME (description)" for result. Works before the error functions are
 * loaded, and for codes the driver does not know. */
static void describe_result(CUresult result, char *out, size_t out_size) {
    const char *name = NULL, *description = NULL;
    if (loom_cuda_driver.cuGetErrorName &&
        loom_cuda_driver.cuGetErrorName(result, &name) != CUDA_SUCCESS) {
        name = NULL;
    }
    if (loom_cuda_driver.cuGetErrorString &&
        loom_cuda_driver.cuGetErrorString(result, &description) != CUDA_SUCCESS) {
        description = NULL;
    }
    if (name && description) {
        snprintf(out, out_size, "%s (%s)", name, description);
    } else {
        snprintf(out, out_size, "CUDA error %d", result);
    }
}

/* Records why the driver cannot be used, as a sentence for loom_cuda_available and messages. */
static void set_unusable(CUresult result, const char *what_failed) {
    char described[256];
    describe_result(result, described, sizeof described);
    snprintf(loom_cuda_driver.why_unusable, sizeof loom_cuda_driver.why_unusable,
             "%s failed with %s: %s.", what_failed, described, kNoCudaAdvice);
}

/* The pthread_once body: opens libcuda, resolves the entry points, initializes the driver and
 * retains the chosen device's primary context. On any failure leaves loom_cuda_driver.usable 0 with
 * the reason; the failure is kept, as the driver itself keeps a failed cuInit. */
static void load_driver(void) {
    /* Where the driver versions an entry point, the _v2 name is the one with 64-bit sizes and
     * pointers; the unversioned name keeps the old 32-bit ABI. */
    const struct {
        const char *name;
        void *slot; /* address of the function pointer field */
    } symbols[] = {
        {"cuGetErrorName", &loom_cuda_driver.cuGetErrorName},
        {"cuGetErrorString", &loom_cuda_driver.cuGetErrorString},
        {"cuInit", &loom_cuda_driver.cuInit},
        {"cuDeviceGetCount", &loom_cuda_driver.cuDeviceGetCount},
        {"cuDeviceGet", &loom_cuda_driver.cuDeviceGet},
        {"cuDeviceGetAttribute", &loom_cuda_driver.cuDeviceGetAttribute},
        {"cuDevicePrimaryCtxRetain", &loom_cuda_driver.cuDevicePrimaryCtxRetain},
        {"cuCtxSetCurrent", &loom_cuda_driver.cuCtxSetCurrent},
        {"cuCtxSynchronize", &loom_cuda_driver.cuCtxSynchronize},
        {"cuModuleLoadDataEx", &loom_cuda_driver.cuModuleLoadDataEx},
        {"cuModuleGetFunction", &loom_cuda_driver.cuModuleGetFunction},
        {"cuModuleUnload", &loom_cuda_driver.cuModuleUnload},
        {"cuLaunchKernel", &loom_cuda_driver.cuLaunchKernel},
        {"cuMemAlloc_v2", &loom_cuda_driver.cuMemAlloc},
        {"cuMemFree_v2", &loom_cuda_driver.cuMemFree},
        {"cuMemcpyHtoD_v2", &loom_cuda_driver.cuMemcpyHtoD},
        {"cuMemcpyDtoH_v2", &loom_cuda_driver.cuMemcpyDtoH},
        {"cuEventCreate", &loom_cuda_driver.cuEventCreate},
        {"cuEventRecord", &loom_cuda_driver.cuEventRecord},
        {"cuEventSynchronize", &loom_cuda_driver.cuEventSynchronize},
        {"cuEventElapsedTime", &loom_cuda_driver.cuEventElapsedTime},
        {"cuMemsetD32Async", &loom_cuda_driver.cuMemsetD32Async},
        {"cuEventDestroy_v2", &loom_cuda_driver.cuEventDestroy},
        {"cuStreamWaitEvent", &loom_cuda_driver.cuStreamWaitEvent},
        {"cuStreamSynchronize", &loom_cuda_driver.cuStreamSynchronize},
        {"cuMemcpyHtoDAsync_v2", &loom_cuda_driver.cuMemcpyHtoDAsync},
        {"cuMemcpyDtoHAsync_v2", &loom_cuda_driver.cuMemcpyDtoHAsync},
    };

    /* Never closed: modules, allocations and the context live until the process exits. */
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(loom_cuda_driver.why_unusable, sizeof loom_cuda_driver.why_unusable,
                 "libcuda.so.1 could not be loaded (%s): %s.", reason ? reason : "no reason given",
                 kNoCudaAdvice);
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *address = dlsym(library, symbols[i].name);
        if (!address) {
            snprintf(loom_cuda_driver.why_unusable, sizeof loom_cuda_driver.why_unusable,
                     "libcuda.so.1 has no entry point %s, so the NVIDIA driver is too old: "
                     "update the driver, or compile the pipeline without Target::CUDA.",
                     symbols[i].name);
            return;
        }
        memcpy(symbols[i].slot, &address, sizeof address);
    }

    CUresult result = loom_cuda_driver.cuInit(0);
    if (result != CUDA_SUCCESS) {
        set_unusable(result, "cuInit (initializing the CUDA driver)");
        return;
    }
    int device_count = 0;
    result = loom_cuda_driver.cuDeviceGetCount(&device_count);
    if (result != CUDA_SUCCESS) {
        set_unusable(result, "cuDeviceGetCount (counting CUDA devices)");
        return;
    }
    if (device_count < 1) {
        snprintf(loom_cuda_driver.why_unusable, sizeof loom_cuda_driver.why_unusable,
                 "The CUDA driver reports no devices (check nvidia-smi and "
                 "CUDA_VISIBLE_DEVICES): %s.",
                 kNoCudaAdvice);
        return;
    }
    /* Which device: Loom's variable, else Halide's (HL_GPU_DEVICE), else the first. */
    const char *chosen = getenv("LOOM_GPU_DEVICE");
    const char *variable = "LOOM_GPU_DEVICE";
    if (!chosen || !*chosen) {
        chosen = getenv("HL_GPU_DEVICE");
        variable = "HL_GPU_DEVICE";
    }
    loom_cuda_driver.device = 0;
    if (chosen && *chosen) {
        char *end = NULL;
        long ordinal = strtol(chosen, &end, 10);
        if (*end != '\0' || ordinal < 0 || ordinal >= device_count) {
            snprintf(loom_cuda_driver.why_unusable, sizeof loom_cuda_driver.why_unusable,
                     "%s is \"%s\", but the CUDA driver reports %d device%s (numbered from 0; "
                     "check nvidia-smi and CUDA_VISIBLE_DEVICES): set it to one of them, or "
                     "unset it to use device 0.",
                     variable, chosen, device_count, device_count == 1 ? "" : "s");
            return;
        }
        loom_cuda_driver.device = (int)ordinal;
    }
    CUdevice device;
    char doing[128];
    snprintf(doing, sizeof doing, "cuDeviceGet (opening CUDA device %d)", loom_cuda_driver.device);
    result = loom_cuda_driver.cuDeviceGet(&device, loom_cuda_driver.device);
    if (result != CUDA_SUCCESS) {
        set_unusable(result, doing);
        return;
    }
    int *const limits[7] = {
        &loom_cuda_driver.max_threads_per_block, &loom_cuda_driver.max_block_dim[0],
        &loom_cuda_driver.max_block_dim[1],      &loom_cuda_driver.max_block_dim[2],
        &loom_cuda_driver.max_grid_dim[0],       &loom_cuda_driver.max_grid_dim[1],
        &loom_cuda_driver.max_grid_dim[2]};
    for (int i = 0; i < 7; i++) {
        CUdevice_attribute attribute =
            (CUdevice_attribute)(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK + i);
        result = loom_cuda_driver.cuDeviceGetAttribute(limits[i], attribute, device);
        if (result != CUDA_SUCCESS) {
            snprintf(doing, sizeof doing,
                     "cuDeviceGetAttribute (reading the launch limits of device %d)",
                     loom_cuda_driver.device);
            set_unusable(result, doing);
            return;
        }
    }
    result = loom_cuda_driver.cuDevicePrimaryCtxRetain(&loom_cuda_driver.context, device);
    if (result != CUDA_SUCCESS) {
        snprintf(doing, sizeof doing,
                 "cuDevicePrimaryCtxRetain (creating the context of device %d)",
                 loom_cuda_driver.device);
        set_unusable(result, doing);
        return;
    }
    loom_cuda_driver.usable = 1;
}

static int load_driver_once(void) {
    pthread_once(&driver_once, load_driver);
    return loom_cuda_driver.usable;
}

/* --- Error reporting ---------------------------------------------------------------------- */

int32_t loom_cuda_report_failure(void *user_context, CUresult result, const char *advice,
                                 const char *format, ...) {
    char what_failed[512], described[256], message[1024];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(what_failed, sizeof what_failed, format, arguments);
    va_end(arguments);
    describe_result(result, described, sizeof described);
    snprintf(message, sizeof message, "%s failed with %s. %s", what_failed, described, advice);
    loom_error(user_context, message);
    return loom_code_device_error;
}

int32_t loom_cuda_report_problem(void *user_context, const char *format, ...) {
    char message[1024];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    loom_error(user_context, message);
    return loom_code_device_error;
}

int32_t loom_cuda_enter_driver(void *user_context, const char *doing, const char *subject) {
    if (!load_driver_once()) {
        return loom_cuda_report_problem(user_context, "CUDA is unavailable for %s %s: %s", doing,
                                        subject, loom_cuda_driver.why_unusable);
    }
    CUresult result = loom_cuda_driver.cuCtxSetCurrent(loom_cuda_driver.context);
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(
            user_context, result,
            "The driver rejected the device's primary context; check the GPU "
            "with nvidia-smi.",
            "cuCtxSetCurrent (making the CUDA context current for %s %s)", doing, subject);
    }
    return 0;
}

int32_t loom_cuda_available(char *why, size_t why_size) {
    int usable = load_driver_once();
    if (why && why_size > 0) {
        snprintf(why, why_size, "%s", usable ? "" : loom_cuda_driver.why_unusable);
    }
    return usable;
}

/* --- Streams ------------------------------------------------------------------------------ */

static loom_cuda_stream_handler_t stream_handler = NULL;
static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;
static int other_streams_used = 0;

loom_cuda_stream_handler_t loom_cuda_set_stream_handler(loom_cuda_stream_handler_t handler) {
    pthread_mutex_lock(&stream_lock);
    loom_cuda_stream_handler_t previous = stream_handler;
    stream_handler = handler;
    pthread_mutex_unlock(&stream_lock);
    return previous;
}

int32_t loom_cuda_stream_for(void *user_context, void **stream) {
    *stream = NULL;
    pthread_mutex_lock(&stream_lock);
    loom_cuda_stream_handler_t handler = stream_handler;
    pthread_mutex_unlock(&stream_lock);
    if (!handler) return 0;
    if (!load_driver_once()) {
        return loom_cuda_report_problem(user_context, "CUDA is unavailable for asking %s: %s",
                                        "the stream handler for a stream",
                                        loom_cuda_driver.why_unusable);
    }
    int32_t result = handler(user_context, loom_cuda_driver.context, stream);
    if (result != 0) {
        return loom_cuda_report_problem(user_context,
                                        "The CUDA stream handler returned %d instead of a "
                                        "stream: see why it failed, or unset it "
                                        "(loom_cuda_set_stream_handler(NULL)) for the default "
                                        "stream.",
                                        result);
    }
    return 0;
}

void *loom_cuda_primary_context(void) {
    return load_driver_once() ? (void *)loom_cuda_driver.context : NULL;
}

CUstream loom_cuda_use_stream(void *requested) {
    CUstream stream = (CUstream)requested;
    if (!stream) return NULL;
    pthread_mutex_lock(&stream_lock);
    if (!other_streams_used) {
        loom_cuda_driver.cuCtxSynchronize();
        other_streams_used = 1;
    }
    pthread_mutex_unlock(&stream_lock);
    return stream;
}

int loom_cuda_streams_in_use(void) {
    pthread_mutex_lock(&stream_lock);
    int used = other_streams_used;
    pthread_mutex_unlock(&stream_lock);
    return used;
}

/* --- Kernels ------------------------------------------------------------------------------ */

/* Returns the module of *module_cache, loading ptx into it first if the slot is empty. */
static int32_t get_module(void *user_context, void **module_cache, const char *ptx,
                          const char *kernel_name, CUmodule *module) {
    pthread_mutex_lock(&module_lock);
    if (*module_cache) {
        *module = (CUmodule)*module_cache;
        pthread_mutex_unlock(&module_lock);
        return 0;
    }
    char jit_log[4096] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    /* The size travels in the pointer-sized option value itself, as the driver expects. */
    void *option_values[] = {jit_log, (void *)(uintptr_t)sizeof jit_log};
    CUresult result = loom_cuda_driver.cuModuleLoadDataEx(module, ptx, 2, options, option_values);
    if (result == CUDA_SUCCESS) {
        *module_cache = *module;
        loaded_modules++;
    }
    pthread_mutex_unlock(&module_lock);
    if (result != CUDA_SUCCESS) {
        jit_log[sizeof jit_log - 1] = '\0';
        /* ptxas ends its log with a newline; the message goes on after it. */
        for (size_t end = strlen(jit_log);
             end > 0 && (jit_log[end - 1] == '\n' || jit_log[end - 1] == ' '); end--) {
            jit_log[end - 1] = '\0';
        }
        char described[256], message[sizeof jit_log + 1024];
        describe_result(result, described, sizeof described);
        snprintf(message, sizeof message,
                 "cuModuleLoadDataEx (compiling the PTX module of kernel %s) failed with %s. "
                 "JIT log: %s. If the log names an unsupported .target or PTX version, the "
                 "NVIDIA driver is older than the PTX Loom generates: update the driver; "
                 "otherwise this is a Loom bug, please report it with the log.",
                 kernel_name, described, jit_log[0] ? jit_log : "(empty)");
        loom_error(user_context, message);
        return loom_code_device_error;
    }
    return 0;
}

int32_t loom_cuda_unload_modules(void *user_context, void **const *module_caches, int32_t count) {
    int32_t first_error = 0;
    int waited = 0;
    pthread_mutex_lock(&module_lock);
    for (int32_t i = 0; i < count; i++) {
        void **slot = module_caches[i];
        if (!*slot) continue;
        /* A slot is filled only after the driver loaded, so entering it cannot load it now. */
        if (!waited) {
            int32_t error = loom_cuda_enter_driver(user_context, "unloading", "kernel modules");
            if (error) {
                first_error = error;
                break;
            }
            /* A kernel of the module may still be running: unloading waits for the device. */
            loom_cuda_driver.cuCtxSynchronize();
            waited = 1;
        }
        CUresult result = loom_cuda_driver.cuModuleUnload((CUmodule)*slot);
        *slot = NULL;
        loaded_modules--;
        if (result != CUDA_SUCCESS && !first_error) {
            first_error = loom_cuda_report_failure(
                user_context, result, "The CUDA context may be unusable.", "%s",
                "cuModuleUnload (unloading the kernels of a freed pipeline)");
        }
    }
    pthread_mutex_unlock(&module_lock);
    return first_error;
}

int64_t loom_cuda_loaded_module_count(void) {
    pthread_mutex_lock(&module_lock);
    int64_t count = loaded_modules;
    pthread_mutex_unlock(&module_lock);
    return count;
}

int32_t loom_cuda_launch(void *user_context, void **module_cache, const char *ptx,
                         const char *kernel_name, int32_t grid_x, int32_t grid_y, int32_t grid_z,
                         int32_t block_x, int32_t block_y, int32_t block_z, void **args) {
    void *stream;
    int32_t error = loom_cuda_stream_for(user_context, &stream);
    if (error) return error;
    return loom_cuda_launch_on_stream(user_context, stream, module_cache, ptx, kernel_name, grid_x,
                                      grid_y, grid_z, block_x, block_y, block_z, args);
}

int32_t loom_cuda_launch_on_stream(void *user_context, void *stream, void **module_cache,
                                   const char *ptx, const char *kernel_name, int32_t grid_x,
                                   int32_t grid_y, int32_t grid_z, int32_t block_x, int32_t block_y,
                                   int32_t block_z, void **args) {
    const int32_t grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
    int any_zero = 0;
    for (int i = 0; i < 3; i++) {
        if (grid[i] < 0 || block[i] < 0) {
            return loom_cuda_report_problem(
                user_context,
                "Kernel %s was launched with grid %dx%dx%d and blocks "
                "%dx%dx%d; sizes must not be negative. This is a Loom bug; "
                "please report it.",
                kernel_name, grid_x, grid_y, grid_z, block_x, block_y, block_z);
        }
        any_zero |= grid[i] == 0 || block[i] == 0;
    }
    /* An empty loop nest: the driver rejects zero sizes, and there is nothing to run. */
    if (any_zero) {
        return 0;
    }
    int32_t error = loom_cuda_enter_driver(user_context, "launching kernel", kernel_name);
    if (error) return error;
    CUstream on = loom_cuda_use_stream(stream);

    /* The driver would answer CUDA_ERROR_INVALID_VALUE; the limits say which size to change. */
    static const char axis_names[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; i++) {
        if (block[i] > loom_cuda_driver.max_block_dim[i]) {
            return loom_cuda_report_problem(
                user_context,
                "Kernel %s runs blocks of %d threads in %c, but device %d "
                "allows at most %d there: use a smaller gpu_threads size "
                "for that dimension.",
                kernel_name, block[i], axis_names[i], loom_cuda_driver.device,
                loom_cuda_driver.max_block_dim[i]);
        }
        if (grid[i] > loom_cuda_driver.max_grid_dim[i]) {
            return loom_cuda_report_problem(
                user_context,
                "Kernel %s runs a grid of %d blocks in %c, but device %d allows "
                "at most %d there: use larger gpu_blocks tiles, or put the "
                "largest loop in x.",
                kernel_name, grid[i], axis_names[i], loom_cuda_driver.device,
                loom_cuda_driver.max_grid_dim[i]);
        }
    }
    /* Each factor is within its axis limit (at most a few thousand), so this cannot overflow. */
    int64_t threads_per_block = (int64_t)block_x * block_y * block_z;
    if (threads_per_block > loom_cuda_driver.max_threads_per_block) {
        return loom_cuda_report_problem(
            user_context,
            "Kernel %s runs blocks of %dx%dx%d = %lld threads, but device %d "
            "allows at most %d threads per block: use smaller gpu_threads "
            "(gpu_tile) sizes.",
            kernel_name, block_x, block_y, block_z, (long long)threads_per_block,
            loom_cuda_driver.device, loom_cuda_driver.max_threads_per_block);
    }

    CUmodule module;
    error = get_module(user_context, module_cache, ptx, kernel_name, &module);
    if (error) return error;
    CUfunction function;
    CUresult result = loom_cuda_driver.cuModuleGetFunction(&function, module, kernel_name);
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(user_context, result,
                                        "The PTX module does not define the kernel it was launched "
                                        "under: this is a Loom bug; please report it.",
                                        "cuModuleGetFunction (finding kernel %s in its PTX module)",
                                        kernel_name);
    }
    result = loom_cuda_driver.cuLaunchKernel(function, (unsigned)grid_x, (unsigned)grid_y,
                                             (unsigned)grid_z, (unsigned)block_x, (unsigned)block_y,
                                             (unsigned)block_z, 0, on, args, NULL);
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(
            user_context, result,
            "If the error is about resources, the kernel needs more registers "
            "than blocks this large allow: use smaller gpu_threads sizes.",
            "cuLaunchKernel of kernel %s (grid %dx%dx%d, blocks %dx%dx%d)", kernel_name, grid_x,
            grid_y, grid_z, block_x, block_y, block_z);
    }
    return 0;
}

int32_t loom_cuda_mark_device_dirty(void *user_context, loom_buffer_t *b) {
    (void)user_context;
    b->flags = (b->flags & ~(uint32_t)loom_buffer_host_dirty) | loom_buffer_device_dirty;
    return 0;
}

int32_t loom_cuda_mark_host_dirty(void *user_context, loom_buffer_t *b) {
    (void)user_context;
    const uint32_t cleared = loom_buffer_device_dirty | loom_buffer_host_unwritten;
    b->flags = (b->flags & ~cleared) | loom_buffer_host_dirty;
    return 0;
}

int32_t loom_cuda_device_sync(void *user_context) {
    int32_t error = loom_cuda_enter_driver(user_context, "waiting for", "the device");
    if (error) return error;
    CUresult result = loom_cuda_driver.cuCtxSynchronize();
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(
            user_context, result,
            "A kernel launched earlier failed. An illegal address usually means "
            "a pipeline was given a buffer smaller than its dims say; "
            "compute-sanitizer finds the access. Errors of this kind leave the "
            "CUDA context unusable until the process exits.",
            "%s", "Waiting for the device's kernels");
    }
    return 0;
}

int32_t loom_cuda_event_record(void *user_context, void **event) {
    int32_t error = loom_cuda_enter_driver(user_context, "recording", "an event");
    if (error) return error;
    CUresult result = CUDA_SUCCESS;
    if (!*event) result = loom_cuda_driver.cuEventCreate((CUevent *)event, 0);
    if (result == CUDA_SUCCESS) result = loom_cuda_driver.cuEventRecord((CUevent)*event, NULL);
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(user_context, result, "The CUDA context may be unusable.",
                                        "%s", "Recording an event on the device");
    }
    return 0;
}

int32_t loom_cuda_event_elapsed_ms(void *user_context, void *start, void *end, float *ms) {
    int32_t error = loom_cuda_enter_driver(user_context, "timing", "events");
    if (error) return error;
    CUresult result = loom_cuda_driver.cuEventSynchronize((CUevent)end);
    if (result == CUDA_SUCCESS)
        result = loom_cuda_driver.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end);
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(user_context, result,
                                        "A kernel between the two events may have failed.", "%s",
                                        "Timing the device between two events");
    }
    return 0;
}

int32_t loom_cuda_clear_cache(void *user_context, size_t bytes) {
    /* One scratch buffer for the process, grown to the largest size asked for. */
    static CUdeviceptr scratch = 0;
    static size_t scratch_bytes = 0;
    int32_t error = loom_cuda_enter_driver(user_context, "clearing", "the device's cache");
    if (error) return error;
    CUresult result = CUDA_SUCCESS;
    if (scratch_bytes < bytes) {
        if (scratch) loom_cuda_driver.cuMemFree(scratch);
        scratch = 0;
        scratch_bytes = 0;
        result = loom_cuda_driver.cuMemAlloc(&scratch, bytes);
        if (result == CUDA_SUCCESS) scratch_bytes = bytes;
    }
    if (result == CUDA_SUCCESS)
        result = loom_cuda_driver.cuMemsetD32Async(scratch, 0, bytes / 4, NULL);
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(user_context, result, "Ask for a smaller size.",
                                        "Clearing the device's cache with %llu bytes of zeros",
                                        (unsigned long long)bytes);
    }
    return 0;
}
