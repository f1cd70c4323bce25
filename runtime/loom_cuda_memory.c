/* The CUDA glue's device memory (declared in loom_runtime.h): device copies of buffers, the
 * copies between them and the host, and the pool that keeps freed device memory for reuse.
 * See loom_cuda.c for the driver and its context. */
#define _POSIX_C_SOURCE 200809L

#include "loom_cuda_internal.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

/* --- The pool of device allocations ------------------------------------------------------ */

/* A device copy that is freed (loom_cuda_device_free: a pipeline's GPU intermediate at the end
 * of each run, a Buffer's device copy when the Buffer dies) is kept for a later allocation of
 * about its size instead of going back to the driver (Halide's
 * halide_reuse_device_allocations): cuMemAlloc and cuMemFree cost tens of microseconds each,
 * and cuMemFree waits for the device, so a pipeline run again and again would pay for them on
 * every run. Handing a kept block to its next owner needs no wait on the host: where both
 * work on one stream, that stream runs the next owner's work after the last work on the
 * block; where streams other than the default one are in use, the block is freed with an event
 * recorded on the freeing stream, which a next owner on another stream waits for on the device
 * (cuStreamWaitEvent). When cuMemAlloc runs out of memory, the kept blocks are given back and
 * the allocation tried once more.
 *
 * Sizes are rounded up to a class (a multiple of 512 bytes up to 64 KiB, else of an eighth of
 * the largest power of two not above the size: at most 12.5% more), so that regions that vary
 * a little between runs reuse one block, and a kept block serves a request only if it is at
 * most a quarter larger. Blocks are few (one per live device copy), so lists suffice. */
typedef struct device_block {
    CUdeviceptr pointer;
    size_t bytes;      /* as allocated (rounded) */
    CUstream freed_on; /* the stream of the last free */
    CUevent freed;     /* recorded on freed_on at the last free; NULL: none recorded */
    struct device_block *next;
} device_block;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static device_block *blocks_in_use; /* allocated through the pool and not freed */
static device_block *blocks_kept;   /* freed, kept for reuse */
static int reuse_allocations = 1;
static loom_cuda_memory_stats_t pool_stats; /* kept_* are recomputed when read */

static size_t size_class(size_t bytes) {
    if (bytes <= ((size_t)64 << 10)) return (bytes + 511) & ~(size_t)511;
    size_t top = (size_t)1 << (63 - __builtin_clzll((unsigned long long)bytes));
    size_t step = top / 8;
    return (bytes + step - 1) / step * step;
}

/* Gives every kept block back to the driver; pool_lock held. Returns the first failure. */
static CUresult release_kept_blocks(void) {
    CUresult first_failure = CUDA_SUCCESS;
    while (blocks_kept) {
        device_block *block = blocks_kept;
        blocks_kept = block->next;
        if (block->freed) loom_cuda_driver.cuEventDestroy(block->freed);
        CUresult result = loom_cuda_driver.cuMemFree(block->pointer);
        if (result == CUDA_SUCCESS) pool_stats.driver_frees++;
        if (result != CUDA_SUCCESS && first_failure == CUDA_SUCCESS) first_failure = result;
        free(block);
    }
    return first_failure;
}

/* A device allocation of at least `bytes` (> 0) for work on `stream`, from the kept blocks when
 * one fits. The driver must be entered (its context current). */
static CUresult pool_allocate(size_t bytes, CUstream stream, CUdeviceptr *pointer) {
    const size_t rounded = size_class(bytes);
    pthread_mutex_lock(&pool_lock);
    device_block **best = NULL;
    for (device_block **b = &blocks_kept; *b; b = &(*b)->next) {
        if ((*b)->bytes >= rounded && (*b)->bytes <= rounded + rounded / 4 &&
            (!best || (*b)->bytes < (*best)->bytes))
            best = b;
    }
    CUresult result = CUDA_SUCCESS;
    device_block *block = NULL;
    if (best) {
        block = *best;
        if (block->freed && block->freed_on != stream) {
            /* The last owner's work on another stream ends before this stream goes on. */
            result = loom_cuda_driver.cuStreamWaitEvent(stream, block->freed, 0);
            if (result != CUDA_SUCCESS) {
                pthread_mutex_unlock(&pool_lock);
                return result;
            }
        }
        *best = block->next;
        pool_stats.reuses++;
    } else {
        block = (device_block *)malloc(sizeof *block);
        if (!block) {
            pthread_mutex_unlock(&pool_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        block->bytes = rounded;
        block->freed = NULL;
        result = loom_cuda_driver.cuMemAlloc(&block->pointer, rounded);
        if (result == CUDA_ERROR_OUT_OF_MEMORY && blocks_kept) {
            /* What is kept may be what is missing: give it back and try again. */
            release_kept_blocks();
            pool_stats.releases_under_pressure++;
            result = loom_cuda_driver.cuMemAlloc(&block->pointer, rounded);
        }
        if (result != CUDA_SUCCESS) {
            free(block);
            pthread_mutex_unlock(&pool_lock);
            return result;
        }
        pool_stats.driver_allocations++;
    }
    block->next = blocks_in_use;
    blocks_in_use = block;
    *pointer = block->pointer;
    pthread_mutex_unlock(&pool_lock);
    return CUDA_SUCCESS;
}

/* Frees a device allocation whose last work was queued on `stream`: keeps it for reuse where it
 * came from pool_allocate and reuse is on, else gives it to the driver (a device pointer the
 * user set on a buffer, say). The driver must be entered. */
static CUresult pool_release(CUdeviceptr pointer, CUstream stream) {
    pthread_mutex_lock(&pool_lock);
    device_block *block = NULL;
    for (device_block **b = &blocks_in_use; *b; b = &(*b)->next) {
        if ((*b)->pointer == pointer) {
            block = *b;
            *b = block->next;
            break;
        }
    }
    CUresult result = CUDA_SUCCESS;
    if (block && reuse_allocations) {
        block->freed_on = stream;
        if (loom_cuda_streams_in_use()) {
            /* Disable timing (2): the event only orders work, and is cheaper so. */
            if (!block->freed) result = loom_cuda_driver.cuEventCreate(&block->freed, 2);
            if (result == CUDA_SUCCESS)
                result = loom_cuda_driver.cuEventRecord(block->freed, stream);
        }
        block->next = blocks_kept;
        blocks_kept = block;
    } else {
        if (block && block->freed) loom_cuda_driver.cuEventDestroy(block->freed);
        free(block);
        result = loom_cuda_driver.cuMemFree(pointer);
        if (result == CUDA_SUCCESS) pool_stats.driver_frees++;
    }
    pthread_mutex_unlock(&pool_lock);
    return result;
}

void loom_cuda_get_memory_stats(loom_cuda_memory_stats_t *stats) {
    pthread_mutex_lock(&pool_lock);
    *stats = pool_stats;
    stats->kept_blocks = stats->kept_bytes = 0;
    for (const device_block *b = blocks_kept; b; b = b->next) {
        stats->kept_blocks++;
        stats->kept_bytes += (int64_t)b->bytes;
    }
    pthread_mutex_unlock(&pool_lock);
}

int32_t loom_cuda_release_unused_device_allocations(void *user_context) {
    pthread_mutex_lock(&pool_lock);
    const int any_kept = blocks_kept != NULL;
    pthread_mutex_unlock(&pool_lock);
    if (!any_kept) return 0; /* nothing to give back: the driver need not be loaded */
    int32_t error = loom_cuda_enter_driver(user_context, "releasing", "kept device memory");
    if (error) return error;
    pthread_mutex_lock(&pool_lock);
    CUresult result = release_kept_blocks();
    pthread_mutex_unlock(&pool_lock);
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(
            user_context, result,
            "A kernel launched earlier may have failed and left the CUDA "
            "context unusable.",
            "%s", "cuMemFree of kept device memory");
    }
    return 0;
}

int32_t loom_cuda_reuse_device_allocations(void *user_context, int32_t reuse) {
    pthread_mutex_lock(&pool_lock);
    reuse_allocations = reuse != 0;
    pthread_mutex_unlock(&pool_lock);
    return reuse ? 0 : loom_cuda_release_unused_device_allocations(user_context);
}

/* --- Device copies of buffers ------------------------------------------------------------- */

/* Bytes from b's element at the mins (offset 0, the lowest address, since strides are not
 * negative) to the end of its element with the largest offset; 0 for a buffer without
 * elements. Returns 0 or the reported error's code. */
static int32_t buffer_span_bytes(void *user_context, const loom_buffer_t *b, const char *name,
                                 uint64_t *bytes) {
    *bytes = 0;
    if (b->dimensions < 0 || (b->dimensions > 0 && !b->dim)) {
        return loom_cuda_report_problem(
            user_context,
            "Buffer %s has %d dimensions and dim %s: pass a loom_buffer_t "
            "whose dim array describes each of its dimensions.",
            name, b->dimensions, b->dim ? "set" : "NULL");
    }
    uint64_t last_element = 0;
    for (int32_t i = 0; i < b->dimensions; i++) {
        const loom_dimension_t *d = &b->dim[i];
        if (d->extent < 0) {
            return loom_cuda_report_problem(
                user_context,
                "Buffer %s has extent %d in dimension %d: extents must not be "
                "negative.",
                name, d->extent, i);
        }
        if (d->stride < 0) {
            return loom_cuda_report_problem(
                user_context,
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

/* Serializes making and first filling device copies (see loom_cuda_copy_to_device). */
static pthread_mutex_t device_copy_lock = PTHREAD_MUTEX_INITIALIZER;

/* loom_cuda_copy_to_device's allocation and host-to-device copy; device_copy_lock held. */
static int32_t allocate_and_fill(void *user_context, CUstream stream, loom_buffer_t *b,
                                 const char *name, uint64_t bytes) {
    int allocated_now = 0;
    if (b->device == 0) {
        CUdeviceptr pointer = 0;
        CUresult result = pool_allocate((size_t)bytes, stream, &pointer);
        if (result != CUDA_SUCCESS) {
            return loom_cuda_report_failure(
                user_context, result,
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
        /* From pageable memory, the copy on a stream returns once the host bytes are staged:
         * the host may write them again as soon as it returns. */
        CUresult result =
            stream ? loom_cuda_driver.cuMemcpyHtoDAsync((CUdeviceptr)b->device, b->host,
                                                        (size_t)bytes, stream)
                   : loom_cuda_driver.cuMemcpyHtoD((CUdeviceptr)b->device, b->host, (size_t)bytes);
        if (result != CUDA_SUCCESS) {
            /* A fresh copy that never received its data must not pass for a current one;
             * a host_dirty buffer stays host_dirty, so the next call copies again. */
            if (allocated_now) {
                pool_release((CUdeviceptr)b->device, stream);
                b->device = 0;
            }
            return loom_cuda_report_failure(
                user_context, result,
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
    void *stream;
    int32_t error = loom_cuda_stream_for(user_context, &stream);
    if (error) return error;
    return loom_cuda_copy_to_device_on_stream(user_context, stream, b, name);
}

int32_t loom_cuda_copy_to_device_on_stream(void *user_context, void *stream, loom_buffer_t *b,
                                           const char *name) {
    if ((b->flags & loom_buffer_host_dirty) && (b->flags & loom_buffer_device_dirty)) {
        return loom_cuda_report_problem(
            user_context,
            "Buffer %s is marked both host_dirty and device_dirty, so neither "
            "copy can be trusted: copy the device copy back "
            "(loom_cuda_copy_to_host) before writing the host memory.",
            name);
    }
    if ((b->flags & loom_buffer_host_dirty) && !b->host) {
        return loom_cuda_report_problem(
            user_context,
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
    error = loom_cuda_enter_driver(user_context, "copying buffer", name);
    if (error) return error;
    CUstream on = loom_cuda_use_stream(stream);

    /* Kernels launched from a parallel CPU loop (a plane each) reach here for the same buffer
     * at once: its device copy is made, and filled, by one of them, under a lock, or two would
     * each allocate one (a kernel writing into the one that loses) and a late initial copy would
     * overwrite what another plane's kernel already wrote. */
    pthread_mutex_lock(&device_copy_lock);
    error = allocate_and_fill(user_context, on, b, name, bytes);
    pthread_mutex_unlock(&device_copy_lock);
    return error;
}

int32_t loom_cuda_copy_to_host(void *user_context, loom_buffer_t *b, const char *name) {
    if (!(b->flags & loom_buffer_device_dirty)) {
        return 0;
    }
    void *stream;
    int32_t error = loom_cuda_stream_for(user_context, &stream);
    if (error) return error;
    return loom_cuda_copy_to_host_on_stream(user_context, stream, b, name);
}

int32_t loom_cuda_copy_to_host_on_stream(void *user_context, void *stream, loom_buffer_t *b,
                                         const char *name) {
    if (!(b->flags & loom_buffer_device_dirty)) {
        return 0;
    }
    if (b->device == 0) {
        return loom_cuda_report_problem(
            user_context,
            "Buffer %s is marked device_dirty but has no device copy: this is "
            "a Loom bug (a kernel wrote a buffer that was never copied to the "
            "device); please report it.",
            name);
    }
    if (!b->host) {
        return loom_cuda_report_problem(
            user_context,
            "Buffer %s was written on the device but its host pointer is NULL, "
            "so the result cannot be copied back: pass a buffer with host "
            "memory.",
            name);
    }
    uint64_t bytes;
    int32_t error = buffer_span_bytes(user_context, b, name, &bytes);
    if (error) return error;
    if (bytes > 0) {
        error = loom_cuda_enter_driver(user_context, "copying buffer", name);
        if (error) return error;
        CUstream on = loom_cuda_use_stream(stream);
        CUresult result = CUDA_SUCCESS;
        if (on) {
            result = loom_cuda_driver.cuMemcpyDtoHAsync(b->host, (CUdeviceptr)b->device,
                                                        (size_t)bytes, on);
            if (result == CUDA_SUCCESS) result = loom_cuda_driver.cuStreamSynchronize(on);
        } else {
            /* The default stream does not wait for streams created non-blocking: where others
             * are in use, the device copy may have been written on one of them. */
            if (loom_cuda_streams_in_use()) result = loom_cuda_driver.cuCtxSynchronize();
            if (result == CUDA_SUCCESS)
                result =
                    loom_cuda_driver.cuMemcpyDtoH(b->host, (CUdeviceptr)b->device, (size_t)bytes);
        }
        if (result != CUDA_SUCCESS) {
            return loom_cuda_report_failure(
                user_context, result,
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
    void *stream;
    int32_t error = loom_cuda_stream_for(user_context, &stream);
    if (error) return error;
    return loom_cuda_device_free_on_stream(user_context, stream, b);
}

int32_t loom_cuda_device_free_on_stream(void *user_context, void *stream, loom_buffer_t *b) {
    if (b->device == 0) {
        b->flags &= ~(uint32_t)loom_buffer_device_dirty;
        return 0;
    }
    int32_t error = loom_cuda_enter_driver(user_context, "freeing the device copy of", "a buffer");
    if (error) return error;
    CUresult result = pool_release((CUdeviceptr)b->device, loom_cuda_use_stream(stream));
    /* Forget the pointer even when the free failed: a failed free means the pointer or the
     * context is already invalid, and freeing it again would only fail again. */
    uint64_t pointer = b->device;
    b->device = 0;
    b->flags &= ~(uint32_t)loom_buffer_device_dirty;
    if (result != CUDA_SUCCESS) {
        return loom_cuda_report_failure(
            user_context, result,
            "The device pointer was not allocated by loom_cuda_copy_to_device, "
            "or an earlier kernel failure left the CUDA context unusable.",
            "cuMemFree of the device copy at 0x%llx", (unsigned long long)pointer);
    }
    return 0;
}
