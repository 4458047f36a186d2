/* Linear algebra: matrix products, inverse and solve, decompositions, norms.
 *
 * Every routine accepts a stack of matrices (..., m, n) and runs on the calling thread's current
 * stream: its kernels, its cuBLAS/cuSOLVER calls, its workspaces, pivots and info arrays. cuBLAS
 * and cuSOLVER handles are per thread and per device, created on first use and bound to the
 * current stream before each call. Cross-stream use of the inputs is ordered automatically
 * (see stream.h), so an identity filled on the null stream and inverted on a non-blocking
 * stream is correct without a user synchronisation.
 *
 * Conventions (as in array.h): inputs are borrowed; `nd_array **` outputs receive new
 * references and are left untouched on failure; messages name the function.
 *
 * dtypes: products take every numeric dtype (integer products are exact modulo 2^bits, as in
 * NumPy; bool products are logical). The solvers and decompositions take float32, float64,
 * complex64 and complex128; bool and integer inputs are computed in float64, as NumPy does;
 * float16 is refused with ND_ERR_DTYPE, as NumPy's linalg refuses it.
 *
 * Singular and non-positive-definite input (checked and unchecked mode). NumPy raises
 * LinAlgError on such input; a GPU library can only know after the device has run. ndcuda
 * makes the cost explicit:
 * - checked mode (the default): inv, solve, cholesky, matrix_power with a negative power and
 *   the _ex forms with ND_LINALG_CHECKED wait on the host once per call, for a few bytes that
 *   say whether and where a matrix failed (not for the whole device), and return
 *   ND_ERR_SINGULAR or ND_ERR_NOT_POSITIVE_DEFINITE naming the first failing batch index.
 *   Because of that wait, checked calls may not be used while the current stream is being
 *   captured into a CUDA graph (ND_ERR_STREAM).
 * - unchecked mode: never waits. Failing matrices produce inf/NaN (inv, solve) or garbage
 *   (cholesky) in their slot of the result, and the _ex forms can return the per-matrix info
 *   array (int32, batch shape: 0 = success; k > 0 = the k-th pivot (1-based) was exactly zero,
 *   or the leading minor of order k is not positive definite).
 * The mode is a per-thread setting (nd_linalg_set_checked), overridden per call by the flags
 * of the _ex forms. NaN and inf input never hangs: every kernel runs a fixed number of steps.
 *
 * TF32: float32 products use full float32 arithmetic unless TF32 is requested by
 * ND_TF32=1 in the environment, nd_linalg_set_tf32(1), or ND_LINALG_TF32 in a call's flags. */
#ifndef NDCUDA_LINALG_H
#define NDCUDA_LINALG_H

#include <stdint.h>

#include "ndcuda/array.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-call flags of the _ex functions. 0 means "the calling thread's settings". */
enum {
  ND_LINALG_CHECKED = 1,   /* wait once and report singular / indefinite input as an error */
  ND_LINALG_UNCHECKED = 2, /* never wait; failures show in the info array */
  ND_LINALG_TF32 = 4       /* allow TF32 tensor-core arithmetic for float32 products */
};

/* The modes of nd_linalg_qr, as NumPy's mode argument. */
typedef enum nd_qr_mode {
  ND_QR_REDUCED = 0,  /* Q (..., m, k), R (..., k, n), k = min(m, n) */
  ND_QR_COMPLETE = 1, /* Q (..., m, m), R (..., m, n) */
  ND_QR_R = 2         /* R (..., k, n) only; *q is not written */
} nd_qr_mode;

/* Norm orders for nd_linalg_norm and nd_linalg_cond, besides finite numbers. */
#define ND_NORM_DEFAULT 0x1p1000 /* ord=None: 2-norm of vectors, Frobenius of matrices */
#define ND_NORM_FRO 0x2p1000     /* 'fro' */
#define ND_NORM_NUC 0x3p1000     /* 'nuc' */
/* Use INFINITY / -INFINITY (math.h) for inf and -inf. */

/* ---- settings (per thread; never fail) ------------------------------------------------- */

/* Sets the calling thread's default failure mode: 1 checked (the default), 0 unchecked.
 * Returns the previous setting. */
ND_API int nd_linalg_set_checked(int checked);
ND_API int nd_linalg_get_checked(void);

/* Allows (1) or forbids (0) TF32 arithmetic in the calling thread's float32 products; -1
 * restores the process default (ND_TF32 from the environment, else off). Returns the
 * previous effective setting. */
ND_API int nd_linalg_set_tf32(int on);
ND_API int nd_linalg_get_tf32(void);

/* ---- products --------------------------------------------------------------------------- */

/* NumPy's matmul: 1-d operands are promoted to a matrix (a row for a, a column for b) and the
 * added axis removed from the result; batch dimensions broadcast. The result dtype is NumPy's
 * result_type of the two (bool @ bool is bool). Errors: ND_ERR_NULL_POINTER, ND_ERR_SHAPE
 * (0-d operand, core dimensions that differ, batch dimensions that do not broadcast),
 * ND_ERR_DTYPE, ND_ERR_OUT_OF_MEMORY, ND_ERR_CUBLAS. Enqueues and returns. */
ND_API nd_status nd_matmul(const nd_array *a, const nd_array *b, nd_array **out);
/* As nd_matmul with flags (ND_LINALG_TF32). */
ND_API nd_status nd_matmul_ex(const nd_array *a, const nd_array *b, unsigned flags, nd_array **out);

/* NumPy's dot: 0-d operands scale (a * b, computed as an outer product), 1-d . 1-d is the inner
 * product (0-d result), N-d . 1-d sums over the last axis of a, N-d . M-d (M >= 2) sums the
 * last axis of a with the second-to-last of b (result a.shape[:-1] + b.shape[:-2] +
 * b.shape[-1:]). Errors as nd_matmul. */
ND_API nd_status nd_dot(const nd_array *a, const nd_array *b, nd_array **out);
/* NumPy's vdot: both flattened, sum(conj(a) * b), a 0-d result. Errors: ND_ERR_SHAPE when
 * the sizes differ. */
ND_API nd_status nd_vdot(const nd_array *a, const nd_array *b, nd_array **out);
/* NumPy's inner: sums over the last axes of both (result a.shape[:-1] + b.shape[:-1]); a 0-d
 * operand scales. */
ND_API nd_status nd_inner(const nd_array *a, const nd_array *b, nd_array **out);
/* NumPy's outer: both flattened, result (a.size, b.size). */
ND_API nd_status nd_outer(const nd_array *a, const nd_array *b, nd_array **out);
/* NumPy's tensordot. With axes_a == NULL and axes_b == NULL, naxes is NumPy's integer form
 * (the last naxes axes of a with the first naxes of b); otherwise axes_a[i] of a is summed
 * with axes_b[i] of b for i < naxes. Errors: ND_ERR_AXIS, ND_ERR_SHAPE ("shape-mismatch for
 * sum"), ND_ERR_VALUE (negative naxes). */
ND_API nd_status nd_tensordot(const nd_array *a, const nd_array *b, int naxes, const int64_t *axes_a,
                              const int64_t *axes_b, nd_array **out);
/* NumPy 2's vecdot: sum over `axis` of conj(a) * b with the other axes broadcast.
 * Errors: ND_ERR_SHAPE (the axis lengths differ, no broadcast), ND_ERR_AXIS. */
ND_API nd_status nd_vecdot(const nd_array *a, const nd_array *b, int64_t axis, nd_array **out);
/* NumPy 2's matrix_transpose: a view with the last two axes swapped (no device work).
 * Errors: ND_ERR_SHAPE for ndim < 2. */
ND_API nd_status nd_matrix_transpose(const nd_array *a, nd_array **out);
/* NumPy's trace(a, offset, axis1, axis2, dtype): sums of diagonals. dtype ND_DTYPE_DEFAULT
 * gives NumPy's sum dtype (bool and small integers become int64/uint64). Errors:
 * ND_ERR_SHAPE (ndim < 2), ND_ERR_AXIS. */
ND_API nd_status nd_trace(const nd_array *a, int64_t offset, int64_t axis1, int64_t axis2, nd_dtype dtype,
                          nd_array **out);
/* NumPy's kron: the Kronecker product, with the smaller-ndim operand's shape padded by ones. */
ND_API nd_status nd_kron(const nd_array *a, const nd_array *b, nd_array **out);
/* NumPy's einsum for one or two operands whose contraction is a product after permuting axes:
 * "ij,jk->ik", "bij,bjk->bik", "i,i->", "ij->ji", "i,j->ij", "...ij,...jk->...ik", implicit
 * output ("ij,jk"). Every index of an operand must be distinct within it, and an index of one
 * operand that is absent from the other operand must appear in the output. Other forms
 * (traces, diagonals, sums over an index of one operand, three or more operands) return
 * ND_ERR_NOT_IMPLEMENTED. Errors: ND_ERR_VALUE (malformed subscripts), ND_ERR_SHAPE. */
ND_API nd_status nd_einsum(const char *subscripts, int nops, const nd_array *const *ops, nd_array **out);

/* ---- inverse, solve, determinants -------------------------------------------------------- */

/* Inverse of each matrix of a (..., n, n). n <= 32 runs a fused one-kernel Gauss-Jordan with
 * partial pivoting that keeps each matrix on chip; n <= 128 a block-per-matrix variant (complex128:
 * n <= 64); larger batches cuBLAS getrfBatched + getriBatched (n <= 256); single or larger
 * matrices cuSOLVER getrf + getrs, except in checked mode for real matrices of order >= 512 whose
 * rows are all diagonally dominant (tested first, one host wait): there getrf without pivoting,
 * the triangles inverted by blocks and multiplied, the answer checked and, if it fails, the
 * partial-pivoting path after all (linalg/inv_large.c). Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_SHAPE (ndim < 2, not square), ND_ERR_DTYPE, ND_ERR_SINGULAR (checked mode: "matrix at
 * batch index 7 is singular (pivot 3 is zero)"), ND_ERR_STREAM (checked mode under graph capture), ND_ERR_OUT_OF_MEMORY,
 * ND_ERR_CUSOLVER, ND_ERR_CUBLAS, ND_ERR_CUDA. Checked mode waits once (see above);
 * unchecked mode enqueues and returns. */
ND_API nd_status nd_linalg_inv(const nd_array *a, nd_array **out);
/* As nd_linalg_inv with flags; if info is not NULL it receives the per-matrix info array
 * (int32, shape a.shape[:-2]). */
ND_API nd_status nd_linalg_inv_ex(const nd_array *a, unsigned flags, nd_array **out, nd_array **info);

/* Solves a x = b. a is (..., n, n); b is a vector (n,) only when b.ndim == 1 (NumPy 2), the
 * result then a.shape[:-1]; otherwise b is a stack (..., n, k) whose batch dimensions broadcast
 * with a's, and the result is (broadcast batch, n, k). Errors as nd_linalg_inv, and
 * ND_ERR_SHAPE when b's n does not match.
 *
 * The randomised solve. Real systems of order > 128 in checked mode are first solved by
 * - method: a fixed depth-2 random butterfly transform on each side, U^T a V (float64; float32
 *   input is solved in float64 and the answer rounded), LU of that without pivoting, the two
 *   triangular solves, and one step of iterative refinement against the original a;
 * - check: the answer is returned only if the factorisation reported no zero pivot, every pivot
 *   is finite and above 1e-10 ||a||_F, and every column satisfies ||b - a x||_inf <=
 *   max(16, sqrt(n)) * eps(float64) * ||a||_F * ||x||_inf with every entry finite (one kernel,
 *   linalg/rbt.cu, decides this for the whole call);
 * - fallback: otherwise the whole call is solved again with partial pivoting (cuSOLVER getrf +
 *   getrs), which alone decides ND_ERR_SINGULAR, so singular, NaN/inf and badly scaled input
 *   get exactly the partial-pivoting result. A fallback costs the randomised attempt on top
 *   (about a quarter of the partial-pivoting time).
 * Fallback rate measured on an H100 (2026-11-23, bench/RESULTS.md): none for uniform random
 * systems of orders 130 to 2048; 2-5% for row-permuted diagonally dominant ones up to order
 * 1024 and 60% at 2048, where the refined residual misses the bound. It runs in a quarter of
 * the time of partial pivoting at n = 4096. ND_SOLVE_RBT=0 turns it off; unchecked mode, which
 * may not wait for the check, always uses partial pivoting. */
ND_API nd_status nd_linalg_solve(const nd_array *a, const nd_array *b, nd_array **out);
/* As nd_linalg_solve with flags and info as nd_linalg_inv_ex's (info may be NULL). */
ND_API nd_status nd_linalg_solve_ex(const nd_array *a, const nd_array *b, unsigned flags, nd_array **out,
                                    nd_array **info);

/* Determinants of a (..., n, n), shape a.shape[:-2], from an LU factorisation with partial
 * pivoting. Singular matrices give 0 (no error, as NumPy). Errors: ND_ERR_SHAPE, ND_ERR_DTYPE.
 * Enqueues and returns. */
ND_API nd_status nd_linalg_det(const nd_array *a, nd_array **out);
/* sign (the dtype of a; |sign| = 1, or 0 for a singular matrix) and logabsdet (the real
 * dtype; -inf for a singular matrix), as NumPy's slogdet. */
ND_API nd_status nd_linalg_slogdet(const nd_array *a, nd_array **sign, nd_array **logabsdet);

/* NumPy's matrix_power for an integer power: n = 0 gives identities, n < 0 inverts first
 * (checked as nd_linalg_inv), n > 0 multiplies by repeated squaring (any numeric dtype). */
ND_API nd_status nd_linalg_matrix_power(const nd_array *a, int64_t n, nd_array **out);

/* ---- decompositions ----------------------------------------------------------------------- */

/* Cholesky factor of Hermitian positive-definite matrices: L with a = L L^H (upper = 0), or U
 * with a = U^H U (upper = 1). Only the triangle that the factor lives in is read. Errors:
 * ND_ERR_SHAPE, ND_ERR_DTYPE, ND_ERR_NOT_POSITIVE_DEFINITE (checked mode, naming the batch
 * index and the order of the failing minor). */
ND_API nd_status nd_linalg_cholesky(const nd_array *a, int upper, nd_array **out);
/* As nd_linalg_cholesky with flags and info as nd_linalg_inv_ex's (info may be NULL). */
ND_API nd_status nd_linalg_cholesky_ex(const nd_array *a, int upper, unsigned flags, nd_array **out,
                                       nd_array **info);

/* QR decomposition of (..., m, n) with NumPy's modes. q may be NULL for ND_QR_R. */
ND_API nd_status nd_linalg_qr(const nd_array *a, nd_qr_mode mode, nd_array **q, nd_array **r);

/* Singular value decomposition a = U diag(S) Vh. full_matrices: U (..., m, m), Vh (..., n, n);
 * else (..., m, k), (..., k, n). compute_uv = 0 writes only s (u, vh may be NULL). S is of the
 * real dtype, descending. Small matrices (m, n <= 32) use batched Jacobi. */
ND_API nd_status nd_linalg_svd(const nd_array *a, int full_matrices, int compute_uv, nd_array **u,
                               nd_array **s, nd_array **vh);

/* Eigenvalues (ascending, real dtype) and eigenvectors (columns of v) of Hermitian matrices,
 * reading the lower (uplo 'L') or upper ('U') triangle. n <= 32 uses batched Jacobi. */
ND_API nd_status nd_linalg_eigh(const nd_array *a, char uplo, nd_array **w, nd_array **v);
ND_API nd_status nd_linalg_eigvalsh(const nd_array *a, char uplo, nd_array **w);

/* ---- norms and derived quantities ---------------------------------------------------------- */

/* NumPy's linalg.norm(x, ord, axis, keepdims). naxes 0 (axes NULL) means axis=None: with ord
 * ND_NORM_DEFAULT the 2-norm of the flattened array, otherwise x must be 1-d or 2-d. naxes 1
 * gives vector norms (ord: ND_NORM_DEFAULT, INFINITY, -INFINITY, 0, or any real p), naxes 2
 * matrix norms (ND_NORM_DEFAULT/ND_NORM_FRO, ND_NORM_NUC, INFINITY, -INFINITY, 1, -1, 2, -2).
 * The result has the real dtype (float64 for integer input). Errors: ND_ERR_VALUE (an order
 * invalid for the kind of norm, or one that takes a minimum, -INFINITY, -1 or -2, over an axis
 * of length 0, where NumPy raises too), ND_ERR_AXIS, ND_ERR_DTYPE. Enqueues and returns. */
ND_API nd_status nd_linalg_norm(const nd_array *x, double ord, int naxes, const int64_t *axes, int keepdims,
                                nd_array **out);

/* NumPy's cond(x, p): p ND_NORM_DEFAULT (or 2, -2) from singular values, otherwise
 * norm(x, p) * norm(inv(x), p) (square x; singular matrices give inf, no error). Errors:
 * ND_ERR_VALUE for matrices with no elements, any p ("cond is not defined on empty arrays",
 * NumPy's LinAlgError; an empty stack of non-empty matrices gives an empty result). */
ND_API nd_status nd_linalg_cond(const nd_array *x, double p, nd_array **out);

/* NumPy's matrix_rank: the number of singular values above tol (tol < 0: NumPy's default
 * S.max() * max(m, n) * eps). int64 result of shape a.shape[:-2]; 1-d input gives 0 or 1. */
ND_API nd_status nd_linalg_matrix_rank(const nd_array *a, double tol, nd_array **out);

/* Moore-Penrose pseudo-inverse via the SVD: singular values at most rcond * max(S) are
 * treated as zero (rcond < 0: NumPy's default 1e-15). Matrices with no elements give an empty
 * (..., n, m) result of a's own dtype, as NumPy's. */
ND_API nd_status nd_linalg_pinv(const nd_array *a, double rcond, nd_array **out);

/* NumPy's lstsq(a, b, rcond) for a 2-d a (m, n) and b (m,) or (m, k): the minimum-norm least
 * squares solution x, the residual sums of squares (shape (k,) or (1,) when rank == n and
 * m > n, else empty), the rank, and the singular values. rcond < 0 means NumPy's default
 * eps * max(m, n). residuals, rank and s may be NULL. Blocks (the rank is a host value). */
ND_API nd_status nd_linalg_lstsq(const nd_array *a, const nd_array *b, double rcond, nd_array **x,
                                 nd_array **residuals, int64_t *rank, nd_array **s);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_LINALG_H */
