# cython: language_level=3
# Declarations of the ndcuda C API (include/ndcuda/*.h) for the extension module.
#
# Only names are declared here: every value (status codes, dtype numbers, flags) comes from
# the C headers when the generated C file is compiled, so this file cannot drift from the
# library's numbering. Declarations are `nogil`: any of them may be called with the GIL
# released, which the module does around the calls that can block.

from libc.stdint cimport int64_t, uint64_t
from libc.stddef cimport size_t


cdef extern from "ndcuda.h" nogil:
    # ---- status.h -------------------------------------------------------------------------
    ctypedef enum nd_status:
        ND_OK
        ND_ERR_INVALID_ARGUMENT
        ND_ERR_NULL_POINTER
        ND_ERR_SHAPE
        ND_ERR_DTYPE
        ND_ERR_AXIS
        ND_ERR_INDEX
        ND_ERR_OVERFLOW
        ND_ERR_CASTING
        ND_ERR_OUT_OF_MEMORY
        ND_ERR_NO_DEVICE
        ND_ERR_DEVICE_MISMATCH
        ND_ERR_READ_ONLY
        ND_ERR_CUDA
        ND_ERR_CUBLAS
        ND_ERR_CUSOLVER
        ND_ERR_CURAND
        ND_ERR_NVRTC
        ND_ERR_SINGULAR
        ND_ERR_NOT_POSITIVE_DEFINITE
        ND_ERR_NOT_IMPLEMENTED
        ND_ERR_VALUE
        ND_ERR_STREAM
        ND_ERR_IO
        ND_ERR_INTERNAL
        ND_ERR_COMPILE
        ND_ERR_UNSUPPORTED
        ND_ERR_NCCL

    const char *nd_status_name(nd_status status)
    const char *nd_status_string(nd_status status)
    const char *nd_last_error()
    void nd_clear_error()

    # ---- version.h ------------------------------------------------------------------------
    unsigned nd_version()
    const char *nd_version_string()
    int ND_VERSION_HEX

    # ---- dtype.h --------------------------------------------------------------------------
    ctypedef enum nd_dtype:
        ND_BOOL
        ND_INT8
        ND_INT16
        ND_INT32
        ND_INT64
        ND_UINT8
        ND_UINT16
        ND_UINT32
        ND_UINT64
        ND_FLOAT16
        ND_FLOAT32
        ND_FLOAT64
        ND_COMPLEX64
        ND_COMPLEX128
        ND_PYINT
        ND_PYFLOAT
        ND_PYCOMPLEX

    int ND_NUM_DTYPES

    ctypedef enum nd_casting:
        ND_CASTING_NO
        ND_CASTING_EQUIV
        ND_CASTING_SAFE
        ND_CASTING_SAME_KIND
        ND_CASTING_UNSAFE

    int nd_dtype_is_valid(nd_dtype dtype)
    size_t nd_dtype_itemsize(nd_dtype dtype)
    const char *nd_dtype_name(nd_dtype dtype)
    char nd_dtype_kind(nd_dtype dtype)
    nd_status nd_dtype_from_name(const char *name, nd_dtype *out)
    nd_status nd_promote_types(nd_dtype a, nd_dtype b, nd_dtype *out)
    nd_status nd_result_type(int n, const nd_dtype *dtypes, nd_dtype *out)
    int nd_can_cast(nd_dtype src, nd_dtype dst, nd_casting casting)

    ctypedef union nd_scalar_value:
        int b
        int64_t i
        uint64_t u
        double f
        double c[2]

    ctypedef struct nd_scalar:
        nd_dtype dtype
        nd_scalar_value v

    # ---- shape.h --------------------------------------------------------------------------
    int ND_MAXDIMS
    int64_t ND_NONE

    ctypedef struct nd_slice:
        int64_t start
        int64_t stop
        int64_t step

    nd_status nd_broadcast_shapes(int n, const int *ndims, const int64_t *const *shapes,
                                  int *out_ndim, int64_t *out_shape)
    nd_status nd_slice_indices(nd_slice s, int64_t length, int64_t *start, int64_t *step,
                               int64_t *count)

    # ---- stream.h -------------------------------------------------------------------------
    struct CUstream_st
    struct CUevent_st
    ctypedef struct nd_stream
    ctypedef struct nd_event

    int ND_STREAM_DEFAULT
    int ND_STREAM_NON_BLOCKING
    int ND_EVENT_DEFAULT
    int ND_EVENT_TIMING
    int ND_EVENT_BLOCKING_SYNC

    nd_status nd_stream_create(unsigned flags, int priority, nd_stream **out)
    nd_status nd_stream_from_cuda(CUstream_st *cuda_stream, nd_stream **out)
    nd_status nd_stream_destroy(nd_stream *stream)
    nd_stream *nd_stream_null()
    nd_stream *nd_stream_per_thread()
    nd_stream *nd_stream_current()
    nd_status nd_stream_push(nd_stream *stream)
    nd_status nd_device_count(int *count)
    nd_status nd_device_get(int *device)
    nd_status nd_device_set(int device)
    nd_status nd_device_push(int device)
    nd_status nd_device_pop()
    nd_status nd_device_synchronize(int device)
    nd_status nd_array_to_device(const nd_array *a, int device, nd_array **out)
    nd_status nd_stream_pop()
    nd_status nd_stream_synchronize(nd_stream *stream)
    nd_status nd_stream_query(nd_stream *stream, int *done)
    CUstream_st *nd_stream_cuda(const nd_stream *stream)
    int nd_stream_device(const nd_stream *stream)
    nd_status nd_event_create(unsigned flags, nd_event **out)
    nd_status nd_event_destroy(nd_event *event)
    nd_status nd_event_record(nd_event *event, nd_stream *stream)
    nd_status nd_stream_wait_event(nd_stream *stream, nd_event *event)
    nd_status nd_event_synchronize(nd_event *event)
    nd_status nd_event_query(nd_event *event, int *done)
    nd_status nd_event_elapsed_ms(nd_event *start, nd_event *end, float *ms)
    CUevent_st *nd_event_cuda(const nd_event *event)

    # ---- memory.h -------------------------------------------------------------------------
    ctypedef struct nd_memory_stats:
        int64_t bytes_in_use
        int64_t peak_bytes_in_use
        int64_t bytes_reserved
        int64_t bytes_limit
        int64_t num_allocs

    nd_status nd_memory_stats_get(int device, nd_memory_stats *out)
    nd_status nd_memory_release_cached(int device)
    nd_status nd_memory_set_limit(int device, int64_t nbytes)
    nd_status nd_memory_reset_peak(int device)

    # ---- array.h --------------------------------------------------------------------------
    ctypedef struct nd_array

    ctypedef enum nd_order:
        ND_ORDER_C
        ND_ORDER_F
        ND_ORDER_K
        ND_ORDER_A

    int ND_ARRAY_C_CONTIGUOUS
    int ND_ARRAY_F_CONTIGUOUS
    int ND_ARRAY_WRITEABLE
    int ND_ARRAY_OWNDATA
    int64_t ND_AXIS_NONE
    nd_dtype ND_DTYPE_DEFAULT

    nd_array *nd_array_retain(nd_array *a)
    void nd_array_release(nd_array *a)
    nd_dtype nd_array_dtype(const nd_array *a)
    int nd_array_ndim(const nd_array *a)
    const int64_t *nd_array_shape(const nd_array *a)
    const int64_t *nd_array_strides(const nd_array *a)
    int64_t nd_array_size(const nd_array *a)
    size_t nd_array_itemsize(const nd_array *a)
    int64_t nd_array_nbytes(const nd_array *a)
    int64_t nd_array_offset(const nd_array *a)
    int nd_array_device(const nd_array *a)
    void *nd_array_data(const nd_array *a)
    int nd_array_flags(const nd_array *a)
    int nd_array_is_c_contiguous(const nd_array *a)
    int nd_array_is_f_contiguous(const nd_array *a)
    int nd_array_shares_buffer(const nd_array *a, const nd_array *b)

    nd_status nd_empty(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out)
    nd_status nd_empty_order(int ndim, const int64_t *shape, nd_dtype dtype, nd_order order,
                             nd_array **out)
    nd_status nd_zeros(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out)
    nd_status nd_ones(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out)
    nd_status nd_full(int ndim, const int64_t *shape, nd_scalar value, nd_dtype dtype,
                      nd_array **out)
    nd_status nd_empty_like(const nd_array *proto, nd_dtype dtype, nd_array **out)
    nd_status nd_zeros_like(const nd_array *proto, nd_dtype dtype, nd_array **out)
    nd_status nd_ones_like(const nd_array *proto, nd_dtype dtype, nd_array **out)
    nd_status nd_full_like(const nd_array *proto, nd_scalar value, nd_dtype dtype, nd_array **out)
    nd_status nd_arange(double start, double stop, double step, nd_dtype dtype, nd_array **out)
    nd_status nd_arange_int(int64_t start, int64_t stop, int64_t step, nd_dtype dtype,
                            nd_array **out)
    nd_status nd_linspace(double start, double stop, int64_t num, int endpoint, nd_dtype dtype,
                          nd_array **out)
    nd_status nd_eye(int64_t n, int64_t m, int64_t k, nd_dtype dtype, nd_array **out)
    nd_status nd_identity(int64_t n, nd_dtype dtype, nd_array **out)
    nd_status nd_tri(int64_t n, int64_t m, int64_t k, nd_dtype dtype, nd_array **out)
    nd_status nd_tril(const nd_array *a, int64_t k, nd_array **out)
    nd_status nd_triu(const nd_array *a, int64_t k, nd_array **out)
    nd_status nd_diag(const nd_array *v, int64_t k, nd_array **out)

    nd_status nd_array_from_host(const void *host, size_t host_bytes, int ndim,
                                 const int64_t *shape, nd_dtype dtype, nd_array **out)
    nd_status nd_array_to_host(const nd_array *a, void *host, size_t host_bytes)
    nd_status nd_array_from_device_ptr(void *ptr, int device, int ndim, const int64_t *shape,
                                       const int64_t *strides, nd_dtype dtype,
                                       void (*release)(void *ptr, void *ctx), void *ctx,
                                       nd_array **out)

    nd_status nd_array_copy(const nd_array *a, nd_order order, nd_array **out)
    nd_status nd_array_ascontiguous(const nd_array *a, nd_order order, nd_array **out)
    nd_status nd_array_astype(const nd_array *a, nd_dtype dtype, nd_array **out)
    nd_status nd_copyto(nd_array *dst, const nd_array *src, nd_casting casting)
    nd_status nd_array_fill(nd_array *a, nd_scalar value)
    nd_status nd_concatenate(int n, const nd_array *const *arrays, int64_t axis, nd_array **out)
    nd_status nd_stack(int n, const nd_array *const *arrays, int64_t axis, nd_array **out)
    nd_status nd_tile(const nd_array *a, int nreps, const int64_t *reps, nd_array **out)
    nd_status nd_repeat(const nd_array *a, int64_t repeats, int64_t axis, nd_array **out)

    nd_status nd_array_reshape(const nd_array *a, int ndim, const int64_t *shape, nd_array **out)
    nd_status nd_array_ravel(const nd_array *a, nd_array **out)
    nd_status nd_array_transpose(const nd_array *a, int naxes, const int64_t *axes, nd_array **out)
    nd_status nd_array_swapaxes(const nd_array *a, int64_t axis1, int64_t axis2, nd_array **out)
    nd_status nd_array_moveaxis(const nd_array *a, int64_t source, int64_t destination,
                                nd_array **out)
    nd_status nd_array_expand_dims(const nd_array *a, int64_t axis, nd_array **out)
    nd_status nd_array_squeeze(const nd_array *a, int naxes, const int64_t *axes, nd_array **out)
    nd_status nd_array_broadcast_to(const nd_array *a, int ndim, const int64_t *shape,
                                    nd_array **out)
    nd_status nd_array_flip(const nd_array *a, int naxes, const int64_t *axes, nd_array **out)
    nd_status nd_array_slice(const nd_array *a, int nslices, const nd_slice *slices, nd_array **out)
    nd_status nd_array_index(const nd_array *a, int64_t axis, int64_t index, nd_array **out)
    nd_status nd_array_diagonal(const nd_array *a, int64_t offset, int64_t axis1, int64_t axis2,
                                nd_array **out)
    nd_status nd_array_real(const nd_array *a, nd_array **out)
    nd_status nd_array_imag(const nd_array *a, nd_array **out)
    nd_status nd_array_set_writeable(nd_array *a, int writeable)
    int ND_ACCESS_READ
    int ND_ACCESS_WRITE
    int ND_ACCESS_READ_WRITE
    nd_status nd_array_wait(const nd_array *a, int access, nd_stream *stream)
    nd_status nd_array_record(const nd_array *a, int access, nd_stream *stream)

    # ---- indexing.h -----------------------------------------------------------------------
    ctypedef enum nd_index_mode:
        ND_INDEX_RAISE
        ND_INDEX_WRAP
        ND_INDEX_CLIP

    nd_status nd_take(const nd_array *a, const nd_array *indices, int64_t axis,
                      nd_index_mode mode, nd_array *out, nd_array **result)
    nd_status nd_take_along_axis(const nd_array *a, const nd_array *indices, int64_t axis,
                                 nd_array *out, nd_array **result)
    nd_status nd_put(nd_array *a, const nd_array *indices, const nd_array *values,
                     nd_index_mode mode)
    nd_status nd_compress(const nd_array *condition, const nd_array *a, int64_t axis,
                          nd_array *out, nd_array **result)
    nd_status nd_mask_select(const nd_array *a, const nd_array *mask, nd_array **result)
    nd_status nd_mask_assign(nd_array *a, const nd_array *mask, const nd_array *values)
    nd_status nd_index_gather(const nd_array *a, int nidx, const nd_array *const *indices,
                              const int64_t *axes, int front, nd_index_mode mode,
                              nd_array **result)
    nd_status nd_index_scatter(nd_array *a, int nidx, const nd_array *const *indices,
                               const int64_t *axes, int front, nd_index_mode mode,
                               const nd_array *values)

    # ---- ufunc.h --------------------------------------------------------------------------
    ctypedef int nd_ufunc
    const char *nd_ufunc_name(nd_ufunc op)
    int nd_ufunc_nin(nd_ufunc op)

    # The ufunc enumerators the module names directly (operators, clip, where); the full
    # table is read at import time through nd_ufunc_name/nd_ufunc_nin.
    enum:
        ND_UFUNC_ADD
        ND_UFUNC_SUBTRACT
        ND_UFUNC_MULTIPLY
        ND_UFUNC_DIVIDE
        ND_UFUNC_FLOOR_DIVIDE
        ND_UFUNC_REMAINDER
        ND_UFUNC_POWER
        ND_UFUNC_NEGATIVE
        ND_UFUNC_POSITIVE
        ND_UFUNC_ABSOLUTE
        ND_UFUNC_SQUARE
        ND_UFUNC_SQRT
        ND_UFUNC_INVERT
        ND_UFUNC_EQUAL
        ND_UFUNC_NOT_EQUAL
        ND_UFUNC_LESS
        ND_UFUNC_LESS_EQUAL
        ND_UFUNC_GREATER
        ND_UFUNC_GREATER_EQUAL
        ND_UFUNC_BITWISE_AND
        ND_UFUNC_BITWISE_OR
        ND_UFUNC_BITWISE_XOR
        ND_UFUNC_LEFT_SHIFT
        ND_UFUNC_RIGHT_SHIFT
        ND_UFUNC_MAXIMUM
        ND_UFUNC_MINIMUM
        ND_UFUNC_LOGICAL_AND
        ND_UFUNC_LOGICAL_OR
        ND_UFUNC_CONJUGATE
        ND_UFUNC_REAL
        ND_UFUNC_IMAG
        ND_UFUNC_ANGLE
        ND_UFUNC_CLIP
        ND_UFUNC_WHERE

    ctypedef enum nd_operand_kind:
        ND_OPERAND_NONE
        ND_OPERAND_ARRAY
        ND_OPERAND_SCALAR

    ctypedef struct nd_operand:
        nd_operand_kind kind
        const nd_array *array
        nd_scalar scalar

    nd_status nd_ufunc_call(nd_ufunc op, int nin, const nd_operand *inp, nd_array *out,
                            nd_array **result)
    nd_status nd_ufunc_result_type(nd_ufunc op, int nin, const nd_dtype *dtypes, nd_dtype *out)
    nd_status nd_round(const nd_array *a, int decimals, nd_array *out, nd_array **result)
    nd_status nd_nan_to_num(const nd_array *a, double nan, double posinf, double neginf,
                            nd_array *out, nd_array **result)
    nd_status nd_angle(const nd_array *a, int deg, nd_array *out, nd_array **result)
    nd_status nd_isclose(const nd_array *a, const nd_array *b, double rtol, double atol,
                         int equal_nan, nd_array **result)
    nd_status nd_allclose(const nd_array *a, const nd_array *b, double rtol, double atol,
                          int equal_nan, int *answer)
    nd_status nd_array_equal(const nd_array *a, const nd_array *b, int equal_nan, int *answer)

    # ---- reduce.h -------------------------------------------------------------------------
    nd_status nd_sum(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                     nd_dtype dtype, nd_array *out, nd_array **result)
    nd_status nd_prod(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                      nd_dtype dtype, nd_array *out, nd_array **result)
    nd_status nd_nansum(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_dtype dtype, nd_array *out, nd_array **result)
    nd_status nd_mean(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                      nd_dtype dtype, nd_array *out, nd_array **result)
    nd_status nd_nanmean(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                         nd_dtype dtype, nd_array *out, nd_array **result)
    nd_status nd_var(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                     nd_dtype dtype, double ddof, nd_array *out, nd_array **result)
    nd_status nd_std(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                     nd_dtype dtype, double ddof, nd_array *out, nd_array **result)
    nd_status nd_average(const nd_array *a, int naxes, const int64_t *axes,
                         const nd_array *weights, int keepdims, nd_array **result,
                         nd_array **sum_of_weights)
    nd_status nd_amin(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                      nd_array *out, nd_array **result)
    nd_status nd_amax(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                      nd_array *out, nd_array **result)
    nd_status nd_nanmin(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result)
    nd_status nd_nanmax(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result)
    nd_status nd_ptp(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                     nd_array *out, nd_array **result)
    nd_status nd_argmin(const nd_array *a, int64_t axis, int keepdims, nd_array *out,
                        nd_array **result)
    nd_status nd_argmax(const nd_array *a, int64_t axis, int keepdims, nd_array *out,
                        nd_array **result)
    nd_status nd_median(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                        nd_array *out, nd_array **result)
    nd_status nd_quantile(const nd_array *a, double q, int naxes, const int64_t *axes,
                          int keepdims, nd_array *out, nd_array **result)
    nd_status nd_percentile(const nd_array *a, double q, int naxes, const int64_t *axes,
                            int keepdims, nd_array *out, nd_array **result)
    nd_status nd_quantiles(const nd_array *a, int64_t nq, const double *q, int naxes,
                           const int64_t *axes, int keepdims, nd_array *out, nd_array **result)
    nd_status nd_percentiles(const nd_array *a, int64_t nq, const double *q, int naxes,
                             const int64_t *axes, int keepdims, nd_array *out, nd_array **result)
    nd_status nd_all(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                     nd_array *out, nd_array **result)
    nd_status nd_any(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                     nd_array *out, nd_array **result)
    nd_status nd_count_nonzero(const nd_array *a, int naxes, const int64_t *axes, int keepdims,
                               nd_array **result)
    nd_status nd_cumsum(const nd_array *a, int64_t axis, nd_dtype dtype, nd_array *out,
                        nd_array **result)
    nd_status nd_cumprod(const nd_array *a, int64_t axis, nd_dtype dtype, nd_array *out,
                         nd_array **result)
    nd_status nd_cumulative_sum(const nd_array *a, int64_t axis, nd_dtype dtype,
                                int include_initial, nd_array *out, nd_array **result)
    nd_status nd_cumulative_prod(const nd_array *a, int64_t axis, nd_dtype dtype,
                                 int include_initial, nd_array *out, nd_array **result)
    nd_status nd_diff(const nd_array *a, int64_t n, int64_t axis, nd_array **result)
    nd_status nd_array_item(const nd_array *a, nd_scalar *out)

    # ---- sort.h ---------------------------------------------------------------------------
    nd_status nd_sort(const nd_array *a, int64_t axis, nd_array **result)
    nd_status nd_argsort(const nd_array *a, int64_t axis, nd_array **result)
    nd_status nd_partition(const nd_array *a, int64_t kth, int64_t axis, nd_array **result)
    nd_status nd_argpartition(const nd_array *a, int64_t kth, int64_t axis, nd_array **result)
    nd_status nd_unique(const nd_array *a, nd_array **values, nd_array **index,
                        nd_array **inverse, nd_array **counts)
    nd_status nd_searchsorted(const nd_array *a, const nd_array *v, int right, nd_array **result)
    nd_status nd_nonzero(const nd_array *a, nd_array **results, int capacity)
    nd_status nd_argwhere(const nd_array *a, nd_array **result)
    nd_status nd_isin(const nd_array *element, const nd_array *test_elements, int invert,
                      nd_array **result)
    nd_status nd_bincount(const nd_array *x, const nd_array *weights, int64_t minlength,
                          nd_array **result)
    nd_status nd_histogram(const nd_array *a, int64_t bins, const double *range,
                           const nd_array *weights, nd_array **hist, nd_array **bin_edges)

    # ---- linalg.h -------------------------------------------------------------------------
    int ND_LINALG_CHECKED
    int ND_LINALG_UNCHECKED
    int ND_LINALG_TF32

    ctypedef enum nd_qr_mode:
        ND_QR_REDUCED
        ND_QR_COMPLETE
        ND_QR_R

    double ND_NORM_DEFAULT
    double ND_NORM_FRO
    double ND_NORM_NUC

    int nd_linalg_set_checked(int checked)
    int nd_linalg_get_checked()
    int nd_linalg_set_tf32(int on)
    int nd_linalg_get_tf32()
    nd_status nd_matmul(const nd_array *a, const nd_array *b, nd_array **out)
    nd_status nd_dot(const nd_array *a, const nd_array *b, nd_array **out)
    nd_status nd_vdot(const nd_array *a, const nd_array *b, nd_array **out)
    nd_status nd_inner(const nd_array *a, const nd_array *b, nd_array **out)
    nd_status nd_outer(const nd_array *a, const nd_array *b, nd_array **out)
    nd_status nd_tensordot(const nd_array *a, const nd_array *b, int naxes,
                           const int64_t *axes_a, const int64_t *axes_b, nd_array **out)
    nd_status nd_vecdot(const nd_array *a, const nd_array *b, int64_t axis, nd_array **out)
    nd_status nd_matrix_transpose(const nd_array *a, nd_array **out)
    nd_status nd_trace(const nd_array *a, int64_t offset, int64_t axis1, int64_t axis2,
                       nd_dtype dtype, nd_array **out)
    nd_status nd_kron(const nd_array *a, const nd_array *b, nd_array **out)
    nd_status nd_einsum(const char *subscripts, int nops, const nd_array *const *ops,
                        nd_array **out)
    nd_status nd_linalg_inv(const nd_array *a, nd_array **out)
    nd_status nd_linalg_solve(const nd_array *a, const nd_array *b, nd_array **out)
    nd_status nd_linalg_det(const nd_array *a, nd_array **out)
    nd_status nd_linalg_slogdet(const nd_array *a, nd_array **sign, nd_array **logabsdet)
    nd_status nd_linalg_matrix_power(const nd_array *a, int64_t n, nd_array **out)
    nd_status nd_linalg_cholesky(const nd_array *a, int upper, nd_array **out)
    nd_status nd_linalg_qr(const nd_array *a, nd_qr_mode mode, nd_array **q, nd_array **r)
    nd_status nd_linalg_svd(const nd_array *a, int full_matrices, int compute_uv, nd_array **u,
                            nd_array **s, nd_array **vh)
    nd_status nd_linalg_eigh(const nd_array *a, char uplo, nd_array **w, nd_array **v)
    nd_status nd_linalg_eigvalsh(const nd_array *a, char uplo, nd_array **w)
    nd_status nd_linalg_norm(const nd_array *x, double ord, int naxes, const int64_t *axes,
                             int keepdims, nd_array **out)
    nd_status nd_linalg_cond(const nd_array *x, double p, nd_array **out)
    nd_status nd_linalg_matrix_rank(const nd_array *a, double tol, nd_array **out)
    nd_status nd_linalg_pinv(const nd_array *a, double rcond, nd_array **out)
    nd_status nd_linalg_lstsq(const nd_array *a, const nd_array *b, double rcond, nd_array **x,
                              nd_array **residuals, int64_t *rank, nd_array **s)

    # ---- random.h -------------------------------------------------------------------------
    ctypedef struct nd_generator

    ctypedef enum nd_bitgen:
        ND_BITGEN_PHILOX
        ND_BITGEN_XORWOW
        ND_BITGEN_MRG32K3A

    nd_status nd_generator_create(uint64_t seed, nd_bitgen bitgen, nd_generator **out)
    nd_status nd_generator_destroy(nd_generator *gen)
    nd_status nd_generator_default(nd_generator **out)
    nd_status nd_random_seed(uint64_t seed)
    uint64_t nd_generator_seed(nd_generator *gen)
    nd_bitgen nd_generator_bitgen(nd_generator *gen)
    uint64_t nd_generator_offset(nd_generator *gen)

    nd_status nd_random_random(nd_generator *gen, int ndim, const int64_t *shape, nd_dtype dtype,
                               nd_array **result)
    nd_status nd_random_random_into(nd_generator *gen, nd_array *out)
    nd_status nd_random_uniform(nd_generator *gen, double low, double high, int ndim,
                                const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_uniform_into(nd_generator *gen, double low, double high, nd_array *out)
    nd_status nd_random_standard_normal(nd_generator *gen, int ndim, const int64_t *shape,
                                        nd_dtype dtype, nd_array **result)
    nd_status nd_random_standard_normal_into(nd_generator *gen, nd_array *out)
    nd_status nd_random_normal(nd_generator *gen, double loc, double scale, int ndim,
                               const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_normal_into(nd_generator *gen, double loc, double scale, nd_array *out)
    nd_status nd_random_lognormal(nd_generator *gen, double mean, double sigma, int ndim,
                                  const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_standard_exponential(nd_generator *gen, int ndim, const int64_t *shape,
                                             nd_dtype dtype, nd_array **result)
    nd_status nd_random_standard_exponential_into(nd_generator *gen, nd_array *out)
    nd_status nd_random_exponential(nd_generator *gen, double scale, int ndim,
                                    const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_standard_gamma(nd_generator *gen, double k, int ndim,
                                       const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_standard_gamma_into(nd_generator *gen, double k, nd_array *out)
    nd_status nd_random_gamma(nd_generator *gen, double k, double scale, int ndim,
                              const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_beta(nd_generator *gen, double a, double b, int ndim,
                             const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_chisquare(nd_generator *gen, double df, int ndim, const int64_t *shape,
                                  nd_dtype dtype, nd_array **result)
    nd_status nd_random_poisson(nd_generator *gen, double lam, int ndim, const int64_t *shape,
                                nd_dtype dtype, nd_array **result)
    nd_status nd_random_binomial(nd_generator *gen, int64_t n, double p, int ndim,
                                 const int64_t *shape, nd_dtype dtype, nd_array **result)
    nd_status nd_random_integers(nd_generator *gen, nd_scalar low, nd_scalar high, int endpoint,
                                 int ndim, const int64_t *shape, nd_dtype dtype,
                                 nd_array **result)
    nd_status nd_random_bernoulli(nd_generator *gen, double p, int ndim, const int64_t *shape,
                                  nd_dtype dtype, nd_array **result)
    nd_status nd_random_choice(nd_generator *gen, int64_t n, int ndim, const int64_t *shape,
                               int replace, const double *p, nd_array **result)
    nd_status nd_random_choice_array(nd_generator *gen, const nd_array *a, int ndim,
                                     const int64_t *shape, int replace, const double *p,
                                     nd_array **result)
    nd_status nd_random_permutation(nd_generator *gen, int64_t n, nd_array **result)
    nd_status nd_random_permutation_array(nd_generator *gen, const nd_array *a, int64_t axis,
                                          nd_array **result)
    nd_status nd_random_shuffle(nd_generator *gen, nd_array *a, int64_t axis)


# A few CUDA runtime calls that the C API does not wrap: the device count (to tell "no GPU"
# apart without raising), device names, and whole-device synchronisation.
cdef extern from "cuda_runtime_api.h" nogil:
    ctypedef int cudaError_t
    cudaError_t cudaGetDeviceCount(int *count)
    cudaError_t cudaGetDevice(int *device)
    cudaError_t cudaSetDevice(int device)
    cudaError_t cudaDeviceSynchronize()
    const char *cudaGetErrorString(cudaError_t error)
    cudaError_t cudaGetLastError()
    cudaError_t cudaDriverGetVersion(int *version)
    cudaError_t cudaRuntimeGetVersion(int *version)
    cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device)
    struct cudaPointerAttributes:
        int device
    cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes, const void *ptr)


# ---- jit.h: user kernels compiled at run time, generated kernels, the kernel cache ---------
cdef extern from "ndcuda/jit.h" nogil:
    ctypedef struct nd_module
    ctypedef struct nd_kernel

    int ND_MODULE_OPTIONS_VERSION

    # The options struct is filled by the module (zeroed, then size and version set), so
    # ND_MODULE_OPTIONS_INIT, a brace initializer, is not needed here.
    ctypedef struct nd_module_options:
        size_t size
        int version
        const char *name
        int noptions
        const char **options
        int ndefines
        const char **defines
        int nheaders
        const char **header_names
        const char **header_sources
        int nname_expressions
        const char **name_expressions
        int cooperative

    nd_status nd_module_create(const char *source, const nd_module_options *opts,
                               nd_module **out)
    nd_module *nd_module_retain(nd_module *m)
    void nd_module_release(nd_module *m)
    const char *nd_module_log(const nd_module *m)
    int nd_module_compiled_here(const nd_module *m)
    const char *nd_jit_last_log()
    nd_status nd_module_get_kernel(nd_module *m, const char *name, nd_kernel **out)
    nd_kernel *nd_kernel_retain(nd_kernel *k)
    void nd_kernel_release(nd_kernel *k)
    const char *nd_kernel_name(const nd_kernel *k)

    ctypedef struct nd_kernel_attributes:
        int registers
        size_t static_shared_bytes
        size_t local_bytes
        int max_threads_per_block
        size_t max_dynamic_shared_bytes
        int cooperative

    nd_status nd_kernel_get_attributes(nd_kernel *k, nd_kernel_attributes *out)
    nd_status nd_kernel_max_active_blocks(nd_kernel *k, int block_threads,
                                          size_t dynamic_shared_bytes, int *out)

    ctypedef enum nd_karg_kind:
        ND_KARG_READ
        ND_KARG_WRITE
        ND_KARG_READWRITE
        ND_KARG_SCALAR
        ND_KARG_POINTER

    ctypedef struct nd_karg:
        nd_karg_kind kind
        nd_array *array
        nd_dtype dtype
        nd_scalar scalar
        const void *pointer

    ctypedef struct nd_launch_config:
        unsigned grid[3]
        unsigned block[3]
        size_t shared_bytes

    nd_status nd_kernel_launch(nd_kernel *k, nd_launch_config config, int nargs,
                               const nd_karg *args)

    ctypedef struct nd_elementwise_kernel
    nd_status nd_elementwise_kernel_create(const char *in_params, const char *out_params,
                                           const char *operation, const char *name,
                                           const char *preamble, const nd_module_options *opts,
                                           nd_elementwise_kernel **out)
    void nd_elementwise_kernel_release(nd_elementwise_kernel *k)
    nd_status nd_elementwise_kernel_call(nd_elementwise_kernel *k, int nin,
                                         const nd_operand *inp, int nout, nd_array **out,
                                         nd_array **results)

    ctypedef struct nd_reduction_kernel
    nd_status nd_reduction_kernel_create(const char *in_params, const char *out_params,
                                         const char *map_expr, const char *reduce_expr,
                                         const char *post_map_expr, const char *identity,
                                         const char *reduce_type, const char *name,
                                         const char *preamble, const nd_module_options *opts,
                                         nd_reduction_kernel **out)
    void nd_reduction_kernel_release(nd_reduction_kernel *k)
    nd_status nd_reduction_kernel_call(nd_reduction_kernel *k, int nin, const nd_operand *inp,
                                       int naxes, const int64_t *axes, int keepdims,
                                       nd_array *out, nd_array **result)

    ctypedef struct nd_jit_cache_stats:
        uint64_t memory_hits
        uint64_t disk_hits
        uint64_t misses
        uint64_t compiles
        uint64_t failed_compiles
        uint64_t corrupt_entries
        uint64_t warnings
        uint64_t bytes_written
        uint64_t disk_bytes
        uint64_t disk_entries
        uint64_t memory_entries
        double compile_ms

    nd_status nd_jit_cache_get_stats(nd_jit_cache_stats *out)
    nd_status nd_jit_cache_last_warning(char *buf, size_t cap)
    nd_status nd_jit_cache_clear()
    nd_status nd_jit_cache_prune(int64_t max_bytes)
