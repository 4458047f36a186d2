/* Internal pieces of linalg/: the pure host planning logic (shapes, batch broadcasting, dtype
 * promotion, argument checks; tested without a device), the per-thread handles and settings,
 * and the helpers that every routine uses to run on the current stream. */
#ifndef ND_LINALG_INTERNAL_H
#define ND_LINALG_INTERNAL_H

#include <stdint.h>

#include "linalg/gj_plan.h"
#include "ndcuda/linalg.h"
#include "src/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pure host planning (linalg/plan.c) --------------------------------------------------- */

/* The dtype a solver or decomposition computes in: float32/float64/complex64/complex128 stay,
 * bool and integers become float64 (NumPy), float16 is refused. Errors: ND_ERR_DTYPE
 * ("nd_linalg_inv: array type float16 is unsupported in linalg"). */
nd_status nd__linalg_compute_dtype(const char *fn, nd_dtype in, nd_dtype *out);

/* The dtype a two-operand solver (solve, lstsq) computes in, as NumPy's _commonType: each
 * operand as nd__linalg_compute_dtype (float16 refused), then float64 if either is 64-bit or
 * integer, complex if either is complex. */
nd_status nd__linalg_common_dtype(const char *fn, nd_dtype a, nd_dtype b, nd_dtype *out);

/* The real dtype of a float or complex dtype (float32 for complex64, ...). */
nd_dtype nd__linalg_real_dtype(nd_dtype dt);

/* Checks that a stack of matrices has ndim >= 2 (and, if square, equal last two dimensions).
 * Errors: ND_ERR_SHAPE with NumPy's texts ("%d-dimensional array given. Array must be at least
 * two-dimensional", "Last 2 dimensions of the array must be square"). */
nd_status nd__linalg_check_stack(const char *fn, const char *arg, int ndim, const int64_t *shape,
                                        int square);

/* The plan of a matmul-like product: the result shape and the batched (m, k) x (k, n) problem. */
typedef struct nd__mm_plan {
  int out_ndim;
  int64_t out_shape[ND_MAXDIMS];
  int batch_ndim;                  /* broadcast batch dimensions */
  int64_t batch_shape[ND_MAXDIMS];
  int64_t batch;                   /* product of batch_shape */
  int64_t m, n, k;
  int a_vec, b_vec;                /* the operand was 1-d and promoted */
} nd__mm_plan;

/* NumPy's matmul shape rules. Errors: ND_ERR_SHAPE ("matmul: Input operand 1 does not have
 * enough dimensions" for 0-d, "mismatch in its core dimension 0 ... (size 3 is different from
 * 4)", batch dimensions that do not broadcast), ND_ERR_OVERFLOW. */
nd_status nd__matmul_shapes(const char *fn, int a_ndim, const int64_t *a_shape, int b_ndim,
                                 const int64_t *b_shape, nd__mm_plan *plan);

/* The plan of a solve: a (..., n, n) with b (n,) or (..., n, k). */
typedef struct nd__solve_plan {
  int b_vec;                       /* b.ndim == 1 */
  int64_t n, k;                    /* k = 1 for a vector b */
  int batch_ndim;
  int64_t batch_shape[ND_MAXDIMS]; /* broadcast batch of a and b */
  int64_t batch;
  int out_ndim;
  int64_t out_shape[ND_MAXDIMS];
} nd__solve_plan;

/* NumPy 2's solve rules. Errors: ND_ERR_SHAPE (a not a square stack, b 0-d, b's n differs
 * from a's, batch dimensions that do not broadcast). */
nd_status nd__solve_shapes(const char *fn, int a_ndim, const int64_t *a_shape, int b_ndim,
                                const int64_t *b_shape, nd__solve_plan *plan);

/* The failure mode of one call from its flags and the thread setting: 1 checked, 0 not.
 * Errors: ND_ERR_INVALID_ARGUMENT for unknown bits or CHECKED together with UNCHECKED. */
nd_status nd__linalg_flags(const char *fn, unsigned flags, int *checked, int *tf32);

/* Whether a batch of matrices (batch_ndim batch dims over a stack) can be addressed with one
 * batch stride: writes it (bytes) and returns 1, else 0. Zero-length batches give stride 0. */
int nd__batch_single_stride(int batch_ndim, const int64_t *shape, const int64_t *strides,
                                   int64_t *stride);

/* Einsum parsing: the subscripts of up to two operands and the output, as letters. */
typedef struct nd__einsum_plan {
  int nops;
  int ndims[2];
  char in[2][ND_MAXDIMS + 1];
  int out_ndim;
  char out[ND_MAXDIMS + 1];
} nd__einsum_plan;

/* Parses "ij,jk->ik" (implicit output: the letters that appear once, in alphabetical order;
 * "..." expands to the broadcast leading dimensions, named by upper-case letters internally).
 * ndims[i] are the operands' dimensions. Errors: ND_ERR_VALUE (bad character, operand count,
 * subscript count that does not match an operand's ndim, an output letter absent from the
 * inputs or repeated), ND_ERR_NOT_IMPLEMENTED (three or more operands). */
nd_status nd__einsum_parse(const char *fn, const char *subscripts, int nops, const int *ndims,
                                  nd__einsum_plan *plan);

/* The batched inverse's plan (nd__gj_plan) and its bench hook: linalg/gj_plan.h. */

/* ---- settings and handles (linalg/handles.c) --------------------------------------------- */

/* The calling thread's cuBLAS / cuSOLVER handle for the stream's device, bound to the stream.
 * Returned as void * so this header needs no vendor headers. */
nd_status nd__cublas_for(const char *fn, nd_stream *s, void **handle);
nd_status nd__cusolver_for(const char *fn, nd_stream *s, void **handle);

/* One column-major product C (m x n, ldc) = alpha op_a(A) op_b(B) + beta C through cublasLt with
 * a plan (descriptors and the heuristic's algorithm) cached per thread and device for this
 * shape, types and the operands' alignments, no workspace; on the stream of the handle from
 * nd__cublas_for. data and compute are a cudaDataType and a cublasComputeType_t; op_a / op_b a
 * cublasOperation_t. *done = 0 (nothing launched) where cublasLt offers no algorithm. */
typedef struct nd__lt_gemm {
  int data, compute, op_a, op_b;
  int64_t m, n, k, lda, ldb, ldc;
  const void *alpha, *a, *b, *beta;
  void *c;
} nd__lt_gemm;
nd_status nd__gemm_lt(const char *fn, nd_stream *s, void *handle, const nd__lt_gemm *g, int *done);

/* A device scratch allocation on stream s (stream ordered; release with nd__buffer_release,
 * which frees in stream order). */
nd_status nd__linalg_scratch(const char *fn, nd_stream *s, int64_t nbytes, nd__buffer **out);

/* The number of elements of a C array. */
#define ND__COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Adds a write of each non-NULL buffer of bufs[0..n) to sync (initialised on the call's
 * stream), then begins it: the set-up of the solver sections, which write their outputs,
 * workspaces and info arrays. */
nd_status nd__linalg_begin_writes(nd__sync *sync, int n, nd__buffer *const *bufs);

/* In checked mode, refuses to run under graph capture (the host wait is not allowed there).
 * Call before enqueueing. Errors: ND_ERR_STREAM. */
nd_status nd__linalg_check_capture(const char *fn, nd_stream *s);

/* Calls of this thread whose randomised solve was accepted (fell_back 0) or handed to partial
 * pivoting after the check (fell_back 1) (linalg/inv.c). */
int64_t nd__solve_rbt_count(int fell_back);

/* Copies the 8-byte word `first` to the host and waits for it (checked mode's wait). */
nd_status nd__linalg_read_first(const char *fn, nd_stream *s, const void *first, unsigned long long *out);

/* Checked mode: waits on the host until `first` (an 8-byte device word: the smallest failing
 * batch index, or all ones) is known, and returns ND_OK or `fail_status` with a message
 * naming the batch index and the info value (read from info, int32 per matrix, when not
 * NULL). batch_ndim/batch_shape turn the flat index into a multi-index for the message. */
nd_status nd__linalg_wait_first(const char *fn, nd_stream *s, const void *first, const int *info,
                                int batch_ndim, const int64_t *batch_shape, nd_status fail_status);

/* ---- shared helpers (linalg/util.c) ---------------------------------------------------- */

/* Returns st, prefixing "fn: " to the thread's message unless it already starts with fn. */
nd_status nd__linalg_ctx(const char *fn, nd_status st);

/* A C-contiguous copy of a converted to dtype (a itself, retained, when already so). */
nd_status nd__linalg_contig(const char *fn, const nd_array *a, nd_dtype dtype, nd_array **out);

/* Element strides (stride / itemsize); 0 when some stride is not a multiple of the itemsize. */
int nd__elem_strides(const nd_array *a, int64_t *out);

/* Identity matrices into a (..., n, n), any layout. */
nd_status nd__linalg_fill_identity(const char *fn, nd_array *a);

/* out (shape x.shape[:-1]) = post(reduce over x's last axis), op and post from kernels.h
 * (ND_LK_SUM, ND_LK_SUM_SQ, ...). Any input dtype; out's dtype receives the converted result. */
nd_status nd__linalg_reduce_last(const char *fn, int op, int post, double p, const nd_array *x, nd_array *out);

/* dst = conj(src) elementwise (dst, src same shape; a copy for real dtypes). */
nd_status nd__linalg_conj_assign(const char *fn, nd_array *dst, const nd_array *src);

#ifdef __cplusplus
}
#endif

#endif /* ND_LINALG_INTERNAL_H */
