/* Device memory: the stream-ordered pool, its limit and statistics, pinned host memory.
 *
 * Arrays are allocated on the calling thread's current stream from a per-device CUDA memory
 * pool (cudaMallocFromPoolAsync) whose release threshold keeps freed memory cached for reuse.
 * ND_GPU_MEMORY_LIMIT caps the bytes ndcuda keeps in use on each device: a byte count with an
 * optional K/M/G/T suffix (powers of 1024) or a percentage of the device's memory ("50%"). */
#ifndef NDCUDA_MEMORY_H
#define NDCUDA_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocation statistics of one device. A plain value filled by nd_memory_stats. */
typedef struct nd_memory_stats {
  int64_t bytes_in_use;      /* held by live ndcuda buffers */
  int64_t peak_bytes_in_use; /* highest bytes_in_use since start or nd_memory_reset_peak */
  int64_t bytes_reserved;    /* held by the pool from the driver, in use or cached */
  int64_t bytes_limit;       /* the cap on bytes_in_use (device memory size when unset) */
  int64_t num_allocs;        /* live buffers allocated by ndcuda */
} nd_memory_stats;

/* Statistics for a device (-1: current). Errors: ND_ERR_NULL_POINTER, ND_ERR_NO_DEVICE,
 * ND_ERR_INVALID_ARGUMENT (no such device). Does not block. */
ND_API nd_status nd_memory_stats_get(int device, nd_memory_stats *out);

/* Returns the pool's cached, unused memory of a device (-1: current) to the driver. Blocks
 * until the device is idle first, so memory freed on any stream can be returned. */
ND_API nd_status nd_memory_release_cached(int device);

/* Sets the byte cap of a device (-1: current); 0 restores the default (no cap beyond the
 * device). Errors: ND_ERR_NO_DEVICE, ND_ERR_INVALID_ARGUMENT. */
ND_API nd_status nd_memory_set_limit(int device, int64_t bytes);

/* Resets peak_bytes_in_use to the current bytes_in_use. */
ND_API nd_status nd_memory_reset_peak(int device);

/* Page-locked host memory for asynchronous copies (cudaMallocHost). Errors:
 * ND_ERR_NULL_POINTER, ND_ERR_OUT_OF_MEMORY. Blocks (as cudaMallocHost does). */
ND_API nd_status nd_host_alloc_pinned(size_t bytes, void **out);

/* Frees memory from nd_host_alloc_pinned (NULL accepted). Blocks as cudaFreeHost does. */
ND_API nd_status nd_host_free_pinned(void *ptr);

/* Whether ptr is page-locked host memory known to CUDA (1) or pageable (0). */
ND_API int nd_host_is_pinned(const void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_MEMORY_H */
