/* Status codes and error messages.
 *
 * Every fallible ndcuda function returns an nd_status; ND_OK is zero. On failure the function
 * also leaves a message in a thread-local buffer that nd_last_error() returns: it names the
 * function, the argument and the values involved. The library never aborts, exits or prints
 * on user error or device failure.
 *
 * The values are explicit and append-only (see version.h): new codes go at the end of
 * ND_STATUS_MAP with the next free number. */
#ifndef NDCUDA_STATUS_H
#define NDCUDA_STATUS_H

#include "ndcuda/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description). The enum, nd_status_name() and nd_status_string() are all
 * generated from this one list, so they cannot drift apart. */
#define ND_STATUS_MAP(X)                                                                    \
  X(OK, 0, "success")                                                                       \
  X(ERR_INVALID_ARGUMENT, 1, "invalid argument")                                            \
  X(ERR_NULL_POINTER, 2, "required pointer argument is NULL")                               \
  X(ERR_SHAPE, 3, "shape mismatch or shapes that cannot broadcast")                         \
  X(ERR_DTYPE, 4, "unsupported dtype for this operation")                                   \
  X(ERR_AXIS, 5, "axis out of range or repeated")                                           \
  X(ERR_INDEX, 6, "index or slice out of range")                                            \
  X(ERR_OVERFLOW, 7, "size computation overflows")                                          \
  X(ERR_CASTING, 8, "cast not allowed under the requested casting rule")                    \
  X(ERR_OUT_OF_MEMORY, 9, "out of device or host memory")                                   \
  X(ERR_NO_DEVICE, 10, "no CUDA device is available")                                       \
  X(ERR_DEVICE_MISMATCH, 11, "operands live on different devices")                          \
  X(ERR_READ_ONLY, 12, "array is not writeable (broadcast view or read-only wrap)")         \
  X(ERR_CUDA, 13, "CUDA runtime error")                                                     \
  X(ERR_CUBLAS, 14, "cuBLAS error")                                                         \
  X(ERR_CUSOLVER, 15, "cuSOLVER error")                                                      \
  X(ERR_CURAND, 16, "cuRAND error")                                                         \
  X(ERR_NVRTC, 17, "NVRTC compilation error")                                               \
  X(ERR_SINGULAR, 18, "matrix is singular")                                                 \
  X(ERR_NOT_POSITIVE_DEFINITE, 19, "matrix is not positive definite")                       \
  X(ERR_NOT_IMPLEMENTED, 20, "not implemented")                                             \
  X(ERR_VALUE, 21, "argument value out of its domain")                                      \
  X(ERR_STREAM, 22, "invalid stream use (pop without push, destroyed stream, capture)")     \
  X(ERR_IO, 23, "file input/output error")                                                  \
  X(ERR_INTERNAL, 24, "internal error (a bug in ndcuda)")                                  \
  X(ERR_COMPILE, 25, "run-time compilation of a user kernel failed")                       \
  X(ERR_UNSUPPORTED, 26, "feature not built into this library (e.g. NCCL collectives)")     \
  X(ERR_NCCL, 27, "NCCL error")

/* What every fallible function returns: ND_OK (0) or one of the ND_ERR_* codes above. */
typedef enum nd_status {
#define ND_STATUS_ENUM_(name, value, text) ND_##name = value,
  ND_STATUS_MAP(ND_STATUS_ENUM_)
#undef ND_STATUS_ENUM_
} nd_status;

/* The enumerator's name without the ND_ prefix ("ERR_SHAPE"), or "UNKNOWN" for a value that
 * is not a status. Static storage; never fails. */
ND_API const char *nd_status_name(nd_status status);

/* A one-line description of the status, or "unknown status". Static storage; never fails. */
ND_API const char *nd_status_string(nd_status status);

/* The detailed message of the last failure on the calling thread ("nd_add: shapes (3,4) and
 * (5,) cannot broadcast"), or "" if none. The buffer belongs to the thread and stays valid
 * until its next failing ndcuda call. Successful calls leave it untouched. */
ND_API const char *nd_last_error(void);

/* Clears the calling thread's message. */
ND_API void nd_clear_error(void);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_STATUS_H */
