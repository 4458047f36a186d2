/* Launchers for scans (reduce/scan.cu): CUB's decoupled look-back prefix scans. */
#ifndef ND_KERNELS_SCAN_H
#define ND_KERNELS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inclusive sum (prod == 0) or product scan of rows x n contiguous elements, each row of n
 * scanned on its own. dtype is the storage dtype: ND_INT64 and ND_UINT64 (both scanned in
 * wrapping 64-bit arithmetic), ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128. One row
 * uses DeviceScan::InclusiveScan, several InclusiveScanByKey with key i / n. in may equal out.
 * CUB's two-phase call: temp NULL writes the temporary bytes to *temp_bytes and returns.
 * Errors: ND_ERR_CUDA, ND_ERR_INTERNAL (another dtype). */
nd_status nd_k_scan(const void *in, void *out, int dtype, int prod, int64_t rows, int64_t n,
                    void *temp, size_t *temp_bytes, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_KERNELS_SCAN_H */
