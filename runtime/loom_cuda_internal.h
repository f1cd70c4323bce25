/* What the two files of the CUDA glue (loom_cuda.c: the driver, kernels and events;
 * loom_cuda_memory.c: device memory and copies) share: the slice of the driver's cuda.h they
 * use, the driver's entry points once loaded, and the error reporting. Not installed: the
 * runtime's interface is loom_runtime.h. */
#ifndef LOOM_CUDA_INTERNAL_H
#define LOOM_CUDA_INTERNAL_H

#include "loom_runtime.h"

#include <stddef.h>

/* Shared between the runtime's own files only (the runtime is one partially linked object). */
#define LOOM_CUDA_INTERNAL __attribute__((visibility("hidden")))

/* --- The slice of cuda.h the CUDA glue uses ---------------------------------------------- */

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
typedef CUresult (*cuModuleUnload_fn)(CUmodule module);
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
typedef CUresult (*cuEventDestroy_fn)(CUevent event);
typedef CUresult (*cuStreamWaitEvent_fn)(CUstream stream, CUevent event, unsigned int flags);
typedef CUresult (*cuStreamSynchronize_fn)(CUstream stream);
typedef CUresult (*cuMemcpyHtoDAsync_fn)(CUdeviceptr destination, const void *source, size_t bytes,
                                         CUstream stream);
typedef CUresult (*cuMemcpyDtoHAsync_fn)(void *destination, CUdeviceptr source, size_t bytes,
                                         CUstream stream);
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
    int device;             /* the ordinal of the device used (LOOM_GPU_DEVICE, else 0) */
    CUcontext context;      /* the primary context of that device, retained for good */
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
    cuModuleUnload_fn cuModuleUnload;
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
    cuEventDestroy_fn cuEventDestroy;
    cuStreamWaitEvent_fn cuStreamWaitEvent;
    cuStreamSynchronize_fn cuStreamSynchronize;
    cuMemcpyHtoDAsync_fn cuMemcpyHtoDAsync;
    cuMemcpyDtoHAsync_fn cuMemcpyDtoHAsync;
} cuda_driver_t;

LOOM_CUDA_INTERNAL extern cuda_driver_t loom_cuda_driver;

enum { CUDA_ERROR_OUT_OF_MEMORY = 2 };

/* Prepares the calling thread for driver calls: loads the driver if needed and makes the
 * context current. `doing` names the operation for the message ("copying buffer f to the
 * device"). Returns 0 or the reported error's code. */
LOOM_CUDA_INTERNAL int32_t loom_cuda_enter_driver(void *user_context, const char *doing,
                                                  const char *subject);

/* The stream a call given `requested` works on (what a _on_stream entry point was given), with
 * the driver entered. The first time any stream other than the default one is used, waits for
 * the device once: device memory freed before then on the default stream carries no event (see
 * loom_cuda_memory.c), and a stream created non-blocking would not wait for it. */
LOOM_CUDA_INTERNAL CUstream loom_cuda_use_stream(void *requested);

/* Whether any stream other than the default one has been used: from then on, device memory
 * freed on a stream is marked with an event that its next user waits for. */
LOOM_CUDA_INTERNAL int loom_cuda_streams_in_use(void);

/* Reports "<what failed, from format> failed with CUDA_ERROR_X (description). <advice>"
 * through loom_error and returns the code the entry point returns. */
LOOM_CUDA_INTERNAL int32_t loom_cuda_report_failure(void *user_context, CUresult result,
                                                    const char *advice, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* Reports a problem that is not a driver call's failure (a bad argument or buffer). */
LOOM_CUDA_INTERNAL int32_t loom_cuda_report_problem(void *user_context, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* LOOM_CUDA_INTERNAL_H */
