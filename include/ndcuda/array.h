/* The ndarray: creation, views, copies and host transfers.
 *
 * An nd_array is a header (dtype, shape, byte strides, byte offset) over a reference-counted
 * device buffer. Views share the buffer of the array they come from, never a chain of
 * views. Strides may be negative or zero; zero-size and 0-d arrays work everywhere.
 *
 * Conventions for every function below:
 * - Inputs are borrowed. An `nd_array **out` receives a new reference, which the caller
 *   releases with nd_array_release; on failure *out is left untouched.
 * - Functions that take an `out` array (nd_copyto, nd_array_fill) write into the caller's
 *   array; on failure it is not modified.
 * - Device work is enqueued on the calling thread's current stream; functions return without
 *   waiting unless their comment says they block. Cross-stream use is ordered automatically
 *   (see stream.h).
 * - Errors name the function, argument and values in nd_last_error(). */
#ifndef NDCUDA_ARRAY_H
#define NDCUDA_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "ndcuda/dtype.h"
#include "ndcuda/export.h"
#include "ndcuda/shape.h"
#include "ndcuda/status.h"
#include "ndcuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An array: dtype, shape, strides and offset over a reference-counted device buffer. Opaque. */
typedef struct nd_array nd_array;

/* Memory order of a new array or of a traversal. ND_ORDER_K keeps the input's layout as
 * closely as possible (NumPy's order='K'); ND_ORDER_A is F if the input is F-contiguous and
 * not C-contiguous, else C. */
typedef enum nd_order { ND_ORDER_C = 'C', ND_ORDER_F = 'F', ND_ORDER_K = 'K', ND_ORDER_A = 'A' } nd_order;

/* Flags reported by nd_array_flags. Contiguity is computed from shape and strides on each
 * call, never stored. */
enum {
  ND_ARRAY_C_CONTIGUOUS = 1,
  ND_ARRAY_F_CONTIGUOUS = 2,
  ND_ARRAY_WRITEABLE = 4, /* clear for broadcast views, which repeat elements */
  ND_ARRAY_OWNDATA = 8    /* the array is the one that allocated its buffer */
};

/* Passed as an axis where NumPy takes axis=None. */
#define ND_AXIS_NONE INT64_MIN

/* Passed as a dtype to mean "the input's dtype" (the _like functions, astype-free copies)
 * or, where there is no input, NumPy's default (float64). */
#define ND_DTYPE_DEFAULT ((nd_dtype)-1)

/* ---- reference counting and accessors (never fail, never block) ------------------------ */

ND_API nd_array *nd_array_retain(nd_array *a);   /* returns a; NULL accepted */
ND_API void nd_array_release(nd_array *a);       /* NULL accepted */

ND_API nd_dtype nd_array_dtype(const nd_array *a);
ND_API int nd_array_ndim(const nd_array *a);
ND_API const int64_t *nd_array_shape(const nd_array *a);   /* ndim entries, owned by a */
ND_API const int64_t *nd_array_strides(const nd_array *a); /* bytes, ndim entries */
ND_API int64_t nd_array_dim(const nd_array *a, int axis);  /* negative axes count from the end; -1 if out of range */
ND_API int64_t nd_array_size(const nd_array *a);           /* number of elements */
ND_API size_t nd_array_itemsize(const nd_array *a);
ND_API int64_t nd_array_nbytes(const nd_array *a);         /* size * itemsize */
ND_API int64_t nd_array_offset(const nd_array *a);         /* bytes from the buffer start */
ND_API int nd_array_device(const nd_array *a);
ND_API void *nd_array_data(const nd_array *a);             /* device address of element 0 */
ND_API int nd_array_flags(const nd_array *a);
ND_API int nd_array_is_c_contiguous(const nd_array *a);
ND_API int nd_array_is_f_contiguous(const nd_array *a);
/* 1 when a and b are views of the same buffer (not whether their elements overlap). */
ND_API int nd_array_shares_buffer(const nd_array *a, const nd_array *b);

/* ---- creation ------------------------------------------------------------------------- */

/* An uninitialised array of the given shape (C order). ndim 0 gives a 0-d array. Errors:
 * ND_ERR_NULL_POINTER, ND_ERR_INVALID_ARGUMENT (ndim, negative dimension), ND_ERR_DTYPE,
 * ND_ERR_OVERFLOW, ND_ERR_OUT_OF_MEMORY, ND_ERR_NO_DEVICE. */
ND_API nd_status nd_empty(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out);
/* As nd_empty with an order (C or F). */
ND_API nd_status nd_empty_order(int ndim, const int64_t *shape, nd_dtype dtype, nd_order order,
                                nd_array **out);
ND_API nd_status nd_zeros(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out);
ND_API nd_status nd_ones(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out);
/* Filled with value converted to dtype as NumPy's full does (ND_DTYPE_DEFAULT: the value's
 * own dtype, weak kinds becoming int64/float64/complex128): unsafely, except that a Python
 * int outside an integer dtype's range is ND_ERR_VALUE (NumPy's OverflowError). */
ND_API nd_status nd_full(int ndim, const int64_t *shape, nd_scalar value, nd_dtype dtype,
                         nd_array **out);

/* The _like forms: shape of proto, dtype of proto unless given, layout as NumPy's order='K'
 * (C unless proto is F-contiguous and not C-contiguous). */
ND_API nd_status nd_empty_like(const nd_array *proto, nd_dtype dtype, nd_array **out);
ND_API nd_status nd_zeros_like(const nd_array *proto, nd_dtype dtype, nd_array **out);
ND_API nd_status nd_ones_like(const nd_array *proto, nd_dtype dtype, nd_array **out);
ND_API nd_status nd_full_like(const nd_array *proto, nd_scalar value, nd_dtype dtype,
                              nd_array **out);

/* NumPy's arange: ceil((stop - start) / step) elements start + i*step. The integer form
 * computes exactly in int64 (dtype default int64); the float form in double (default
 * float64). Errors: ND_ERR_VALUE (step 0, non-finite), ND_ERR_OVERFLOW (too long). */
ND_API nd_status nd_arange(double start, double stop, double step, nd_dtype dtype, nd_array **out);
ND_API nd_status nd_arange_int(int64_t start, int64_t stop, int64_t step, nd_dtype dtype,
                               nd_array **out);

/* num evenly spaced samples over [start, stop] (endpoint 1) or [start, stop). Computed as
 * NumPy does: start + i*step, with the last sample exactly stop when endpoint is set.
 * Errors: ND_ERR_VALUE (num < 0). Integer dtypes get the floor of each sample, as NumPy. */
ND_API nd_status nd_linspace(double start, double stop, int64_t num, int endpoint, nd_dtype dtype,
                             nd_array **out);

/* n x m (m < 0: m = n) with ones on diagonal k. */
ND_API nd_status nd_eye(int64_t n, int64_t m, int64_t k, nd_dtype dtype, nd_array **out);
ND_API nd_status nd_identity(int64_t n, nd_dtype dtype, nd_array **out);
/* n x m (m < 0: m = n) with ones at and below diagonal k. */
ND_API nd_status nd_tri(int64_t n, int64_t m, int64_t k, nd_dtype dtype, nd_array **out);
/* Copies of a (ndim >= 2, applied to the last two axes) with elements above (tril) or below
 * (triu) diagonal k zeroed. Errors: ND_ERR_SHAPE for ndim < 2. */
ND_API nd_status nd_tril(const nd_array *a, int64_t k, nd_array **out);
ND_API nd_status nd_triu(const nd_array *a, int64_t k, nd_array **out);
/* NumPy's diag: a 1-d input gives a 2-d array with it on diagonal k; a 2-d input gives a
 * (copied, not viewed) 1-d array of its diagonal k. Errors: ND_ERR_SHAPE for other ndim. */
ND_API nd_status nd_diag(const nd_array *v, int64_t k, nd_array **out);

/* ---- host transfers ------------------------------------------------------------------- */

/* A new device array with the given shape and dtype, filled from C-ordered host data of
 * exactly size*itemsize bytes (host_bytes must say so). Blocks until the host data has been
 * read (pageable memory) so the caller may reuse it on return. Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_INVALID_ARGUMENT (host_bytes does not match), and those of nd_empty. */
ND_API nd_status nd_array_from_host(const void *host, size_t host_bytes, int ndim,
                                    const int64_t *shape, nd_dtype dtype, nd_array **out);

/* Copies a's elements in C order into host memory of host_bytes (at least a's nbytes).
 * Blocks until the data has arrived, waiting only for the work that produces a (and for what
 * is ahead of the copy on the current stream), not for the whole device. */
ND_API nd_status nd_array_to_host(const nd_array *a, void *host, size_t host_bytes);

/* Asynchronous forms for page-locked host memory (nd_host_alloc_pinned): enqueue the copy on
 * the current stream and return. The host buffer must stay valid and untouched until the
 * stream reaches the copy (synchronize the stream or an event). Pageable memory is refused
 * with ND_ERR_INVALID_ARGUMENT, since CUDA would silently make the copy synchronous or
 * stage it through a buffer whose lifetime the caller cannot see. from_host_async writes into
 * an existing array (C order of its elements, any layout). */
ND_API nd_status nd_array_from_host_async(nd_array *dst, const void *pinned_host, size_t host_bytes);
ND_API nd_status nd_array_to_host_async(const nd_array *a, void *pinned_host, size_t host_bytes);

/* Wraps memory the caller allocated on device `device` (no copy, no ownership). strides NULL
 * means C order. release(ptr, ctx), if not NULL, is called when the last view goes and all
 * work ndcuda enqueued on it has finished (the release blocks for that). ptr and the strides
 * must be multiples of the itemsize (ND_ERR_INVALID_ARGUMENT otherwise). */
ND_API nd_status nd_array_from_device_ptr(void *ptr, int device, int ndim, const int64_t *shape,
                                          const int64_t *strides, nd_dtype dtype,
                                          void (*release)(void *ptr, void *ctx), void *ctx,
                                          nd_array **out);

/* ---- copies and assignment ------------------------------------------------------------ */

/* A new array with a's values in the given order (K keeps a's layout), on the current device:
 * a may live on another device (a copy between devices, see device.h), as CuPy's copy. */
ND_API nd_status nd_array_copy(const nd_array *a, nd_order order, nd_array **out);
/* a itself (a new reference) when already contiguous in that order (C or F), else a copy. */
ND_API nd_status nd_array_ascontiguous(const nd_array *a, nd_order order, nd_array **out);
/* A copy converted to dtype with NumPy's rules (unsafe casting: float to int truncates,
 * NaN and out-of-range values as NumPy on x86-64, complex to real drops the imaginary part,
 * anything to bool is != 0). Layout as order K. */
ND_API nd_status nd_array_astype(const nd_array *a, nd_dtype dtype, nd_array **out);
/* NumPy's copyto(dst, src, casting): src broadcast to dst's shape and converted. dst and src
 * may overlap: the result is as if src had been copied first. Errors: ND_ERR_SHAPE,
 * ND_ERR_CASTING, ND_ERR_READ_ONLY (a broadcast view as dst), ND_ERR_DEVICE_MISMATCH. */
ND_API nd_status nd_copyto(nd_array *dst, const nd_array *src, nd_casting casting);
/* Sets every element of a to value as NumPy's fill: an array scalar converts unsafely; a
 * Python int must fit an integer dtype, a Python float must convert with int() and fit
 * (ND_ERR_VALUE: "Python integer 300 out of bounds for int8", "cannot convert float NaN to
 * integer"), and a Python complex into an integer or float array is ND_ERR_DTYPE (NumPy's
 * TypeError). */
ND_API nd_status nd_array_fill(nd_array *a, nd_scalar value);

/* NumPy's concatenate / stack of n arrays (n >= 1) along axis, with dtypes promoted. */
ND_API nd_status nd_concatenate(int n, const nd_array *const *arrays, int64_t axis, nd_array **out);
ND_API nd_status nd_stack(int n, const nd_array *const *arrays, int64_t axis, nd_array **out);
/* NumPy's tile(a, reps) and repeat(a, repeats, axis) with one repeat count for every element
 * (axis ND_AXIS_NONE flattens first). */
ND_API nd_status nd_tile(const nd_array *a, int nreps, const int64_t *reps, nd_array **out);
ND_API nd_status nd_repeat(const nd_array *a, int64_t repeats, int64_t axis, nd_array **out);

/* ---- views (no device work; never copy unless stated) --------------------------------- */

/* NumPy's reshape: a view when the strides allow one (C order), else a C-ordered copy. One
 * dimension may be -1. */
ND_API nd_status nd_array_reshape(const nd_array *a, int ndim, const int64_t *shape, nd_array **out);
/* As NumPy's ravel: a 1-d view when a is C-contiguous, else a C-ordered copy (even where
 * reshape(-1) could give a view, as for a[::2]). */
ND_API nd_status nd_array_ravel(const nd_array *a, nd_array **out);
/* Permutes axes; naxes 0 with axes NULL reverses them (NumPy's a.T). */
ND_API nd_status nd_array_transpose(const nd_array *a, int naxes, const int64_t *axes, nd_array **out);
ND_API nd_status nd_array_permute_dims(const nd_array *a, int naxes, const int64_t *axes, nd_array **out);
ND_API nd_status nd_array_swapaxes(const nd_array *a, int64_t axis1, int64_t axis2, nd_array **out);
ND_API nd_status nd_array_moveaxis(const nd_array *a, int64_t source, int64_t destination, nd_array **out);
/* A new axis of length 1 at position axis (normalised against ndim + 1). */
ND_API nd_status nd_array_expand_dims(const nd_array *a, int64_t axis, nd_array **out);
/* Removes the given length-1 axes (naxes 0: all of them). Errors: ND_ERR_SHAPE when a named
 * axis is not of length 1. */
ND_API nd_status nd_array_squeeze(const nd_array *a, int naxes, const int64_t *axes, nd_array **out);
/* A read-only view broadcast to shape. */
ND_API nd_status nd_array_broadcast_to(const nd_array *a, int ndim, const int64_t *shape, nd_array **out);
/* Reverses the given axes (naxes 0: all). */
ND_API nd_status nd_array_flip(const nd_array *a, int naxes, const int64_t *axes, nd_array **out);
/* Basic slicing: slices[i] applies to axis i for i < nslices; later axes are kept whole. */
ND_API nd_status nd_array_slice(const nd_array *a, int nslices, const nd_slice *slices, nd_array **out);
/* a[..., i, ...] on one axis: drops that axis. Negative i counts from the end. Errors:
 * ND_ERR_INDEX ("index 5 is out of bounds for axis 0 with size 3"). */
ND_API nd_status nd_array_index(const nd_array *a, int64_t axis, int64_t index, nd_array **out);
/* NumPy's diagonal(offset, axis1, axis2) as a read-only view, the diagonal as the last axis. */
ND_API nd_status nd_array_diagonal(const nd_array *a, int64_t offset, int64_t axis1, int64_t axis2,
                                   nd_array **out);
/* Views of the real and imaginary parts of a complex array (float32/float64, writeable). For
 * a real array, real is the array itself and imag an error (ND_ERR_DTYPE). */
ND_API nd_status nd_array_real(const nd_array *a, nd_array **out);
ND_API nd_status nd_array_imag(const nd_array *a, nd_array **out);
/* A writeable or read-only twin view (same buffer). Making a broadcast view writeable is
 * refused with ND_ERR_READ_ONLY. */
ND_API nd_status nd_array_set_writeable(nd_array *a, int writeable);

/* ---- ordering the caller's own device work ---------------------------------------------- */

/* How the caller's own work uses an array (nd_array_wait, nd_array_record). */
enum { ND_ACCESS_READ = 1, ND_ACCESS_WRITE = 2, ND_ACCESS_READ_WRITE = 3 };

/* Kernels or copies the caller launches on a stream's CUDA handle (nd_stream_cuda) are not
 * seen by the library's cross-stream ordering. Bracket such work with these two calls and it
 * takes part like any ndcuda operation:
 *
 *   nd_array_wait(a, ND_ACCESS_WRITE, s);    // s waits for earlier users of a on other streams
 *   my_kernel<<<grid, block, 0, nd_stream_cuda(s)>>>(nd_array_data(a), ...);
 *   nd_array_record(a, ND_ACCESS_WRITE, s);  // later users of a on other streams wait for it
 *
 * nd_array_wait makes stream wait (on the device, not the host) for the last write of a's
 * buffer made on another stream, and for a write access also for the reads since. It must
 * come before the launch. nd_array_record notes that work enqueued on stream up to now reads
 * or writes a's buffer; it must come after the launch. access is an ND_ACCESS_* value; stream
 * NULL means the calling thread's current stream. Both borrow a and stream, enqueue at most
 * an event wait or record and return without blocking. The ordering is per buffer: any view
 * of the buffer stands for all of it. Errors: ND_ERR_NULL_POINTER (a),
 * ND_ERR_INVALID_ARGUMENT (access), ND_ERR_DEVICE_MISMATCH (stream and a on different
 * devices), ND_ERR_STREAM (a destroyed stream), ND_ERR_CUDA. */
ND_API nd_status nd_array_wait(const nd_array *a, int access, nd_stream *stream);
ND_API nd_status nd_array_record(const nd_array *a, int access, nd_stream *stream);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_ARRAY_H */
