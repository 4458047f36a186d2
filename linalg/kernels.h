/* Launchers of linalg/'s own kernels: plain structs and a cudaStream_t passed as void *.
 * Strides are in elements (not bytes) and may be zero (broadcast) or negative. dtypes are
 * nd_dtype values; the solver kernels take float32, float64, complex64 and complex128. */
#ifndef ND_LINALG_KERNELS_H
#define ND_LINALG_KERNELS_H

#include <stdint.h>

#include "kernels/kernel_types.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A batch of matrices: element (b, i, j) at data[b*bs + i*rs + j*cs]. */
typedef struct nd_lk_mat {
  void *data;
  int64_t bs, rs, cs;
} nd_lk_mat;

enum nd_lk_gj_mode {
  ND_LK_INV = 0,    /* x = inverse (n x n) */
  ND_LK_SOLVE = 1,  /* x = inverse(a) @ b (n x nrhs) */
  ND_LK_DET = 2,    /* det[b] = determinant */
  ND_LK_SLOGDET = 3 /* det[b] = sign (dtype), logdet[b] = log|det| (real dtype) */
};

/* One batched Gauss-Jordan run with partial pivoting. */
typedef struct nd_lk_gj {
  int mode;
  int dtype;
  int n;
  int64_t batch;
  int64_t nrhs;
  nd_lk_mat a, b, x;
  void *det;    /* contiguous, batch elements */
  void *logdet; /* contiguous, batch elements of the real dtype */
  int *info;    /* contiguous per matrix: 0 or the 1-based index of the first zero pivot; may be NULL */
  unsigned long long *first; /* atomicMin of failing batch indices; may be NULL */
  int plain; /* nonzero, for comparisons only (ND__GJ_PLAIN in linalg/gj_plan.h): nd_lk_inv_tc
              * without its prefetch, the lookahead kernel's solve through its inverse's stage */
} nd_lk_gj;

/* n <= 32: one group of threads (a power of two) per matrix, one or several rows per thread in
 * registers, several matrices per warp (linalg/gj_group.cu). */
nd_status nd_lk_gj_small(const nd_lk_gj *p, void *stream);

/* Inverse and solve, tiny matrices (nd_lk_inv_tiny_ok: float32 n <= 8, other dtypes n <= 4):
 * one thread per matrix with the matrix in registers (linalg/gj_thread.cu). Same contract as
 * nd_lk_gj_small in modes ND_LK_INV and ND_LK_SOLVE. */
nd_status nd_lk_inv_tiny(const nd_lk_gj *p, void *stream);
int nd_lk_inv_tiny_ok(int dtype, int n);

/* 32 < n <= 128 (complex128: n <= 64): one block per matrix, blocked Gauss-Jordan with the
 * matrix in register tiles (linalg/gj_panels.cu).
 * Modes INV, DET, SLOGDET (x C-contiguous per matrix: rs = n, cs = 1) and SOLVE (any strides).
 * Also the one-warp kernel below (nd_lk_inv_warp_ok), modes INV and SOLVE, any strides. */
nd_status nd_lk_gj_medium(const nd_lk_gj *p, void *stream);
/* Whether nd_lk_gj_medium handles this size and dtype. */
int nd_lk_gj_medium_ok(int dtype, int n);
/* Whether nd_lk_gj_medium takes the inverse or the solve (modes ND_LK_INV, ND_LK_SOLVE) of this
 * small size with one warp per matrix (k_gjw: float64 16 < n <= 32, float32 24 < n <= 32). */
int nd_lk_inv_warp_ok(int dtype, int n);
/* Those orders' one-warp kernels (linalg/gj_warp.cu), called by nd_lk_gj_medium. */
nd_status nd_lk_gj_warp(const nd_lk_gj *p, void *stream);

/* Inverse and solve, float64 16 < n <= 32 on devices of compute capability 8.0 and later
 * (nd_lk_inv_tc_ok): one warp per matrix with the updates on the float64 tensor cores
 * (linalg/gj_tensor.cu); preferred there to nd_lk_gj_medium's one-warp kernel (the plan of
 * linalg/plan.c chooses). Same contract as nd_lk_gj_small in modes ND_LK_INV and ND_LK_SOLVE. */
nd_status nd_lk_inv_tc(const nd_lk_gj *p, void *stream);
int nd_lk_inv_tc_ok(int dtype, int n);

/* ---- randomised solve (linalg/rbt.cu) -------------------------------------------------------
 * One order-n system with k right-hand sides, padded to order np (a multiple of 64). All
 * vectors are np x k column-major (leading dimension np); matrices column-major of order np.
 * dtype must be ND_FLOAT64. */
typedef struct nd_lk_rbt {
  int dtype;
  int n, np, k;
} nd_lk_rbt;

/* ar = W0^T [M 0; 0 I] W1 for M(i, j) = m[i*ms_r + j*ms_c] (i, j < n); *normsq += sum M^2. */
nd_status nd_lk_rbt_matrix(const nd_lk_rbt *p, const void *m, int64_t ms_r, int64_t ms_c, void *ar,
                           double *normsq, void *stream);
/* out = b (n x k at b[i*brs + c*bcs]) with zero rows n..np-1. */
nd_status nd_lk_rbt_gather(const nd_lk_rbt *p, const void *b, int64_t brs, int64_t bcs, void *out, void *stream);
/* Transform `set` (0 or 1) of every column: apply 0: out = W^T in; 1: out = W in; 2: out += W in. */
nd_status nd_lk_rbt_vec(const nd_lk_rbt *p, const void *in, void *out, int set, int apply, void *stream);
/* dinv (np/64 row-major 64 x 64 tiles) = the inverses of the diagonal 64 x 64 blocks of the
 * triangle T(i, j) = tri[i*tr + j*tc] (lower or upper, unit diagonal or not), and dinv + np*64 the
 * same for the other triangle of the same T (upper for lower, non-unit diagonal for unit). */
nd_status nd_lk_tri_inv(const nd_lk_rbt *p, const void *tri, int64_t tr, int64_t tc, int lower, int unit, void *dinv,
                        void *stream);
/* mlink (np/64 row-major 64 x 64 tiles) = inv(T[i][i]) T[i][i-1] (lower; upper: T[i][i+1]) per
 * 64-row block i, from dinv, and mlink + np*64 the same for the other triangle. */
nd_status nd_lk_tri_link(const nd_lk_rbt *p, const void *tri, int64_t tr, int64_t tc, int lower, const void *dinv,
                         void *mlink, void *stream);
/* In place y = T^-1 y for that triangle, given its dinv and mlink. sync: nd_lk_trsm_sync_ints(np,
 * k) ints, zero before the call. */
nd_status nd_lk_trsm_blocks(const nd_lk_rbt *p, const void *tri, int64_t tr, int64_t tc, int lower, const void *dinv,
                            const void *mlink, void *y, int *sync, void *stream);
int64_t nd_lk_trsm_sync_ints(int np, int k);
/* The acceptance check of the randomised solve (its rule and tolerances are stated once, beside
 * the launcher in linalg/rbt.cu): atomicMin(first, index) unless info is 0, the diagonal of lu
 * is finite with no tiny entry against sqrt(*normsq) = ||M||_F, and every column of r (the
 * residual b - A x, rows < n) is finite and small against ||M||_F ||x||_inf. */
nd_status nd_lk_rbt_check(const nd_lk_rbt *p, const void *lu, const int *info, const void *r, const void *x,
                          const double *normsq, unsigned long long *first, int64_t index, void *stream);

/* ---- helpers (linalg/aux.cu) ----------------------------------------------------------- */

/* Writes all ones (0xff...) to *first, the "no failure" value of nd_lk_info_first. */
nd_status nd_lk_first_reset(unsigned long long *first, void *stream);

/* atomicMin(*first, i) for every i < count with info[i] != 0. */
nd_status nd_lk_info_first(const int *info, int64_t count, unsigned long long *first, void *stream);

/* Identity matrices into a batch (x as nd_lk_mat, n x n each, dtype). */
nd_status nd_lk_identity(nd_lk_mat x, int dtype, int n, int64_t batch, void *stream);

/* ptrs[b] = base + b * stride_bytes, for batched cuBLAS/cuSOLVER calls. */
nd_status nd_lk_pointer_array(void **ptrs, char *base, int64_t stride_bytes, int64_t batch, void *stream);

/* Determinants from LU factors (column-major n x n with leading dimension n at lu + b*n*n,
 * 1-based pivots ipiv + b*n). mode ND_LK_DET or ND_LK_SLOGDET; info[b] != 0 means singular. */
nd_status nd_lk_lu_det(int mode, int dtype, int n, int64_t batch, const void *lu, const int *ipiv,
                       const int *info, void *det, void *logdet, void *stream);

/* Strided conj copy over a collapsed loop (complex dtypes; same dtype on both sides). */
nd_status nd_lk_conj(const nd_kloop *loop, const nd_koperand *dst, const nd_koperand *src, void *stream);

/* Integer and bool matmul: c[b] = a[b] @ b[b] for (m x k) @ (k x n), all of dtype (bool gives
 * logical or of ands; integers wrap modulo 2^bits). c is written with its strides. */
nd_status nd_lk_matmul_int(int dtype, int64_t batch, int64_t m, int64_t n, int64_t k, nd_lk_mat a,
                           nd_lk_mat b, nd_lk_mat c, void *stream);

/* Reductions for norms and traces. out[i] = post(reduce_{j < len} f(x[off(i) + j*stride])) over
 * the loop of outputs (x's offsets follow `src`'s strides for the loop), written to dst (real
 * dtype for the |x| ops, x's dtype or a wider one for ND_LK_SUM). */
enum nd_lk_red_op {
  ND_LK_SUM = 0,     /* plain sum (trace); dst dtype may differ from src (converted) */
  ND_LK_SUM_ABS = 1, /* sum |x| */
  ND_LK_SUM_SQ = 2,  /* sum |x|^2 */
  ND_LK_MAX_ABS = 3,
  ND_LK_MIN_ABS = 4,
  ND_LK_COUNT_NZ = 5,
  ND_LK_SUM_POW = 6  /* sum |x|^p */
};
enum nd_lk_post { ND_LK_POST_NONE = 0, ND_LK_POST_SQRT = 1, ND_LK_POST_ROOT = 2 /* ^(1/p) */ };
nd_status nd_lk_reduce(int op, int post, double p, const nd_kloop *loop, const nd_koperand *dst,
                       const nd_koperand *src, int64_t len, int64_t src_stride, void *stream);

/* x[b][i][:] *= (s[b][i] > rcond * s[b][0]) ? 1 / s[b][i] : 0 for a C-contiguous batch of
 * (rows x cols) matrices of dtype and real singular values s (batch x rows, descending). */
nd_status nd_lk_scale_rows_pinv(int dtype, int64_t batch, int64_t rows, int64_t cols, void *x,
                                const void *s, double rcond, void *stream);

/* rank[b] = count of s[b][i] > tol_b, tol_b = tol >= 0 ? tol : s[b][0] * tol_scale (s real,
 * descending, batch x k, contiguous). */
nd_status nd_lk_rank(int real_dtype, int64_t batch, int64_t k, const void *s, double tol,
                     double tol_scale, int64_t *rank, void *stream);

/* out[b] = s[b][0] / s[b][k-1], or its inverse (cond from singular values, real dtype). */
nd_status nd_lk_ratio_first_last(int real_dtype, int64_t batch, int64_t k, const void *s, int inverse,
                                 void *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_LINALG_KERNELS_H */
