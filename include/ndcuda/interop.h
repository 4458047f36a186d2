/* Exchange with other array libraries through DLPack (the official dlpack.h 1.1, vendored as
 * ndcuda/dlpack/dlpack.h under its Apache-2.0 licence; see ndcuda/dlpack/LICENSE).
 *
 * Export hands out a DLManagedTensorVersioned (or the legacy DLManagedTensor) that views an
 * nd_array's memory without copying and holds a reference to the array until the consumer
 * calls the tensor's deleter. Import wraps a producer's tensor as an nd_array without copying
 * and calls the producer's deleter exactly once, when the last nd_array viewing that memory is
 * released and the work ndcuda enqueued on it has finished.
 *
 * Streams use the integers of the array API's __dlpack__(stream=...) for CUDA:
 * ND_DLPACK_STREAM_NONE (-1): no ordering (the consumer orders itself); 0: refused, as the
 * standard calls it ambiguous; ND_DLPACK_STREAM_LEGACY (1): the legacy default stream;
 * ND_DLPACK_STREAM_PER_THREAD (2): the calling thread's per-thread default stream; any other
 * value: a cudaStream_t of the array's device, cast to an integer. */
#ifndef NDCUDA_INTEROP_H
#define NDCUDA_INTEROP_H

#include <stdint.h>

#include "ndcuda/array.h"
#include "ndcuda/dlpack/dlpack.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ND_DLPACK_STREAM_NONE (-1)
#define ND_DLPACK_STREAM_LEGACY 1
#define ND_DLPACK_STREAM_PER_THREAD 2

/* DLPack's data type for an ndcuda dtype: bool is (kDLBool, 8, 1), integers kDLInt/kDLUInt,
 * float16/32/64 kDLFloat, complex64/128 kDLComplex, all with one lane. Host only.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_DTYPE (not an array dtype). */
ND_API nd_status nd_dtype_to_dlpack(nd_dtype dtype, DLDataType *out);

/* The ndcuda dtype of a DLPack data type (the inverse of the above; lanes must be 1). Host
 * only. Errors: ND_ERR_NULL_POINTER, ND_ERR_DTYPE ("nd_dtype_from_dlpack: DLPack type
 * (code 4, bits 16, lanes 1) has no ndcuda dtype" for bfloat16, float8, vectors, ...). */
ND_API nd_status nd_dtype_from_dlpack(DLDataType dtype, nd_dtype *out);

/* Exports a as a versioned DLPack tensor (version 1.1) without copying: data is the address
 * of a's element (0, ..., 0) (NULL for a zero-size array), byte_offset 0, strides in elements
 * (always given, possibly negative or zero), device (kDLCUDA, a's device); the flag
 * DLPACK_FLAG_BITMASK_READ_ONLY is set when a is not writeable (a broadcast view). Borrows a;
 * *out receives a tensor that holds a reference to a until its deleter is called (exactly
 * once, from any thread; the deleter frees the tensor too).
 * Ordering, with no host synchronisation: unless stream is ND_DLPACK_STREAM_NONE, the
 * consumer's stream is made to wait (an event wait through the library's hazard tracking) for
 * a's last writer, and, when a is writeable, for its readers since, so that the consumer may
 * read and write the memory in stream order. Work the consumer enqueues afterwards is not
 * seen by ndcuda: ordering later ndcuda writes after the consumer's reads is the consumer's
 * side of the protocol. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (stream 0 or below -1),
 * ND_ERR_DEVICE_MISMATCH (the calling thread's current device is not a's, when a stream is
 * given), ND_ERR_INVALID_ARGUMENT (a stride that is not a multiple of the itemsize),
 * ND_ERR_OUT_OF_MEMORY (host), ND_ERR_CUDA. Enqueues the wait and returns. */
ND_API nd_status nd_array_to_dlpack(const nd_array *a, int64_t stream, struct DLManagedTensorVersioned **out);

/* The same as a legacy (pre-1.0) DLManagedTensor, which has no version and no flags: a
 * read-only a is exported all the same (the consumer is not told). */
ND_API nd_status nd_array_to_dlpack_legacy(const nd_array *a, int64_t stream, DLManagedTensor **out);

/* Imports a producer's versioned tensor without copying. On success the tensor is consumed:
 * ndcuda calls tensor->deleter(tensor) exactly once, when the last nd_array viewing the memory
 * (views included) is released and the work ndcuda enqueued on it has finished (that release
 * blocks for it). On failure the tensor is not consumed: the caller still owns it and calls
 * its deleter. The data must be ready for use on the calling thread's current stream (the
 * Python protocol passes that stream to the producer's __dlpack__). The array is read-only
 * when the tensor's flags say DLPACK_FLAG_BITMASK_READ_ONLY. Accepts device types kDLCUDA and
 * kDLCUDAManaged, data + byte_offset aligned to the itemsize, strides in elements (NULL: C
 * order; negative and zero strides are accepted), ndim up to ND_MAXDIMS. *out receives a new
 * reference. Errors: ND_ERR_NULL_POINTER (tensor, out, data of a non-empty tensor, shape),
 * ND_ERR_INVALID_ARGUMENT (major version other than 1: "nd_array_from_dlpack: DLPack version
 * 2.0 is not supported (major version 1 expected)"; ndim; negative dimensions; misaligned
 * data), ND_ERR_DTYPE (as nd_dtype_from_dlpack), ND_ERR_DEVICE_MISMATCH (a device type that is
 * not CUDA memory: "nd_array_from_dlpack: device type 1 (kDLCPU) is not supported"),
 * ND_ERR_NO_DEVICE (device id not present). Does not touch the device beyond counting
 * devices; never blocks. */
ND_API nd_status nd_array_from_dlpack(struct DLManagedTensorVersioned *tensor, nd_array **out);

/* The same for a legacy DLManagedTensor (no version, no flags: always writeable). */
ND_API nd_status nd_array_from_dlpack_legacy(DLManagedTensor *tensor, nd_array **out);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_INTEROP_H */
