/* The CUDA Driver API glue behind pipelines compiled for Target::CUDA (declared in
 * loom_runtime.h).
 *
 * The driver is opened with dlopen at first use rather than linked, so that the runtime (and
 * every ahead-of-time library that embeds it) loads on machines without an NVIDIA driver; only
 * running a CUDA pipeline there fails, with a message saying so. For the same reason no CUDA
 * header is included: the few types and entry points used are declared below, with the
 * layouts and values of the driver's cuda.h.
 *
 * All work happens in the primary context of device 0, the context the CUDA runtime and other
 * libraries in the process share, so device pointers can be exchanged with them. A context is
 * current per thread, so every entry point makes it current before its first driver call:
 * pipelines run parallel loops on worker threads.
 *
 * Every launch and copy is synchronous. That keeps the buffer flags simple (a copy or kernel
 * has finished when its function returns) and makes a faulting kernel fail in the launch that
 * ran it, under the kernel's name, rather than in some later call. */
#define _POSIX_C_SOURCE 200809L

#include "loom_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* --- The slice of cuda.h this file uses -------------------------------------------------- */

typedef int CUresult; /* 0 is CUDA_SUCCESS */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream; /* NULL: the context's default stream */
typedef unsigned long long CUdeviceptr;
typedef enum CUjit_option {
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
} CUjit_option;
typedef enum CUdevice_attribute {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2, /* then _Y = 3, _Z = 4 */
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5   /* then _Y = 6, _Z = 7 */
} CUdevice_attribute;

enum { CUDA_SUCCESS = 0 };

typedef CUresult (*cuInit_fn)(unsigned int flags);
typedef CUresult (*cuDeviceGetCount_fn)(int *count);
typedef CUresult (*cuDeviceGet_fn)(CUdevice *device, int ordinal);
typedef CUresult (*cuDeviceGetAttribute_fn)(int *value, CUdevice_attribute attribute,
                                            CUdevice device);
typedef CUresult (*cuDevicePrimaryCtxRetain_fn)(CUcontext *context, CUdevice device);
typedef CUresult (*cuCtxSetCurrent_fn)(CUcontext context);
typedef CUresult (*cuCtxSynchronize_fn)(void);
typedef CUresult (*cuModuleLoadDataEx_fn)(CUmodule *module, const void *image,
                                          unsigned int num_options, CUjit_option *options,
                                          void **option_values);
typedef CUresult (*cuModuleGetFunction_fn)(CUfunction *function, CUmodule module, const char *name);
typedef CUresult (*cuLaunchKernel_fn)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                                      unsigned int grid_z, unsigned int block_x,
                                      unsigned int block_y, unsigned int block_z,
                                      unsigned int shared_mem_bytes, CUstream stream,
                                      void **kernel_params, void **extra);
typedef CUresult (*cuMemAlloc_fn)(CUdeviceptr *pointer, size_t bytes);
typedef CUresult (*cuMemFree_fn)(CUdeviceptr pointer);
typedef CUresult (*cuMemcpyHtoD_fn)(CUdeviceptr destination, const void *source, size_t bytes);
typedef CUresult (*cuMemcpyDtoH_fn)(void *destination, CUdeviceptr source, size_t bytes);
typedef CUresult (*cuGetErrorName_fn)(CUresult error, const char **name);
typedef CUresult (*cuGetErrorString_fn)(CUresult error, const char **description);
typedef void *CUevent;
typedef CUresult (*cuEventCreate_fn)(CUevent *event, unsigned int flags);
typedef CUresult (*cuEventRecord_fn)(CUevent event, void *stream);
typedef CUresult (*cuEventSynchronize_fn)(CUevent event);
typedef CUresult (*cuEventElapsedTime_fn)(float *milliseconds, CUevent start, CUevent end);
typedef CUresult (*cuMemsetD32Async_fn)(CUdeviceptr pointer, unsigned int value, size_t count,
                                        void *stream);

/* The symbols are stored through a void * (see load_driver), which POSIX guarantees works. */
_Static_assert(sizeof(void *) == sizeof(cuInit_fn), "function pointers must fit a void *");

/* Compiled code reaches the fields by byte offset (codegen/CodeGen_LLVM.cpp). */
#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(offsetof(loom_buffer_t, dim) == 16, "loom_buffer_t.dim moved");
_Static_assert(offsetof(loom_buffer_t, device) == 24, "loom_buffer_t.device moved");
_Static_assert(offsetof(loom_buffer_t, flags) == 32, "loom_buffer_t.flags moved");
_Static_assert(sizeof(loom_buffer_t) == 40, "loom_buffer_t changed size");
#endif

/* --- The driver, loaded once --------------------------------------------------------------- */

/* Everything load_driver sets up. Written only inside driver_once, read-only afterwards, so
 * reading it needs no lock once call_driver_once has returned. The entry points keep their
 * driver names so that a grep for a CUDA function finds its use. */
typedef struct cuda_driver_t {
    int usable;             /* 1: every field below is set; 0: why_unusable says why */
    char why_unusable[512]; /* a sentence: what failed and what to do */
    CUcontext context;      /* the primary context of device 0, retained for good */
    int max_threads_per_block;
    int max_block_dim[3], max_grid_dim[3];

    cuInit_fn cuInit;
    cuDeviceGetCount_fn cuDeviceGetCount;
    cuDeviceGet_fn cuDeviceGet;
    cuDeviceGetAttribute_fn cuDeviceGetAttribute;
    cuDevicePrimaryCtxRetain_fn cuDevicePrimaryCtxRetain;
    cuCtxSetCurrent_fn cuCtxSetCurrent;
    cuCtxSynchronize_fn cuCtxSynchronize;
    cuModuleLoadDataEx_fn cuModuleLoadDataEx;
    cuModuleGetFunction_fn cuModuleGetFunction;
    cuLaunchKernel_fn cuLaunchKernel;
    cuMemAlloc_fn cuMemAlloc;
    cuMemFree_fn cuMemFree;
    cuMemcpyHtoD_fn cuMemcpyHtoD;
    cuMemcpyDtoH_fn cuMemcpyDtoH;
    cuGetErrorName_fn cuGetErrorName;
    cuGetErrorString_fn cuGetErrorString;
    cuEventCreate_fn cuEventCreate;
    cuEventRecord_fn cuEventRecord;
    cuEventSynchronize_fn cuEventSynchronize;
    cuEventElapsedTime_fn cuEventElapsedTime;
    cuMemsetD32Async_fn cuMemsetD32Async;
} cuda_driver_t;

static cuda_driver_t driver;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

/* Guards every module_cache slot passed to loom_cuda_launch, so that two threads launching
 * from the same module for the first time load it once. */
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const kNoCudaAdvice =
    "run on a machine with an NVIDIA GPU and driver, or compile the pipeline without "
    "Target::CUDA";

/* Writes "CUDA_ERROR_NAME (description)" for result. Works before the error functions are
 * loaded, and for codes the driver does not know. */
static void describe_result(CUresult result, char *out, size_t out_size) {
    const char *name = NULL, *description = NULL;
    if (driver.cuGetErrorName && driver.cuGetErrorName(result, &name) != CUDA_SUCCESS) {
        name = NULL;
    }
    if (driver.cuGetErrorString && driver.cuGetErrorString(result, &description) != CUDA_SUCCESS) {
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
    snprintf(driver.why_unusable, sizeof driver.why_unusable, "%s failed with %s: %s.", what_failed,
             described, kNoCudaAdvice);
}

/* The pthread_once body: opens libcuda, resolves the entry points, initializes the driver and
 * retains device 0's primary context. On any failure leaves driver.usable 0 with the reason;
 * the failure is kept, as the driver itself keeps a failed cuInit. */
static void load_driver(void) {
    /* Where the driver versions an entry point, the _v2 name is the one with 64-bit sizes and
     * pointers; the unversioned name keeps the old 32-bit ABI. */
    const struct {
        const char *name;
        void *slot; /* address of the function pointer field */
    } symbols[] = {
        {"cuGetErrorName", &driver.cuGetErrorName},
        {"cuGetErrorString", &driver.cuGetErrorString},
        {"cuInit", &driver.cuInit},
        {"cuDeviceGetCount", &driver.cuDeviceGetCount},
        {"cuDeviceGet", &driver.cuDeviceGet},
        {"cuDeviceGetAttribute", &driver.cuDeviceGetAttribute},
        {"cuDevicePrimaryCtxRetain", &driver.cuDevicePrimaryCtxRetain},
        {"cuCtxSetCurrent", &driver.cuCtxSetCurrent},
        {"cuCtxSynchronize", &driver.cuCtxSynchronize},
        {"cuModuleLoadDataEx", &driver.cuModuleLoadDataEx},
        {"cuModuleGetFunction", &driver.cuModuleGetFunction},
        {"cuLaunchKernel", &driver.cuLaunchKernel},
        {"cuMemAlloc_v2", &driver.cuMemAlloc},
        {"cuMemFree_v2", &driver.cuMemFree},
        {"cuMemcpyHtoD_v2", &driver.cuMemcpyHtoD},
        {"cuMemcpyDtoH_v2", &driver.cuMemcpyDtoH},
        {"cuEventCreate", &driver.cuEventCreate},
        {"cuEventRecord", &driver.cuEventRecord},
        {"cuEventSynchronize", &driver.cuEventSynchronize},
        {"cuEventElapsedTime", &driver.cuEventElapsedTime},
        {"cuMemsetD32Async", &driver.cuMemsetD32Async},
    };

    /* Never closed: modules, allocations and the context live until the process exits. */
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(driver.why_unusable, sizeof driver.why_unusable,
                 "libcuda.so.1 could not be loaded (%s): %s.", reason ? reason : "no reason given",
                 kNoCudaAdvice);
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *address = dlsym(library, symbols[i].name);
        if (!address) {
            snprintf(driver.why_unusable, sizeof driver.why_unusable,
                     "libcuda.so.1 has no entry point %s, so the NVIDIA driver is too old: "
                     "update the driver, or compile the pipeline without Target::CUDA.",
                     symbols[i].name);
            return;
        }
        memcpy(symbols[i].slot, &address, sizeof address);
    }

    CUresult result = driver.cuInit(0);
    if (result != CUDA_SUCCESS) {
        set_unusable(result, "cuInit (initializing the CUDA driver)");
        return;
    }
    int device_count = 0;
    result = driver.cuDeviceGetCount(&device_count);
    if (result != CUDA_SUCCESS) {
        set_unusable(result, "cuDeviceGetCount (counting CUDA devices)");
        return;
    }
    if (device_count < 1) {
        snprintf(driver.why_unusable, sizeof driver.why_unusable,
                 "The CUDA driver reports no devices (check nvidia-smi and "
                 "CUDA_VISIBLE_DEVICES): %s.",
                 kNoCudaAdvice);
        return;
    }
    CUdevice device;
    result = driver.cuDeviceGet(&device, 0);
    if (result != CUDA_SUCCESS) {
        set_unusable(result, "cuDeviceGet (opening CUDA device 0)");
        return;
    }
    int *const limits[7] = {&driver.max_threads_per_block, &driver.max_block_dim[0],
                            &driver.max_block_dim[1],      &driver.max_block_dim[2],
                            &driver.max_grid_dim[0],       &driver.max_grid_dim[1],
                            &driver.max_grid_dim[2]};
    for (int i = 0; i < 7; i++) {
        CUdevice_attribute attribute =
            (CUdevice_attribute)(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK + i);
        result = driver.cuDeviceGetAttribute(limits[i], attribute, device);
        if (result != CUDA_SUCCESS) {
            set_unusable(result, "cuDeviceGetAttribute (reading the launch limits of device 0)");
            return;
        }
    }
    result = driver.cuDevicePrimaryCtxRetain(&driver.context, device);
    if (result != CUDA_SUCCESS) {
        set_unusable(result, "cuDevicePrimaryCtxRetain (creating the context of device 0)");
        return;
    }
    driver.usable = 1;
}

static int load_driver_once(void) {
    pthread_once(&driver_once, load_driver);
    return driver.usable;
}

/* --- Error reporting ---------------------------------------------------------------------- */

/* Reports "<what failed, from format> failed with CUDA_ERROR_X (description). <advice>"
 * through loom_error and returns the code the entry point returns. */
static int32_t report_failure(void *user_context, CUresult result, const char *advice,
                              const char *format, ...) __attribute__((format(printf, 4, 5)));
static int32_t report_failure(void *user_context, CUresult result, const char *advice,
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

/* Reports a problem that is not a driver call's failure (a bad argument or buffer). */
static int32_t report_problem(void *user_context, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static int32_t report_problem(void *user_context, const char *format, ...) {
    char message[1024];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    loom_error(user_context, message);
    return loom_code_device_error;
}

/* Prepares the calling thread for driver calls: loads the driver if needed and makes the
 * context current. `doing` names the operation for the message ("copying buffer f to the
 * device"). Returns 0 or the reported error's code. */
static int32_t enter_driver(void *user_context, const char *doing, const char *subject) {
    if (!load_driver_once()) {
        return report_problem(user_context, "CUDA is unavailable for %s %s: %s", doing, subject,
                              driver.why_unusable);
    }
    CUresult result = driver.cuCtxSetCurrent(driver.context);
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result,
                              "The driver rejected device 0's primary context; check the GPU "
                              "with nvidia-smi.",
                              "cuCtxSetCurrent (making the CUDA context current for %s %s)", doing,
                              subject);
    }
    return 0;
}

/* --- Buffers ------------------------------------------------------------------------------ */

/* Bytes from b's element at the mins (offset 0, the lowest address, since strides are not
 * negative) to the end of its element with the largest offset; 0 for a buffer without
 * elements. Returns 0 or the reported error's code. */
static int32_t buffer_span_bytes(void *user_context, const loom_buffer_t *b, const char *name,
                                 uint64_t *bytes) {
    *bytes = 0;
    if (b->dimensions < 0 || (b->dimensions > 0 && !b->dim)) {
        return report_problem(user_context,
                              "Buffer %s has %d dimensions and dim %s: pass a loom_buffer_t "
                              "whose dim array describes each of its dimensions.",
                              name, b->dimensions, b->dim ? "set" : "NULL");
    }
    uint64_t last_element = 0;
    for (int32_t i = 0; i < b->dimensions; i++) {
        const loom_dimension_t *d = &b->dim[i];
        if (d->extent < 0) {
            return report_problem(user_context,
                                  "Buffer %s has extent %d in dimension %d: extents must not be "
                                  "negative.",
                                  name, d->extent, i);
        }
        if (d->stride < 0) {
            return report_problem(user_context,
                                  "Buffer %s has stride %d in dimension %d, but a device copy "
                                  "needs strides >= 0: pass a buffer that is not flipped, or "
                                  "compile the pipeline without Target::CUDA.",
                                  name, d->stride, i);
        }
        if (d->extent == 0) {
            return 0; /* no elements */
        }
        last_element += (uint64_t)(d->extent - 1) * (uint64_t)d->stride;
    }
    /* Type::bytes() rounds bits up, so a bool (1 bit) takes a byte, as on the host. */
    uint64_t element_bytes = (uint64_t)((b->type.bits + 7) / 8) * b->type.lanes;
    *bytes = (last_element + 1) * element_bytes;
    return 0;
}

int32_t loom_cuda_available(char *why, size_t why_size) {
    int usable = load_driver_once();
    if (why && why_size > 0) {
        snprintf(why, why_size, "%s", usable ? "" : driver.why_unusable);
    }
    return usable;
}

/* Serializes making and first filling device copies (see loom_cuda_copy_to_device). */
static pthread_mutex_t device_copy_lock = PTHREAD_MUTEX_INITIALIZER;

/* loom_cuda_copy_to_device's allocation and host-to-device copy; device_copy_lock held. */
static int32_t allocate_and_fill(void *user_context, loom_buffer_t *b, const char *name,
                                 uint64_t bytes) {
    int allocated_now = 0;
    if (b->device == 0) {
        CUdeviceptr pointer = 0;
        CUresult result = driver.cuMemAlloc(&pointer, (size_t)bytes);
        if (result != CUDA_SUCCESS) {
            return report_failure(user_context, result,
                                  "Free device memory (other buffers' device copies, other "
                                  "processes on the GPU), or realize a smaller region.",
                                  "cuMemAlloc of %llu bytes for the device copy of buffer %s",
                                  (unsigned long long)bytes, name);
        }
        b->device = pointer;
        allocated_now = 1;
    }
    /* A pipeline's own allocation that nothing wrote yet has nothing to copy. */
    const int host_has_data = b->host && !(b->flags & loom_buffer_host_unwritten);
    if ((allocated_now && host_has_data) || (b->flags & loom_buffer_host_dirty)) {
        CUresult result = driver.cuMemcpyHtoD((CUdeviceptr)b->device, b->host, (size_t)bytes);
        if (result != CUDA_SUCCESS) {
            /* A fresh copy that never received its data must not pass for a current one;
             * a host_dirty buffer stays host_dirty, so the next call copies again. */
            if (allocated_now) {
                driver.cuMemFree((CUdeviceptr)b->device);
                b->device = 0;
            }
            return report_failure(user_context, result,
                                  "Check that b->host points at memory covering the buffer's "
                                  "dims.",
                                  "cuMemcpyHtoD of %llu bytes from the host to the device copy "
                                  "of buffer %s",
                                  (unsigned long long)bytes, name);
        }
    }
    b->flags &= ~(uint32_t)loom_buffer_host_dirty;
    return 0;
}

int32_t loom_cuda_copy_to_device(void *user_context, loom_buffer_t *b, const char *name) {
    if ((b->flags & loom_buffer_host_dirty) && (b->flags & loom_buffer_device_dirty)) {
        return report_problem(user_context,
                              "Buffer %s is marked both host_dirty and device_dirty, so neither "
                              "copy can be trusted: copy the device copy back "
                              "(loom_cuda_copy_to_host) before writing the host memory.",
                              name);
    }
    if ((b->flags & loom_buffer_host_dirty) && !b->host) {
        return report_problem(user_context,
                              "Buffer %s is marked host_dirty but its host pointer is NULL: "
                              "clear host_dirty, or set host.",
                              name);
    }
    uint64_t bytes;
    int32_t error = buffer_span_bytes(user_context, b, name, &bytes);
    if (error) return error;
    if (bytes == 0) {
        b->flags &= ~(uint32_t)loom_buffer_host_dirty; /* nothing to be out of date */
        return 0;
    }
    error = enter_driver(user_context, "copying buffer", name);
    if (error) return error;

    /* Kernels launched from a parallel CPU loop (a plane each) reach here for the same buffer
     * at once: its device copy is made, and filled, by one of them, under a lock, or two would
     * each allocate one (a kernel writing into the one that loses) and a late initial copy would
     * overwrite what another plane's kernel already wrote. */
    pthread_mutex_lock(&device_copy_lock);
    error = allocate_and_fill(user_context, b, name, bytes);
    pthread_mutex_unlock(&device_copy_lock);
    return error;
}

int32_t loom_cuda_copy_to_host(void *user_context, loom_buffer_t *b, const char *name) {
    if (!(b->flags & loom_buffer_device_dirty)) {
        return 0;
    }
    if (b->device == 0) {
        return report_problem(user_context,
                              "Buffer %s is marked device_dirty but has no device copy: this is "
                              "a Loom bug (a kernel wrote a buffer that was never copied to the "
                              "device); please report it.",
                              name);
    }
    if (!b->host) {
        return report_problem(user_context,
                              "Buffer %s was written on the device but its host pointer is NULL, "
                              "so the result cannot be copied back: pass a buffer with host "
                              "memory.",
                              name);
    }
    uint64_t bytes;
    int32_t error = buffer_span_bytes(user_context, b, name, &bytes);
    if (error) return error;
    if (bytes > 0) {
        error = enter_driver(user_context, "copying buffer", name);
        if (error) return error;
        CUresult result = driver.cuMemcpyDtoH(b->host, (CUdeviceptr)b->device, (size_t)bytes);
        if (result != CUDA_SUCCESS) {
            return report_failure(user_context, result,
                                  "Kernels run asynchronously, so the error may be an earlier "
                                  "kernel's (an illegal address: a buffer smaller than its dims "
                                  "say; compute-sanitizer finds the access). Otherwise check "
                                  "that b->host covers the buffer's dims, and that they did not "
                                  "grow since the device copy was allocated.",
                                  "cuMemcpyDtoH of %llu bytes from the device copy of buffer %s "
                                  "to the host",
                                  (unsigned long long)bytes, name);
        }
    }
    /* The host now holds the device's data. */
    b->flags &= ~(uint32_t)(loom_buffer_device_dirty | loom_buffer_host_unwritten);
    return 0;
}

int32_t loom_cuda_device_free(void *user_context, loom_buffer_t *b) {
    if (b->device == 0) {
        b->flags &= ~(uint32_t)loom_buffer_device_dirty;
        return 0;
    }
    int32_t error = enter_driver(user_context, "freeing the device copy of", "a buffer");
    if (error) return error;
    CUresult result = driver.cuMemFree((CUdeviceptr)b->device);
    /* Forget the pointer even when the free failed: a failed free means the pointer or the
     * context is already invalid, and freeing it again would only fail again. */
    uint64_t pointer = b->device;
    b->device = 0;
    b->flags &= ~(uint32_t)loom_buffer_device_dirty;
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result,
                              "The device pointer was not allocated by loom_cuda_copy_to_device, "
                              "or an earlier kernel failure left the CUDA context unusable.",
                              "cuMemFree of the device copy at 0x%llx",
                              (unsigned long long)pointer);
    }
    return 0;
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
    CUresult result = driver.cuModuleLoadDataEx(module, ptx, 2, options, option_values);
    if (result == CUDA_SUCCESS) {
        *module_cache = *module;
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

int32_t loom_cuda_launch(void *user_context, void **module_cache, const char *ptx,
                         const char *kernel_name, int32_t grid_x, int32_t grid_y, int32_t grid_z,
                         int32_t block_x, int32_t block_y, int32_t block_z, void **args) {
    const int32_t grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
    int any_zero = 0;
    for (int i = 0; i < 3; i++) {
        if (grid[i] < 0 || block[i] < 0) {
            return report_problem(user_context,
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
    int32_t error = enter_driver(user_context, "launching kernel", kernel_name);
    if (error) return error;

    /* The driver would answer CUDA_ERROR_INVALID_VALUE; the limits say which size to change. */
    static const char axis_names[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; i++) {
        if (block[i] > driver.max_block_dim[i]) {
            return report_problem(user_context,
                                  "Kernel %s runs blocks of %d threads in %c, but device 0 "
                                  "allows at most %d there: use a smaller gpu_threads size "
                                  "for that dimension.",
                                  kernel_name, block[i], axis_names[i], driver.max_block_dim[i]);
        }
        if (grid[i] > driver.max_grid_dim[i]) {
            return report_problem(user_context,
                                  "Kernel %s runs a grid of %d blocks in %c, but device 0 allows "
                                  "at most %d there: use larger gpu_blocks tiles, or put the "
                                  "largest loop in x.",
                                  kernel_name, grid[i], axis_names[i], driver.max_grid_dim[i]);
        }
    }
    /* Each factor is within its axis limit (at most a few thousand), so this cannot overflow. */
    int64_t threads_per_block = (int64_t)block_x * block_y * block_z;
    if (threads_per_block > driver.max_threads_per_block) {
        return report_problem(user_context,
                              "Kernel %s runs blocks of %dx%dx%d = %lld threads, but device 0 "
                              "allows at most %d threads per block: use smaller gpu_threads "
                              "(gpu_tile) sizes.",
                              kernel_name, block_x, block_y, block_z, (long long)threads_per_block,
                              driver.max_threads_per_block);
    }

    CUmodule module;
    error = get_module(user_context, module_cache, ptx, kernel_name, &module);
    if (error) return error;
    CUfunction function;
    CUresult result = driver.cuModuleGetFunction(&function, module, kernel_name);
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result,
                              "The PTX module does not define the kernel it was launched "
                              "under: this is a Loom bug; please report it.",
                              "cuModuleGetFunction (finding kernel %s in its PTX module)",
                              kernel_name);
    }
    result = driver.cuLaunchKernel(function, (unsigned)grid_x, (unsigned)grid_y, (unsigned)grid_z,
                                   (unsigned)block_x, (unsigned)block_y, (unsigned)block_z, 0, NULL,
                                   args, NULL);
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result,
                              "If the error is about resources, the kernel needs more registers "
                              "than blocks this large allow: use smaller gpu_threads sizes.",
                              "cuLaunchKernel of kernel %s (grid %dx%dx%d, blocks %dx%dx%d)",
                              kernel_name, grid_x, grid_y, grid_z, block_x, block_y, block_z);
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
    int32_t error = enter_driver(user_context, "waiting for", "the device");
    if (error) return error;
    CUresult result = driver.cuCtxSynchronize();
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result,
                              "A kernel launched earlier failed. An illegal address usually means "
                              "a pipeline was given a buffer smaller than its dims say; "
                              "compute-sanitizer finds the access. Errors of this kind leave the "
                              "CUDA context unusable until the process exits.",
                              "%s", "Waiting for the device's kernels");
    }
    return 0;
}

int32_t loom_cuda_event_record(void *user_context, void **event) {
    int32_t error = enter_driver(user_context, "recording", "an event");
    if (error) return error;
    CUresult result = CUDA_SUCCESS;
    if (!*event) result = driver.cuEventCreate((CUevent *)event, 0);
    if (result == CUDA_SUCCESS) result = driver.cuEventRecord((CUevent)*event, NULL);
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result, "The CUDA context may be unusable.", "%s",
                              "Recording an event on the device");
    }
    return 0;
}

int32_t loom_cuda_event_elapsed_ms(void *user_context, void *start, void *end, float *ms) {
    int32_t error = enter_driver(user_context, "timing", "events");
    if (error) return error;
    CUresult result = driver.cuEventSynchronize((CUevent)end);
    if (result == CUDA_SUCCESS) result = driver.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end);
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result,
                              "A kernel between the two events may have failed.", "%s",
                              "Timing the device between two events");
    }
    return 0;
}

int32_t loom_cuda_clear_cache(void *user_context, size_t bytes) {
    /* One scratch buffer for the process, grown to the largest size asked for. */
    static CUdeviceptr scratch = 0;
    static size_t scratch_bytes = 0;
    int32_t error = enter_driver(user_context, "clearing", "the device's cache");
    if (error) return error;
    CUresult result = CUDA_SUCCESS;
    if (scratch_bytes < bytes) {
        if (scratch) driver.cuMemFree(scratch);
        scratch = 0;
        scratch_bytes = 0;
        result = driver.cuMemAlloc(&scratch, bytes);
        if (result == CUDA_SUCCESS) scratch_bytes = bytes;
    }
    if (result == CUDA_SUCCESS) result = driver.cuMemsetD32Async(scratch, 0, bytes / 4, NULL);
    if (result != CUDA_SUCCESS) {
        return report_failure(user_context, result, "Ask for a smaller size.",
                              "Clearing the device's cache with %llu bytes of zeros",
                              (unsigned long long)bytes);
    }
    return 0;
}
